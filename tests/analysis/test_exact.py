import random
from decimal import Decimal
from fractions import Fraction

import pytest

from baccarat.analysis import (
    CompositionError,
    analyse,
    count_outcomes,
    count_outcomes_by_enumeration,
    full_composition,
    shoe_composition,
    shoe_faces,
)
from baccarat.core import MAIN_BETS, Card, Outcome, Shoe, get_rules, rules_for_decks


def percent(x: Fraction, places: int) -> Decimal:
    return round(Decimal(x.numerator) / Decimal(x.denominator) * 100, places)


def test_eight_deck_counts_equal_the_published_integers(golden):
    expected = golden["eight_decks"]["counts"]
    counts = count_outcomes(full_composition(8))
    assert counts.banker == expected["banker"]
    assert counts.player == expected["player"]
    assert counts.tie == expected["tie"]
    assert counts.total == expected["total"] == 416 * 415 * 414 * 413 * 412 * 411


def test_eight_deck_house_edges_equal_the_published_figures(golden):
    expected = golden["eight_decks"]["house_edge_percent"]
    tie8 = analyse(get_rules("classic-8deck")).bets
    tie9 = analyse(get_rules("online-6deck-tie9"), full_composition(8)).bets
    assert percent(tie8["banker"].house_edge, 4) == Decimal(expected["banker"])
    assert percent(tie8["player"].house_edge, 4) == Decimal(expected["player"])
    assert percent(tie8["tie"].house_edge, 4) == Decimal(expected["tie_8to1"])
    assert percent(tie9["tie"].house_edge, 4) == Decimal(expected["tie_9to1"])


def test_six_deck_probabilities_equal_thorps(golden):
    expected = golden["six_decks"]["probability"]
    analysis = analyse(rules_for_decks(6))
    for outcome in Outcome:
        p = analysis.probability(outcome)
        assert round(Decimal(p.numerator) / Decimal(p.denominator), 6) == Decimal(
            expected[outcome.value]
        )


def test_single_deck_rtp_equals_seed_002s_help_page(golden):
    expected = golden["single_deck"]["rtp_percent"]
    bets = analyse(get_rules(golden["single_deck"]["rules"])).bets
    for kind in MAIN_BETS:
        assert percent(bets[kind].rtp, 2) == Decimal(expected[kind])


def random_composition(rng: random.Random) -> tuple[int, ...]:
    decks = rng.randint(1, 8)
    shoe = Shoe.shuffled(decks, rng)
    removed = shoe.remaining_cards()[: rng.randint(0, 52 * decks - 6)]
    return shoe_composition(decks, removed)


@pytest.mark.parametrize("seed", range(6))
def test_fast_counts_equal_a_plain_enumeration(seed):
    composition = random_composition(random.Random(seed))
    assert count_outcomes(composition) == count_outcomes_by_enumeration(composition)


def test_counts_of_a_tiny_shoe_equal_the_enumeration():
    composition = (2, 0, 1, 0, 1, 1, 0, 1, 0, 0)
    assert count_outcomes(composition) == count_outcomes_by_enumeration(composition)
    assert count_outcomes(composition).total == 6 * 5 * 4 * 3 * 2 * 1


def test_removing_cards_changes_the_odds_exactly():
    removed = Card.parse_many("5h 5d 5c 5s")
    before = analyse(rules_for_decks(1)).bets["banker"].house_edge
    after = analyse(rules_for_decks(1), shoe_faces(1, removed)).bets["banker"]
    assert after.house_edge != before
    assert after.rtp == 1 - after.house_edge


@pytest.mark.parametrize(
    "composition",
    [
        (1, 1, 1, 1, 1, 0, 0, 0, 0, 0),  # five cards: a coup may need six
        (16, 4, 4, 4, 4, 4, 4, 4, 4),  # nine counts
        (16, 4, 4, 4, 4, 4, 4, 4, 4, -1),
        (129, 32, 32, 32, 32, 32, 32, 32, 32, 32),  # more than eight decks of tens
    ],
)
def test_impossible_compositions_are_refused(composition):
    with pytest.raises(CompositionError):
        count_outcomes(composition)


def test_removing_a_card_the_shoe_no_longer_holds_is_refused():
    with pytest.raises(CompositionError):
        shoe_composition(1, Card.parse_many("Ah Ah"))
