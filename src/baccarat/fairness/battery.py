"""The RNG test battery: the statistics of ``baccarat rng-report`` and of the test suite.

Two simulated tables under one server seed and client seed:

- a single-deck fresh-shuffle table, rounds at nonces 0 .. N-1: positions of every card
  (52 x 52), the outcome frequencies against the exact probabilities, the independence of
  successive outcomes (3 x 3 transitions), a runs test on banker/player, and the byte
  frequencies of the first HMAC block of every shuffle;
- an 8-deck fresh-shuffle table, shoes at nonces N .. N+M-1: the first card of each shoe
  (52 card faces) and the outcome frequencies of each shoe's first coup.

Work is done one shuffle at a time (``step``), so a caller can show progress and stop at
any point with a valid partial result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Concatenate, ParamSpec

from ..core import Card, Outcome, new_deck, play_coup
from .derive import byte_stream, shuffled_order
from .stats import (
    StatResult,
    TooFewSamples,
    chi2_sf,
    chi_square_gof,
    chi_square_table,
    chi_square_uniform,
    runs_test,
    transition_table,
)

P = ParamSpec("P")
SHOE_DECKS = 8
OUTCOMES = (Outcome.BANKER, Outcome.PLAYER, Outcome.TIE)
_FACE_INDEX = {card: i for i, card in enumerate(new_deck())}

# The tests, in report order, with what each one tests and how (for the report's methods).
POSITIONS = "T1 card positions, 1-deck shuffles (52 x 52)"
OUTCOMES_1 = "T2 1-deck outcomes vs exact probabilities"
SERIAL = "T3 successive 1-deck outcomes independent (3 x 3)"
RUNS = "T4 banker/player runs, 1-deck rounds"
BYTES = "T5 HMAC stream bytes (256 values)"
FIRST_CARD = "T6 first card of 8-deck shoes (52 faces)"
OUTCOMES_8 = "T7 8-deck first coups vs exact probabilities"
DESCRIPTIONS = {
    POSITIONS: (
        "Each 1-deck shuffle adds one count to (card, position) for its 52 cards; under H0 every "
        "cell has probability 1/52. Pearson's X^2 over the 52 x 52 table is multiplied by 51/52: "
        "a shuffle is a permutation matrix, whose cells' covariance is 52/51 times a projection "
        "of rank 51 x 51, so X^2 x 51/52 is chi-square with 2601 df."
    ),
    OUTCOMES_1: (
        "The first coup of each 1-deck shuffle; banker, player and tie counts against the exact "
        "probabilities of a full single deck (baccarat.analysis). Chi-square, 2 df."
    ),
    SERIAL: (
        "Successive 1-deck rounds (nonce k, k+1): the 3 x 3 table of (outcome, next outcome). "
        "Pearson's test of independence, 4 df (Anderson-Goodman test of a first-order chain)."
    ),
    RUNS: (
        "The sequence of banker and player wins of successive 1-deck rounds, ties left out. "
        "Wald-Wolfowitz runs test: z = (runs - mean) / sd, two-sided normal p-value."
    ),
    BYTES: (
        "The 32 bytes of the first HMAC-SHA256 block of every 1-deck shuffle against 256 equally "
        "likely values. Chi-square, 255 df."
    ),
    FIRST_CARD: (
        "The first card of each 8-deck shoe (the last one Fisher-Yates places), counted by face "
        "(52 faces, 8 copies each), against equal probabilities. Chi-square, 51 df."
    ),
    OUTCOMES_8: (
        "The first coup of each 8-deck shoe; banker, player and tie counts against the exact "
        "probabilities of a full 8-deck shoe. Chi-square, 2 df."
    ),
}

OrderSource = Callable[[int, int], Sequence[Card]]
BlockSource = Callable[[int], bytes]


# Banker, player and tie probabilities of the first coup of a fresh shoe, by decks: exact
# figures of baccarat.analysis (``count_outcomes(full_composition(decks))``), written here so
# that fairness does not import analysis (tests/fairness/test_fair_rng_quality.py checks
# that they are the analyser's).
EXACT_OUTCOMES: dict[int, tuple[Fraction, Fraction, Fraction]] = {
    1: (
        Fraction(10526926, 22903335),
        Fraction(51161519, 114516675),
        Fraction(10720526, 114516675),
    ),
    8: (
        Fraction(8954111587648, 19524993263685),
        Fraction(8712962041376, 19524993263685),
        Fraction(619306544887, 6508331087895),
    ),
}


def exact_outcome_probabilities(decks: int) -> tuple[float, float, float]:
    """Banker, player and tie probabilities of a fresh shoe (``EXACT_OUTCOMES``)."""
    banker, player, tie = EXACT_OUTCOMES[decks]
    return float(banker), float(player), float(tie)


@dataclass(frozen=True, slots=True)
class NotRun:
    """A test that could not run on the samples collected (too few)."""

    name: str
    reason: str


@dataclass
class RngBattery:
    """Collects the samples; ``results()`` computes the tests on what has been collected."""

    server_seed: str
    client_seed: str
    shuffles: int
    shoes: int
    order_source: OrderSource | None = None
    block_source: BlockSource | None = None
    done_shuffles: int = 0
    done_shoes: int = 0
    positions: list[list[int]] = field(default_factory=lambda: [[0] * 52 for _ in range(52)])
    outcomes: list[Outcome] = field(default_factory=list)
    byte_counts: list[int] = field(default_factory=lambda: [0] * 256)
    first_cards: list[int] = field(default_factory=lambda: [0] * 52)
    shoe_outcomes: list[int] = field(default_factory=lambda: [0] * 3)

    def order(self, nonce: int, decks: int) -> Sequence[Card]:
        if self.order_source is not None:
            return self.order_source(nonce, decks)
        return shuffled_order(self.server_seed, self.client_seed, nonce, decks)

    def block(self, nonce: int) -> bytes:
        if self.block_source is not None:
            return self.block_source(nonce)
        return next(byte_stream(self.server_seed, self.client_seed, nonce))

    @property
    def work(self) -> int:
        """Units of work planned: a shuffle is 1, an 8-deck shoe 8."""
        return self.shuffles + SHOE_DECKS * self.shoes

    @property
    def done(self) -> int:
        return self.done_shuffles + SHOE_DECKS * self.done_shoes

    @property
    def is_complete(self) -> bool:
        return self.done_shuffles >= self.shuffles and self.done_shoes >= self.shoes

    def step(self) -> None:
        """One more shuffle: an 8-deck shoe when the shoes lag behind, else a 1-deck round."""
        shoes_due = self.done_shoes * max(self.shuffles, 1) < self.done_shuffles * self.shoes
        if self.done_shoes < self.shoes and (shoes_due or self.done_shuffles >= self.shuffles):
            self._add_shoe()
        elif self.done_shuffles < self.shuffles:
            self._add_round()

    def run(self) -> None:
        while not self.is_complete:
            self.step()

    def _add_round(self) -> None:
        nonce = self.done_shuffles
        order = self.order(nonce, 1)
        winner = play_coup(order).winner
        block = self.block(nonce)
        for position, card in enumerate(order):
            self.positions[_FACE_INDEX[card]][position] += 1
        self.outcomes.append(winner)
        for byte in block:
            self.byte_counts[byte] += 1
        self.done_shuffles += 1

    def _add_shoe(self) -> None:
        nonce = self.shuffles + self.done_shoes
        order = self.order(nonce, SHOE_DECKS)
        winner = play_coup(order).winner
        self.first_cards[_FACE_INDEX[order[0]]] += 1
        self.shoe_outcomes[OUTCOMES.index(winner)] += 1
        self.done_shoes += 1

    def results(self) -> list[StatResult | NotRun]:
        """Every test on the samples collected so far."""
        return [test() for test in self._tests()]

    def _tests(self) -> list[Callable[[], StatResult | NotRun]]:
        return [
            self.card_positions,
            self.outcome_frequencies,
            self.serial_independence,
            self.banker_player_runs,
            self.stream_bytes,
            self.shoe_first_cards,
            self.shoe_outcome_frequencies,
        ]

    def card_positions(self) -> StatResult | NotRun:
        name = POSITIONS
        n = self.done_shuffles
        expected = [[n / 52] * 52 for _ in range(52)]
        raw = _attempt(chi_square_table, name, self.positions, expected=expected, df=51 * 51)
        if isinstance(raw, NotRun):
            return raw
        # Each shuffle adds a permutation matrix: the cells' covariance is 52/51 times a
        # projection of rank 51 x 51, so X^2 x 51/52 is chi-square with 2601 df.
        return _scaled(raw, 51 / 52, n)

    def outcome_frequencies(self) -> StatResult | NotRun:
        name = OUTCOMES_1
        counts = [sum(1 for o in self.outcomes if o is k) for k in OUTCOMES]
        return _gof(name, counts, exact_outcome_probabilities(1))

    def serial_independence(self) -> StatResult | NotRun:
        return _attempt(chi_square_table, SERIAL, transition_table(self.outcomes, OUTCOMES))

    def banker_player_runs(self) -> StatResult | NotRun:
        return _attempt(runs_test, RUNS, [o.value for o in self.outcomes if o is not Outcome.TIE])

    def stream_bytes(self) -> StatResult | NotRun:
        return _attempt(chi_square_uniform, BYTES, self.byte_counts)

    def shoe_first_cards(self) -> StatResult | NotRun:
        return _attempt(chi_square_uniform, FIRST_CARD, self.first_cards)

    def shoe_outcome_frequencies(self) -> StatResult | NotRun:
        name = OUTCOMES_8
        return _gof(name, self.shoe_outcomes, exact_outcome_probabilities(SHOE_DECKS))


def _gof(name: str, counts: Sequence[int], probabilities: Sequence[float]) -> StatResult | NotRun:
    n = sum(counts)
    return _attempt(chi_square_gof, name, counts, [n * p for p in probabilities])


def _attempt(
    test: Callable[Concatenate[str, P], StatResult], name: str, *args: P.args, **kwargs: P.kwargs
) -> StatResult | NotRun:
    """``test(name, ...)``, or ``NotRun`` saying why if the samples are too few for it."""
    try:
        return test(name, *args, **kwargs)
    except TooFewSamples as error:
        return NotRun(name, str(error))


def _scaled(result: StatResult, factor: float, samples: int) -> StatResult:
    assert result.df is not None
    statistic = result.statistic * factor
    return StatResult(
        result.name,
        statistic,
        result.df,
        chi2_sf(statistic, result.df),
        samples,
        "chi-square, Pearson X^2 x 51/52 (a shuffle is a permutation)",
    )
