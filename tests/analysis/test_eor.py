"""Effect of removal: exact changes of each bet's house edge when one card leaves."""

from __future__ import annotations

from fractions import Fraction

import pytest

from baccarat.analysis import (
    OutcomeCounts,
    count_outcomes_by_enumeration,
    full_composition,
    shoe_faces,
)
from baccarat.analysis.composition import ranks_of_faces
from baccarat.analysis.eor import REMOVAL_ORDER, effect_of_removal
from baccarat.core import MAIN_BETS, Card, Outcome, get_rules


@pytest.mark.parametrize(
    ("name", "removed"),
    [
        ("classic-8deck", ""),
        ("single-deck", ""),
        ("online-6deck-tie9", ""),
        ("ez-8deck", "7h 7h 7d 3c 4s 2s 9c 8d 8d 8h"),
        ("classic-6deck", "Kh Kh Kh Qs Qs 5d 5d 5c 9s 2c 2c"),
    ],
)
def test_effects_weighted_by_the_cards_of_the_shoe_sum_to_zero(name: str, removed: str) -> None:
    # Removing a card unseen leaves the odds of what follows unchanged, so the effects,
    # weighted by how many cards of each rank the shoe holds, cancel exactly: every bet.
    rules = get_rules(name)
    faces = shoe_faces(rules.decks, Card.parse_many(removed))
    ranks = ranks_of_faces(faces)
    effects = effect_of_removal(rules, faces)
    assert [e.label for e in effects] == list(REMOVAL_ORDER)
    for kind in rules.bets:
        total = sum(
            (ranks[i] * e.change[kind] for i, e in enumerate(effects) if e.change),
            Fraction(0),
        )
        assert total == 0, kind


def test_counting_dragon_7_and_panda_8_from_the_known_tags() -> None:
    # Dragon 7 is the known weak spot of EZ Baccarat: eights and nines leaving the shoe make
    # it better for the player, fours to sevens worse; Panda 8 loses most from nines leaving.
    effects = {e.label: e.change for e in effect_of_removal(get_rules("ez-8deck"))}
    for high in "89":
        for low in "4567":
            assert effects[high]["dragon7"] < 0 < effects[low]["dragon7"]  # type: ignore[index]
    assert min(effects, key=lambda k: effects[k]["panda8"]) == "9"  # type: ignore[index]


def test_pair_bets_move_only_in_a_depleted_shoe() -> None:
    rules = get_rules("classic-8deck")
    full = {e.label: e.change for e in effect_of_removal(rules)}
    assert all(c is not None and c["player_pair"] == 0 for c in full.values())
    # With kings short, another king leaving makes pairs likelier (the edge falls); a card
    # of a full rank leaving makes them rarer (it rises).
    kings_out = shoe_faces(8, Card.parse_many("Kh Kd Kc Ks Kh Kd Kc Ks"))
    depleted = {e.label: e.change for e in effect_of_removal(rules, kings_out)}
    assert depleted["K"]["player_pair"] < 0 < depleted["A"]["player_pair"]  # type: ignore[index]


def test_removing_a_five_hurts_the_banker_and_helps_the_player() -> None:
    # The sign comes from our exact numbers, checked by the slow enumeration below.
    effects = {e.label: e.change for e in effect_of_removal(get_rules("classic-8deck"))}
    five, four = effects["5"], effects["4"]
    assert five is not None and four is not None
    assert five["banker"] > 0 > five["player"]
    assert four["banker"] < 0 < four["player"]


def _main_edges(counts: OutcomeCounts) -> dict[str, Fraction]:
    """Classic pays (19:20, 1:1, 8:1) written out plainly."""
    pb, pp, pt = (counts.probability(o) for o in (Outcome.BANKER, Outcome.PLAYER, Outcome.TIE))
    return {"banker": pp - pb * Fraction(19, 20), "player": pb - pp, "tie": pb + pp - 8 * pt}


def test_effect_of_removing_a_five_agrees_with_plain_enumeration() -> None:
    full = full_composition(1)
    without_five = tuple(n - (v == 5) for v, n in enumerate(full))
    before, after = (_main_edges(count_outcomes_by_enumeration(c)) for c in (full, without_five))
    five = {e.label: e.change for e in effect_of_removal(get_rules("single-deck"))}["5"]
    assert five is not None
    assert {k: five[k] for k in MAIN_BETS} == {k: after[k] - before[k] for k in MAIN_BETS}


def test_ranks_are_ace_to_king() -> None:
    assert ("A", *map(str, range(2, 10)), "T", "J", "Q", "K") == REMOVAL_ORDER
    values = [e.value for e in effect_of_removal(get_rules("single-deck"))]
    assert values == [*range(1, 10), 0, 0, 0, 0]


def test_a_rank_no_longer_in_the_shoe_has_no_effect_to_show() -> None:
    rules = get_rules("single-deck")
    no_nines = shoe_faces(1, Card.parse_many("9c 9d 9h 9s"))
    effects = {e.label: e for e in effect_of_removal(rules, no_nines)}
    assert effects["9"].change is None and effects["9"].to_json() is None
    assert effects["8"].change is not None
