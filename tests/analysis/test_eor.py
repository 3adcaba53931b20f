"""Effect of removal: exact changes of each bet's house edge when one card leaves."""

from __future__ import annotations

from fractions import Fraction

import pytest

from baccarat.analysis import bet_odds, count_outcomes_by_enumeration, full_composition
from baccarat.analysis.eor import REMOVAL_ORDER, effect_of_removal
from baccarat.core import MAIN_BETS, get_rules


@pytest.mark.parametrize("name", ["classic-8deck", "single-deck", "online-6deck-tie9"])
def test_effects_weighted_by_the_cards_of_the_shoe_sum_to_zero(name: str) -> None:
    # Removing a card unseen leaves the odds of what follows unchanged, so the effects,
    # weighted by how many cards of each value the shoe holds, cancel exactly.
    rules = get_rules(name)
    composition = full_composition(rules.decks)
    effects = effect_of_removal(rules)
    for kind in MAIN_BETS:
        total = sum(
            (composition[e.value] * e.change[kind] for e in effects if e.change),
            Fraction(0),
        )
        assert total == 0


def test_removing_a_five_hurts_the_banker_and_helps_the_player() -> None:
    # The sign comes from our exact numbers, checked by the slow enumeration below.
    effects = {e.label: e.change for e in effect_of_removal(get_rules("classic-8deck"))}
    five, four = effects["5"], effects["4"]
    assert five is not None and four is not None
    assert five["banker"] > 0 > five["player"]
    assert four["banker"] < 0 < four["player"]


def test_effect_of_removing_a_five_agrees_with_plain_enumeration() -> None:
    rules = get_rules("single-deck")
    full = full_composition(1)
    without_five = tuple(n - (v == 5) for v, n in enumerate(full))
    before = bet_odds(rules, count_outcomes_by_enumeration(full))
    after = bet_odds(rules, count_outcomes_by_enumeration(without_five))
    effects = {e.label: e.change for e in effect_of_removal(rules)}
    assert effects["5"] == {k: after[k].house_edge - before[k].house_edge for k in MAIN_BETS}


def test_ranks_are_ace_to_nine_then_the_ten_value_cards() -> None:
    assert [label for label, _ in REMOVAL_ORDER] == ["A", *map(str, range(2, 10)), "T"]
    assert [value for _, value in REMOVAL_ORDER] == [*range(1, 10), 0]


def test_a_rank_no_longer_in_the_shoe_has_no_effect_to_show() -> None:
    rules = get_rules("single-deck")
    no_nines = tuple(0 if v == 9 else n for v, n in enumerate(full_composition(1)))
    effects = {e.label: e for e in effect_of_removal(rules, no_nines)}
    assert effects["9"].change is None and effects["9"].to_json() is None
    assert effects["8"].change is not None
