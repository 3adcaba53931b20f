"""The compiled kernel: its generator, its draws, and its deal against the rules engine."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from baccarat.analysis import kernel
from baccarat.analysis.outcomes import OutcomeClass, PairKind
from baccarat.analysis.simulate import (
    KernelCoup,
    SimulationError,
    Stream,
    dealt_shoes,
    kernel_config,
    kernel_coups,
    kernel_deal_stacked,
    stream_states,
)
from baccarat.core import (
    PRESETS,
    Card,
    Coup,
    RuleSet,
    Shoe,
    ShufflePolicy,
    burn_count,
    deal_coup,
    get_rules,
    play_coup,
)

MASK = (1 << 64) - 1
# The multiplier games' kernel has its tests in test_multiplier_simulate.py.
CLASSIC = [p for p in PRESETS if p.multipliers is None]
CUT_SHOES = [p.name for p in CLASSIC if p.shuffle is ShufflePolicy.CUT_SHOE]
FRESH = [p.name for p in CLASSIC if p.shuffle is ShufflePolicy.FRESH]


def test_generator_gives_the_published_xoshiro256starstar_outputs() -> None:
    # The reference implementation's first ten outputs from the state {1, 2, 3, 4}, as the
    # rand_xoshiro crate's test vector has them.
    expected = [
        11520,
        0,
        1509978240,
        1215971899390074240,
        1216172134540287360,
        607988272756665600,
        16172922978634559625,
        8476171486693032832,
        10595114339597558777,
        2904607092377533576,
    ]
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert [int(kernel.next_u64(state)) for _ in expected] == expected


def _reference_next(s: list[int]) -> int:
    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & MASK

    result = rotl(s[1] * 5 & MASK, 7) * 9 & MASK
    t = s[1] << 17 & MASK
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


def _reference_below(s: list[int], n: int) -> int:
    """Lemire's method on the upper 32 bits, written plainly."""
    threshold = (1 << 32) % n
    while True:
        m = (_reference_next(s) >> 32) * n
        if m & 0xFFFFFFFF >= threshold:
            return m >> 32


@pytest.mark.parametrize("n", [1, 2, 7, 416, 3 << 30, (1 << 32) - 1])
def test_bounded_draws_follow_lemire_exactly_including_rejections(n: int) -> None:
    # For n = 3 * 2**30 a quarter of the products fall in the rejected zone, so the rare
    # path of the kernel runs here many times.
    state = np.array([5, 6, 7, 8], dtype=np.uint64)
    reference = [5, 6, 7, 8]
    assert [int(kernel.below(state, n)) for _ in range(2000)] == [
        _reference_below(reference, n) for _ in range(2000)
    ]
    assert [int(w) for w in state] == reference


def test_bounded_draws_are_uniform_on_a_small_range() -> None:
    state = np.array([9, 10, 11, 12], dtype=np.uint64)
    draws = np.array([kernel.below(state, 6) for _ in range(60_000)])
    observed = np.bincount(draws, minlength=6)
    chi2 = float(((observed - 10_000) ** 2 / 10_000).sum())
    # Chi-square with 5 degrees of freedom: 20.5 is its 0.999 quantile.
    assert observed.sum() == 60_000 and chi2 < 20.5


@pytest.mark.parametrize(("cards", "steps"), [(52, 51), (416, 369), (416, 6)])
def test_shuffle_is_fisher_yates_from_the_front_with_these_draws(cards: int, steps: int) -> None:
    state = np.array([11, 12, 13, 14], dtype=np.uint64)
    shoe = np.arange(cards, dtype=np.uint16)
    kernel.shuffle_prefix(state, shoe, steps)
    reference_state, expected = [11, 12, 13, 14], list(range(cards))
    for i in range(steps):
        j = i + _reference_below(reference_state, cards - i)
        expected[i], expected[j] = expected[j], expected[i]
    assert shoe.tolist() == expected


def test_a_shuffled_shoe_is_a_permutation_of_the_whole_shoe() -> None:
    rules = get_rules("classic-8deck")
    shoe = Stream(kernel_config(rules), stream_states(1, 1)[0])
    shoe.next_shoe()
    assert sorted(shoe.shoe.tolist()) == list(range(416))
    assert shoe.shoe.tolist() != list(range(416))


def _engine_coups(rules: RuleSet, cards: tuple[Card, ...]) -> list[tuple[int, Coup]]:
    """Deal a shoe as the rules engine does: burn, then coups until the cut card."""
    shoe = Shoe(cards, decks=rules.decks, cut_card=rules.cut_card_position)
    if rules.burn:
        burned = shoe.burn_by_first_card()
        assert len(burned) == 1 + burn_count(cards[0])
    coups = []
    while not shoe.is_cut_card_reached:
        position = shoe.position
        coups.append((position, deal_coup(shoe)))
    return coups


def _pair_kind(first: Card, second: Card) -> PairKind:
    if first == second:
        return PairKind.IDENTICAL
    return PairKind.PAIR if first.rank == second.rank else PairKind.NONE


def _same(kernel_coup: KernelCoup, position: int, coup: Coup) -> bool:
    o = kernel_coup.outcome
    return (
        kernel_coup.position == position
        and kernel_coup.cards_used == coup.cards_used
        and (o.player, o.banker) == (coup.player.score, coup.banker.score)
        and (o.player_third, o.banker_third)
        == (len(coup.player.cards) == 3, len(coup.banker.cards) == 3)
        and o.player_pair == _pair_kind(*coup.player.cards[:2])
        and o.banker_pair == _pair_kind(*coup.banker.cards[:2])
        and o.winner == coup.winner
        and o.natural == coup.natural
    )


@pytest.mark.parametrize("name", CUT_SHOES)
@pytest.mark.parametrize("seed", [0, 20240611])
def test_kernel_deals_three_shoes_as_the_rules_engine_does(name: str, seed: int) -> None:
    rules = get_rules(name)
    engine = [c for cards in dealt_shoes(rules, seed, 3) for c in _engine_coups(rules, cards)]
    dealt = kernel_coups(rules, seed, len(engine))
    assert len(engine) > 3 * 60
    assert all(_same(k, position, coup) for k, (position, coup) in zip(dealt, engine, strict=True))


def test_the_second_worker_deals_its_own_shoes_as_the_engine_does() -> None:
    rules = get_rules("classic-8deck")
    (cards,) = dealt_shoes(rules, 5, workers=2, worker=1)
    engine = _engine_coups(rules, cards)
    dealt = kernel_coups(rules, 5, len(engine), workers=2, worker=1)
    assert all(_same(k, position, coup) for k, (position, coup) in zip(dealt, engine, strict=True))
    assert dealt_shoes(rules, 5, workers=2, worker=0) != [cards]


@pytest.mark.parametrize("name", FRESH)
def test_fresh_shuffle_rounds_are_the_engine_coups_of_each_new_shuffle(name: str) -> None:
    rules = get_rules(name)
    rounds = dealt_shoes(rules, 11, 200)
    dealt = kernel_coups(rules, 11, 200)
    assert all(len(cards) == 6 for cards in rounds)
    assert all(_same(k, 0, play_coup(cards)) for k, cards in zip(dealt, rounds, strict=True))
    # Each round is a new shuffle of the whole shoe: rounds draw from all of its cards.
    assert len({card for cards in rounds for card in cards}) > 40


@pytest.mark.parametrize("name", CUT_SHOES)
def test_no_coup_starts_past_the_cut_card_and_the_last_one_is_completed(name: str) -> None:
    rules = get_rules(name)
    cut = rules.cut_card_position
    assert cut is not None
    dealt = kernel_coups(rules, 3, 2000)
    assert all(c.position < cut for c in dealt)
    shoe_ends = [a for a, b in itertools.pairwise(dealt) if b.position < a.position]
    assert len(shoe_ends) > 10
    # A shoe ends only with the coup that reached or crossed the cut card.
    assert all(c.position + c.cards_used >= cut for c in shoe_ends)
    assert any(c.position + c.cards_used > cut for c in shoe_ends)


def test_the_burn_uses_the_first_cards_value_with_tens_and_pictures_burning_ten() -> None:
    rules = get_rules("classic-8deck")
    shoes = dealt_shoes(rules, 8, 60)
    firsts = kernel_coups(rules, 8, 10_000)
    starts = [firsts[0]] + [b for a, b in itertools.pairwise(firsts) if b.position < a.position]
    burns = [c.position for c in starts[: len(shoes)]]
    assert burns == [1 + burn_count(cards[0]) for cards in shoes]
    assert 11 in burns and 2 in burns


def _card(value: int, suit: str = "c") -> Card:
    return Card.parse(("T" if value == 0 else "A" if value == 1 else str(value)) + suit)


def test_kernel_follows_the_tableau_in_every_cell() -> None:
    # One coup for every two-card player score, banker score and fifth card (1,000 cells),
    # stacked back to back; the engine says how many cards each uses.
    stack: list[Card] = []
    expected: list[tuple[int, Coup]] = []
    for p in range(10):
        for b in range(10):
            for fifth in range(10):
                sixth = (3 * fifth + p + 1) % 10
                block = [_card(p), _card(b, "d"), _card(0, "h"), _card(0, "s")]
                block += [_card(fifth, "h"), _card(sixth, "s")]
                coup = play_coup(block)
                expected.append((len(stack), coup))
                stack += block[: coup.cards_used]
    dealt = kernel_deal_stacked(stack, len(expected))
    assert all(_same(k, pos, coup) for k, (pos, coup) in zip(dealt, expected, strict=True))
    # Every way a coup can go is among them: 4, 5 and 6 cards, naturals.
    assert {c.cards_used for _, c in expected} == {4, 5, 6}


def test_a_stack_too_short_for_the_coups_asked_is_refused() -> None:
    with pytest.raises(SimulationError):
        kernel_deal_stacked(Card.parse_many("9c 9d Tc Td 9h 9s Tc Td"), 3)


def test_outcome_class_index_round_trips() -> None:
    for index in (0, 1, 1234, kernel.N_CLASSES - 1):
        assert OutcomeClass.from_index(index).index == index


def test_a_cut_card_that_leaves_no_coup_is_refused() -> None:
    rules = RuleSet(
        name="shallow",
        decks=1,
        shuffle=ShufflePolicy.CUT_SHOE,
        penetration=Fraction(1, 52),
        burn=True,
    )
    with pytest.raises(SimulationError):
        kernel_config(rules)
