from fractions import Fraction

import pytest

from baccarat.core import PRESETS, RuleSet, RuleSetError, ShufflePolicy, get_rules


def test_every_seed_has_a_preset():
    assert {p.source for p in PRESETS} >= {f"seed 00{i}" for i in range(5)}


def test_presets_are_found_by_name_and_alias():
    assert get_rules("mini") is get_rules("seed-001")
    assert get_rules(" Classic-8deck ") is get_rules("standard")


def test_unknown_preset_names_the_choices():
    with pytest.raises(RuleSetError, match="classic-8deck"):
        get_rules("texas")


def test_seed_000_pays_tie_nine_to_one_with_six_decks():
    rules = get_rules("online-6deck-tie9")
    assert (rules.decks, rules.tie_pays, rules.shuffle) == (6, 9, ShufflePolicy.FRESH)


def test_mini_is_a_cut_shoe_with_a_cut_card():
    rules = get_rules("mini")
    assert rules.shuffle is ShufflePolicy.CUT_SHOE
    assert rules.cut_card_position == 364


def test_banker_commission_makes_banker_pay_nineteen_to_twenty():
    assert get_rules("single-deck").banker_win_multiplier == Fraction(19, 20)


@pytest.mark.parametrize(
    "fields",
    [
        {"decks": 0},
        {"decks": 9},
        {"shuffle": ShufflePolicy.CUT_SHOE},
        {"shuffle": ShufflePolicy.CUT_SHOE, "penetration": Fraction(1)},
        {"penetration": Fraction(1, 2)},
        {"burn": True},
        {"tie_pays": Fraction(0)},
        {"banker_commission": Fraction(1)},
        {"name": ""},
    ],
)
def test_invalid_rule_sets_are_refused(fields):
    with pytest.raises(RuleSetError):
        RuleSet(**{"name": "x", "decks": 6, **fields})


def test_rule_sets_are_frozen():
    with pytest.raises(AttributeError):
        get_rules("mini").decks = 1  # type: ignore[misc]
