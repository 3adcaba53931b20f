"""RNG quality evidence: the battery of ``baccarat rng-report`` on fixed seeds.

Bounds: every test is a hypothesis test of the fair derivation at significance level
ALPHA = 0.001 (the seeds are fixed, so the outcome is deterministic; a fair generator
would fail one given test for 0.1% of seeds). Each test is also shown to reject a
deliberately broken shuffle, so none of them can pass vacuously.

Sizes: 5,200 single-deck rounds (100 expected per cell of the 52 x 52 position table),
2,080 eight-deck shoes (40 expected per card face); about two seconds together.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from baccarat.analysis import count_outcomes, full_composition
from baccarat.core import Card, new_shoe_order
from baccarat.fairness import shuffled_order
from baccarat.fairness.battery import EXACT_OUTCOMES, OUTCOMES, NotRun, RngBattery
from baccarat.fairness.stats import StatResult

ALPHA = 0.001
SERVER_SEED = "5eed" * 16
CLIENT_SEED = "rng-quality"
ROUNDS = 5200
SHOES = 2080


@pytest.fixture(scope="module")
def fair() -> RngBattery:
    battery = RngBattery(SERVER_SEED, CLIENT_SEED, ROUNDS, SHOES)
    battery.run()
    return battery


def result(outcome: StatResult | NotRun) -> StatResult:
    assert isinstance(outcome, StatResult), outcome
    return outcome


def test_card_positions_of_one_deck_shuffles_are_uniform(fair: RngBattery) -> None:
    test = result(fair.card_positions())
    assert test.df == 51 * 51 and test.samples == ROUNDS
    assert test.passed(ALPHA), test


def test_first_cards_of_eight_deck_shoes_are_uniform(fair: RngBattery) -> None:
    test = result(fair.shoe_first_cards())
    assert test.df == 51 and test.samples == SHOES
    assert test.passed(ALPHA), test


def test_outcomes_follow_the_exact_probabilities(fair: RngBattery) -> None:
    for test in (result(fair.outcome_frequencies()), result(fair.shoe_outcome_frequencies())):
        assert test.df == 2
        assert test.passed(ALPHA), test


def test_successive_rounds_outcomes_are_independent(fair: RngBattery) -> None:
    test = result(fair.serial_independence())
    assert test.df == 4 and test.samples == ROUNDS - 1
    assert test.passed(ALPHA), test


def test_banker_player_runs_are_as_random_as_expected(fair: RngBattery) -> None:
    test = result(fair.banker_player_runs())
    assert test.passed(ALPHA), test


def test_stream_bytes_are_uniform(fair: RngBattery) -> None:
    test = result(fair.stream_bytes())
    assert test.df == 255 and test.samples == 32 * ROUNDS
    assert test.passed(ALPHA), test


def test_the_battery_runs_every_test_at_this_size(fair: RngBattery) -> None:
    assert fair.is_complete
    assert all(isinstance(r, StatResult) for r in fair.results())


# Negative controls: broken shuffles each test must reject.


def sattolo(rng: random.Random) -> object:
    """The off-by-one Fisher-Yates (j in [0, i) instead of [0, i]): no card stays put."""

    def order(nonce: int, decks: int) -> Sequence[Card]:
        cards = list(new_shoe_order(decks))
        for i in range(len(cards) - 1, 0, -1):
            j = rng.randrange(i)
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    return order


def naive(rng: random.Random) -> object:
    """The naive shuffle: swap every position with any position (n^n paths, not n!)."""

    def order(nonce: int, decks: int) -> Sequence[Card]:
        cards = list(new_shoe_order(decks))
        for i in range(len(cards)):
            j = rng.randrange(len(cards))
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    return order


@pytest.mark.parametrize("broken", [sattolo, naive], ids=["off-by-one", "naive"])
def test_position_test_rejects_biased_shuffles(broken: object) -> None:
    battery = RngBattery(SERVER_SEED, CLIENT_SEED, ROUNDS, 0)
    battery.order_source = broken(random.Random(1))  # type: ignore[operator]
    battery.run()
    assert not result(battery.card_positions()).passed(ALPHA)


def test_first_card_test_rejects_a_shuffle_that_stops_halfway() -> None:
    rng = random.Random(2)

    def half(nonce: int, decks: int) -> Sequence[Card]:
        cards = list(new_shoe_order(decks))
        for i in range(len(cards) - 1, len(cards) // 2, -1):
            j = rng.randrange(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return cards

    battery = RngBattery(SERVER_SEED, CLIENT_SEED, 0, SHOES, order_source=half)
    battery.run()
    assert not result(battery.shoe_first_cards()).passed(ALPHA)


def test_serial_tests_reject_a_generator_that_sometimes_repeats_a_shuffle() -> None:
    """A nonce that fails to advance one round in five repeats the previous coup."""
    rng = random.Random(3)
    previous: list[Sequence[Card]] = []

    def sticky(nonce: int, decks: int) -> Sequence[Card]:
        if previous and rng.random() < 0.2:
            return previous[-1]
        previous.append(shuffled_order(SERVER_SEED, CLIENT_SEED, nonce, decks))
        return previous[-1]

    battery = RngBattery(SERVER_SEED, CLIENT_SEED, ROUNDS, 0, order_source=sticky)
    battery.run()
    assert not result(battery.serial_independence()).passed(ALPHA)
    assert not result(battery.banker_player_runs()).passed(ALPHA)


def test_outcome_test_rejects_a_shoe_stacked_for_the_banker() -> None:
    """One round in ten dealt from a stack where the banker wins: a rigged game."""
    rng = random.Random(4)
    stacked = Card.parse_many("2c 9d 3c Kd")

    def rigged(nonce: int, decks: int) -> Sequence[Card]:
        order = shuffled_order(SERVER_SEED, CLIENT_SEED, nonce, decks)
        if rng.random() < 0.1:
            rest = [c for c in order if c not in stacked]
            return [*stacked, *rest]
        return order

    battery = RngBattery(SERVER_SEED, CLIENT_SEED, ROUNDS, 0, order_source=rigged)
    battery.run()
    assert not result(battery.outcome_frequencies()).passed(ALPHA)


def test_byte_test_rejects_a_stream_that_avoids_high_bytes() -> None:
    rng = random.Random(5)

    def clipped(nonce: int) -> bytes:
        return bytes(min(rng.randrange(256), 250) for _ in range(32))

    def canonical(nonce: int, decks: int) -> Sequence[Card]:
        return new_shoe_order(decks)

    battery = RngBattery(
        SERVER_SEED, CLIENT_SEED, ROUNDS, 0, order_source=canonical, block_source=clipped
    )
    battery.run()
    assert not result(battery.stream_bytes()).passed(ALPHA)


def test_partial_battery_reports_tests_it_cannot_run_yet() -> None:
    battery = RngBattery(SERVER_SEED, CLIENT_SEED, ROUNDS, SHOES)
    for _ in range(30):
        battery.step()
    assert not battery.is_complete
    assert battery.done_shuffles + battery.done_shoes == 30
    assert battery.done_shoes >= 1
    outcomes = battery.results()
    assert any(isinstance(r, NotRun) for r in outcomes)
    assert len(outcomes) == 7


@pytest.mark.parametrize("decks", sorted(EXACT_OUTCOMES))
def test_the_battery_expects_the_exact_analysers_outcome_probabilities(decks: int) -> None:
    counts = count_outcomes(full_composition(decks))
    assert EXACT_OUTCOMES[decks] == tuple(counts.probability(o) for o in OUTCOMES)
    assert sum(EXACT_OUTCOMES[decks]) == 1
