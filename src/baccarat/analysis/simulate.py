"""Monte Carlo simulation of any rule set with a real shoe, on every core.

The deal, as the compiled kernel plays it:

- Fresh-shuffle rule sets: the rule set's full shoe is shuffled before every coup.
- Cut-shoe rule sets: a shoe of the rule set's decks is shuffled; when the rule set burns,
  the first card is turned and as many more cards are burned as its value, tens and
  pictures counting ten (exactly ``Shoe.burn_by_first_card``). The cut card lies before
  card ``rules.cut_card_position``: a coup starts only while fewer cards than that have
  been dealt, and the coup in progress when the deal passes the cut card is completed.
  Then the shoe is reshuffled: between coups, never inside one. (A coup also does not
  start with fewer than six cards left; no preset comes near that.)

Multiplier rule sets (``rules.multipliers``): before each coup the kernel draws the
multiplier cards as the published terms say (K, K distinct identities, each one's
multiplier: exact draws below the common denominators, from the stream's own generator), and
counts each bet's rounds lost, pushed and won by its multiplier. Their estimates are per unit
wagered (stake and fee), as the exact RTP is.

Each worker plays its own stream: a xoshiro256** generator seeded from
``numpy.random.SeedSequence(seed).spawn(workers)``, its own shoe, its share of the rounds.
A stream deals the same cards however its rounds are cut into chunks, so the same seed and
the same number of workers give the same counts. Memory does not grow with the rounds: a
stream is a shoe and 3,600 counters.
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing
import os
import queue as queue_module
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.context import ForkContext, SpawnContext
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import (
    MAX_DECKS,
    Card,
    Lightning,
    MultiplierTerms,
    Outcome,
    Rank,
    RuleSet,
    ShufflePolicy,
    Suit,
    banker_draws,
    is_natural,
    new_shoe_order,
    player_draws,
)
from . import kernel
from .outcomes import (
    BetEstimate,
    CountArray,
    OutcomeClass,
    SimBet,
    estimate,
    estimates,
    outcome_totals,
    rule_bets,
)

# Coups per kernel call: about a tenth of a second, the pace of progress and of Ctrl-C.
CHUNK = 1 << 22
MAX_WORKERS = 256
# After Ctrl-C, how long the workers have to send what they dealt before they are stopped.
STOP_WAIT_S = 5.0
# A coup uses at most six cards.
MAX_COUP_CARDS = 6


class SimulationError(ValueError):
    """A simulation that cannot be run as asked."""


@dataclass(frozen=True, slots=True)
class MultiplierTables:
    """The multiplier cards' terms as the kernel draws them: cumulative numerators over a
    common denominator, and every multiplier a bet can have."""

    count_cumulative: tuple[int, ...]
    count_keys: tuple[int, ...]
    count_denominator: int
    value_cumulative: tuple[int, ...]
    value_keys: tuple[int, ...]
    value_denominator: int
    products: tuple[int, ...]


def _cumulative(chances: tuple[tuple[int, Fraction], ...]) -> tuple[tuple[int, ...], int]:
    denominator = math.lcm(*(p.denominator for _, p in chances))
    return tuple(itertools.accumulate(int(p * denominator) for _, p in chances)), denominator


# The most cards a bet is paid on: the tie's, both hands of three.
MAX_PAID_CARDS = 6


def multiplier_tables(terms: MultiplierTerms) -> MultiplierTables:
    counts, count_denominator = _cumulative(terms.counts)
    values, value_denominator = _cumulative(terms.values)
    keys = [v for v, _ in terms.values]
    products = {
        math.prod(chosen)
        for n in range(MAX_PAID_CARDS + 1)
        for chosen in itertools.combinations_with_replacement(keys, n)
    }
    return MultiplierTables(
        counts,
        tuple(k for k, _ in terms.counts),
        count_denominator,
        values,
        tuple(keys),
        value_denominator,
        tuple(sorted(products)),
    )


@dataclass(frozen=True, slots=True)
class KernelConfig:
    """What the kernel needs to know of a rule set."""

    decks: int
    fresh: bool
    cut: int
    burn: bool
    # Cards of a shoe that a coup can ever reach; only these are shuffled.
    dealable: int
    # A multiplier game's multiplier cards.
    multipliers: MultiplierTables | None = None

    @property
    def cards(self) -> int:
        return 52 * self.decks

    @property
    def steps(self) -> int:
        """Fisher-Yates steps per shuffle: the last step of a full shuffle is a no-op."""
        return min(self.dealable, self.cards - 1)


def kernel_config(rules: RuleSet) -> KernelConfig:
    """The kernel's view of a rule set; refuses a cut shoe on which no coup can be dealt."""
    cards = rules.cards_per_shoe
    tables = None if rules.multipliers is None else multiplier_tables(rules.multipliers)
    if rules.shuffle is ShufflePolicy.FRESH:
        return KernelConfig(rules.decks, True, cards, False, MAX_COUP_CARDS, tables)
    cut = rules.cut_card_position
    assert cut is not None  # a cut shoe always has a penetration
    # The smallest burn is an ace and one card: no coup could start at or past the cut.
    first_coup = 2 if rules.burn else 0
    if cut <= first_coup or first_coup + MAX_COUP_CARDS > cards:
        raise SimulationError(f"the cut card at {cut} of {cards} cards leaves no coup to deal")
    dealable = min(cards, cut + MAX_COUP_CARDS - 1)
    return KernelConfig(rules.decks, False, cut, rules.burn, dealable, tables)


@functools.cache
def card_tables(decks: int) -> tuple[npt.NDArray[np.uint8], ...]:
    """Value, rank and face (rank and suit) of each card id, from the core's cards."""
    if not 1 <= decks <= MAX_DECKS:
        raise SimulationError(f"a shoe holds 1 to {MAX_DECKS} decks, not {decks}")
    cards = new_shoe_order(decks)
    suits = {suit: i for i, suit in enumerate(Suit)}
    value = np.array([c.value for c in cards], dtype=np.uint8)
    rank = np.array([c.rank.value for c in cards], dtype=np.uint8)
    face = np.array([c.rank.value * 4 + suits[c.suit] for c in cards], dtype=np.uint8)
    for table in (value, rank, face):
        table.setflags(write=False)
    return value, rank, face


@functools.cache
def tableau_table() -> npt.NDArray[np.uint8]:
    """Who draws, from the core's tableau: ``table[(player * 10 + banker) * 10 + fifth]``.

    Indexed by the two-card scores and the fifth card's value (the player's third card when
    the player draws); bit 0: the player draws, bit 1: the banker draws.
    """
    codes = []
    for player in range(10):
        for banker in range(10):
            for fifth in range(10):
                if is_natural(player) or is_natural(banker):
                    codes.append(0)  # a natural: both stand
                elif player_draws(player):
                    codes.append(1 | banker_draws(banker, fifth) << 1)
                else:
                    codes.append(banker_draws(banker, None) << 1)
    table = np.array(codes, dtype=np.uint8)
    table.setflags(write=False)
    return table


def stream_states(seed: int, workers: int) -> list[npt.NDArray[np.uint64]]:
    """The generator state of each worker's stream, spawned from one seed."""
    if type(seed) is not int or seed < 0:
        raise SimulationError(f"a seed is a whole number from 0, not {seed!r}")
    states = []
    for child in np.random.SeedSequence(seed).spawn(workers):
        state = np.asarray(child.generate_state(4, dtype=np.uint64), dtype=np.uint64)
        if not state.any():  # xoshiro's one forbidden state
            state[0] = 1
        states.append(state)
    return states


def split_rounds(rounds: int, workers: int) -> list[int]:
    """Each stream's share of the rounds: as even as whole rounds allow, the first ones first.

    >>> split_rounds(10, 3)
    [4, 3, 3]
    """
    share, extra = divmod(rounds, workers)
    return [share + (i < extra) for i in range(workers)]


# What both kernels take first (``Stream._deal_arguments``), item by item.
DealArguments = tuple[Any, Any, Any, int, Any, Any, Any, Any, Any, bool, int, bool, int]


def empty_counts(config: KernelConfig) -> CountArray:
    """A stream's counters: coups by outcome class; in a multiplier game, each bet's rounds
    lost, pushed and won by multiplier (``kernel.MULTIPLIER_ROWS``)."""
    if config.multipliers is None:
        return np.zeros(kernel.N_CLASSES, dtype=np.int64)
    columns = kernel.WON + len(config.multipliers.products)
    return np.zeros((len(kernel.MULTIPLIER_ROWS), columns), dtype=np.int64)


def _record(record: npt.NDArray[np.int64] | None, fields: int) -> npt.NDArray[np.int64]:
    """A kernel's record: none, or one of its width (the kernel writes it unchecked)."""
    if record is None:
        return np.zeros((0, fields), dtype=np.int64)
    if record.ndim != 2 or record.shape[1] != fields or record.dtype != np.int64:
        raise SimulationError(f"a record of this kernel is k x {fields} int64")
    return record


def _int64(values: tuple[int, ...]) -> npt.NDArray[np.int64]:
    return np.array(values, dtype=np.int64)


class Stream:
    """One worker's generator and shoe: dealt chunk by chunk, the same whatever the chunks."""

    def __init__(self, config: KernelConfig, state: npt.NDArray[np.uint64]):
        self.config = config
        self.state = np.array(state, dtype=np.uint64)
        self.shoe = np.arange(config.cards, dtype=np.uint16)
        # -1: a new shoe is due before the first coup.
        self.position = np.array([-1], dtype=np.int64)
        self.counts: CountArray = empty_counts(config)
        # A multiplier game's 52 identities (the card tables' faces), drawn from in place.
        self.identities = np.arange(4, 4 + 52, dtype=np.uint8)

    def run(self, rounds: int, record: npt.NDArray[np.int64] | None = None) -> int:
        """Deal ``rounds`` coups; ``record`` (k x 3; a multiplier game's k x
        ``kernel.MULTIPLIER_RECORD``) receives the first k coups' details."""
        if self.config.multipliers is not None:
            return self._run_multiplier(rounds, record)
        done: int = kernel.run(*self._deal_arguments(rounds), _record(record, kernel.RECORD_FIELDS))
        return done

    def _deal_arguments(self, rounds: int) -> DealArguments:
        """What both kernels take first: the stream, the rounds, the counts, the card and
        tableau tables and the shoe's terms."""
        value, rank, face = card_tables(self.config.decks)
        return (
            self.state,
            self.shoe,
            self.position,
            int(rounds),
            self.counts,
            value,
            rank,
            face,
            tableau_table(),
            bool(self.config.fresh),
            int(self.config.cut),
            bool(self.config.burn),
            int(self.config.steps),
        )

    def _run_multiplier(self, rounds: int, record: npt.NDArray[np.int64] | None) -> int:
        tables = self.config.multipliers
        assert tables is not None
        record = _record(record, kernel.MULTIPLIER_RECORD)
        done: int = kernel.run_multiplier(
            *self._deal_arguments(rounds),
            self.identities,
            _int64(tables.count_cumulative),
            _int64(tables.count_keys),
            tables.count_denominator,
            _int64(tables.value_cumulative),
            _int64(tables.value_keys),
            tables.value_denominator,
            _int64(tables.products),
            record,
        )
        return done

    def next_shoe(self) -> tuple[int, ...]:
        """Shuffle as the kernel does for a new shoe; the dealable cards' ids, in order."""
        kernel.shuffle_prefix(self.state, self.shoe, int(self.config.steps))
        return tuple(int(c) for c in self.shoe[: self.config.dealable])


def ensure_compiled() -> None:
    """Compile the kernel, or load it from numba's cache, before anything is timed."""
    warmup = KernelConfig(1, True, 52, False, MAX_COUP_CARDS)
    Stream(warmup, np.ones(4, dtype=np.uint64)).run(0)


def ensure_compiled_multiplier(config: KernelConfig) -> None:
    """Compile the multiplier kernel, or load it from numba's cache."""
    Stream(config, np.ones(4, dtype=np.uint64)).run(0)


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Counts of a finished (or interrupted) simulation and the bets settled on them."""

    rules: RuleSet
    requested: int
    seed: int
    workers: int
    seconds: float
    counts: CountArray
    bets: tuple[SimBet, ...]
    interrupted: bool = False

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else 0.0

    @property
    def rounds(self) -> int:
        """Coups actually dealt: all of them unless the run was interrupted."""
        if self.rules.multipliers is not None:
            return int(self.counts[0].sum())  # every coup settles the player bet once
        return int(self.counts.sum())

    @property
    def outcomes(self) -> dict[Outcome, int]:
        if self.rules.multipliers is not None:
            won = self.counts[:, kernel.WON :].sum(axis=1)
            rows = dict(zip(kernel.MULTIPLIER_ROWS, (int(n) for n in won), strict=True))
            return {
                Outcome.BANKER: rows["banker"],
                Outcome.PLAYER: rows["player"],
                Outcome.TIE: rows["tie"],
            }
        return outcome_totals(self.counts)

    @property
    def estimates(self) -> Mapping[str, BetEstimate]:
        """Each bet's mean net result per unit staked (in a multiplier game, per unit
        wagered: its RTP less 1) with its standard error."""
        if self.rules.multipliers is not None:
            row = {name: i for i, name in enumerate(kernel.MULTIPLIER_ROWS)}
            return {bet.name: estimate(bet, self.counts[row[bet.name]]) for bet in self.bets}
        return estimates(self.bets, self.counts)

    def to_json(self) -> dict[str, Any]:
        outcomes = self.outcomes
        return {
            "rules": self.rules.name,
            "rounds": self.rounds,
            "seconds": self.seconds,
            "rounds_per_second": self.rounds_per_second,
            "outcomes": {
                o.value: outcomes[o] for o in (Outcome.BANKER, Outcome.PLAYER, Outcome.TIE)
            },
            "bets": {name: e.to_json() for name, e in self.estimates.items()},
        }


def multiplier_bets(rules: RuleSet) -> tuple[SimBet, ...]:
    """A multiplier game's bets as the kernel counts them (``kernel.MULTIPLIER_ROWS``): each
    one's net result per unit wagered (stake and fee) when it loses, pushes (the stake back,
    the fee kept) or wins at each multiplier, and its exact RTP less 1."""
    from .multiplier import exact

    terms = rules.multipliers
    if terms is None:
        raise SimulationError(f"{rules.name} is not a multiplier game")
    analysis = exact(rules)
    products = multiplier_tables(terms).products
    wagered = 1 + terms.fee
    bets = []
    for name in kernel.MULTIPLIER_ROWS:
        if name not in analysis.bets:
            continue
        pays = analysis.bets[name].pays
        returned = [Fraction(0), Fraction(1), *(1 + pays * m for m in products)]
        bets.append(
            SimBet(
                name,
                tuple(r / wagered - 1 for r in returned),
                analysis.bets[name].rtp - 1,
            )
        )
    return tuple(bets)


ProgressCallback = Callable[[int], None]


def simulate(
    rules: RuleSet,
    rounds: int,
    *,
    seed: int | None = None,
    workers: int | None = None,
    bets: tuple[SimBet, ...] | None = None,
    on_progress: ProgressCallback | None = None,
    chunk: int = CHUNK,
) -> SimulationResult:
    """Deal ``rounds`` coups of ``rules`` on ``workers`` processes and settle ``bets`` on them
    (default: every bet the rule set offers).

    Ctrl-C (KeyboardInterrupt) stops the workers after their current chunk; the result then
    holds what was dealt and ``interrupted`` is set. ``on_progress`` gets the coups dealt so
    far after every chunk of any worker.
    """
    if type(rounds) is not int or rounds < 1:
        raise SimulationError(f"rounds must be a whole number from 1, not {rounds!r}")
    workers = default_workers() if workers is None else workers
    if type(workers) is not int or not 1 <= workers <= MAX_WORKERS:
        raise SimulationError(f"workers must be 1 to {MAX_WORKERS}, not {workers!r}")
    if type(chunk) is not int or chunk < 1:
        raise SimulationError(f"chunk must be a whole number from 1, not {chunk!r}")
    seed = secrets.randbits(64) if seed is None else seed
    states = stream_states(seed, workers)
    config = kernel_config(rules)
    if rules.multipliers is not None:
        if bets is not None:
            raise SimulationError("a multiplier game settles its own bets only")
        bets = multiplier_bets(rules)
        ensure_compiled_multiplier(config)
    bets = rule_bets(rules) if bets is None else bets
    ensure_compiled()
    report = on_progress or (lambda done: None)
    shares = split_rounds(rounds, workers)
    start = time.perf_counter()
    if workers == 1:
        counts, interrupted = _run_here(config, states[0], shares[0], chunk, report)
    else:
        counts, interrupted = _run_workers(config, states, shares, chunk, report)
    seconds = time.perf_counter() - start
    return SimulationResult(rules, rounds, seed, workers, seconds, counts, bets, interrupted)


def _run_here(
    config: KernelConfig,
    state: npt.NDArray[np.uint64],
    rounds: int,
    chunk: int,
    report: ProgressCallback,
) -> tuple[CountArray, bool]:
    stream = Stream(config, state)
    done = 0
    try:
        while done < rounds:
            done += stream.run(min(chunk, rounds - done))
            report(done)
    except KeyboardInterrupt:
        # The kernel finishes the chunk it is in before Python sees the interrupt, so the
        # counts hold whole coups.
        return stream.counts, True
    return stream.counts, False


def _worker(
    index: int,
    config: KernelConfig,
    state: npt.NDArray[np.uint64],
    rounds: int,
    chunk: int,
    messages: Any,
    stop: Any,
) -> None:
    """A worker process: deal its share chunk by chunk, report progress, send its counts."""
    # Ctrl-C reaches every process of the terminal; the parent decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        stream = Stream(config, state)
        done = 0
        while done < rounds and not stop.is_set():
            done += stream.run(min(chunk, rounds - done))
            messages.put(("progress", index, done))
        messages.put(("done", index, stream.counts))
    except BaseException as error:  # reported to the parent, which raises it
        messages.put(("error", index, f"{type(error).__name__}: {error}"))


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Children forked inside this block start with Ctrl-C ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _interrupts() -> Iterator[list[int]]:
    """Ctrl-C counted (``[n]``), not raised, while the workers run, and the count read between
    two reads of their queue: a KeyboardInterrupt raised inside a read could leave a message
    half read, and the next read would then wait for bytes that never come. Off the main
    thread no handler can be set: Ctrl-C is a KeyboardInterrupt there, as anywhere else."""
    count = [0]
    if threading.current_thread() is not threading.main_thread():
        yield count
        return

    def counted(signum: int, frame: Any) -> None:
        count[0] += 1

    previous = signal.signal(signal.SIGINT, counted)
    try:
        yield count
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_workers(
    config: KernelConfig,
    states: list[npt.NDArray[np.uint64]],
    shares: list[int],
    chunk: int,
    report: ProgressCallback,
) -> tuple[CountArray, bool]:
    # Forked children share the parent's compiled kernel; spawned ones load numba's cache.
    context: ForkContext | SpawnContext
    if "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")
    else:
        context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    stop = context.Event()
    processes = {
        i: context.Process(
            target=_worker,
            args=(i, config, states[i], share, chunk, messages, stop),
            name=f"baccarat-simulate-{i}",
            daemon=True,
        )
        for i, share in enumerate(shares)
        if share
    }
    progress = dict.fromkeys(processes, 0)
    counts: CountArray = empty_counts(config)
    pending = set(processes)
    interrupted = False

    def collect(report: ProgressCallback, until: int, deadline: float | None = None) -> None:
        """Read the workers' messages until they are all done, ``deadline``, or the
        ``until``-th Ctrl-C."""
        nonlocal counts
        while (
            pending and interrupts[0] < until and (deadline is None or time.monotonic() < deadline)
        ):
            try:
                kind, index, payload = messages.get(timeout=0.1)
            except queue_module.Empty:
                for i in pending:
                    code = processes[i].exitcode
                    if code not in (None, 0):
                        raise SimulationError(f"worker {i} died (exit status {code})") from None
                continue
            if kind == "error":
                raise SimulationError(f"worker {index} failed: {payload}")
            if kind == "done":
                counts = counts + payload
                pending.discard(index)
                progress[index] = int(payload.sum() if payload.ndim == 1 else payload[0].sum())
            else:
                progress[index] = payload
            report(sum(progress.values()))

    try:
        with _interrupts() as interrupts:
            with _sigint_ignored():
                for process in processes.values():
                    process.start()
            try:
                collect(report, until=1)
                if interrupts[0]:
                    raise KeyboardInterrupt
            except KeyboardInterrupt:
                # Workers stop after their chunk and send what they dealt; one that has not
                # within STOP_WAIT_S (still compiling its kernel, say) is given up, as is
                # every one on a second Ctrl-C.
                interrupted = True
                stop.set()
                interrupts[0] = max(interrupts[0], 1)
                collect(lambda done: None, until=2, deadline=time.monotonic() + STOP_WAIT_S)
    finally:
        stop.set()
        for process in processes.values():
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join()
        messages.close()
    return counts, interrupted


@dataclass(frozen=True, slots=True)
class KernelCoup:
    """One coup as the kernel dealt it: where it started in its shoe and how it ended."""

    position: int
    outcome: OutcomeClass
    cards_used: int


def kernel_coups(
    rules: RuleSet, seed: int, rounds: int, *, workers: int = 1, worker: int = 0
) -> list[KernelCoup]:
    """The first coups of one worker's stream, as ``simulate`` with this seed deals them (a
    multiplier game's: ``kernel_multiplier_coups``)."""
    stream = Stream(_classic(rules), stream_states(seed, workers)[worker])
    record = np.zeros((rounds, kernel.RECORD_FIELDS), dtype=np.int64)
    stream.run(rounds, record)
    return _kernel_coups(record)


def _kernel_coups(record: npt.NDArray[np.int64]) -> list[KernelCoup]:
    return [
        KernelCoup(int(pos), OutcomeClass.from_index(int(cls)), int(used))
        for pos, cls, used in record
    ]


def kernel_deal_stacked(cards: Sequence[Card], coups: int, decks: int = 8) -> list[KernelCoup]:
    """Deal ``coups`` coups with the kernel from a stacked shoe: ``cards`` in this order."""
    order = {card: i for i, card in enumerate(new_shoe_order(decks))}
    config = KernelConfig(decks, False, len(cards), False, len(cards))
    stream = Stream(config, np.ones(4, dtype=np.uint64))
    # Six spare cards behind the stack: a coup never starts short of six cards.
    stream.shoe = np.array([order[c] for c in cards] + [0] * MAX_COUP_CARDS, dtype=np.uint16)
    stream.position[0] = 0
    record = np.zeros((coups, kernel.RECORD_FIELDS), dtype=np.int64)
    stream.run(coups, record)
    # Past the stack the kernel would read the spare cards, or shuffle for a new shoe.
    if stream.position[0] > len(cards) or (np.diff(record[:, 0]) <= 0).any():
        raise SimulationError("the stack holds fewer coups than asked")
    return _kernel_coups(record)


def _classic(rules: RuleSet) -> KernelConfig:
    if rules.multipliers is not None:
        raise SimulationError(f"{rules.name} is a multiplier game: see kernel_multiplier_coups")
    return kernel_config(rules)


@dataclass(frozen=True, slots=True)
class KernelMultiplierCoup:
    """One coup of a multiplier game as the kernel dealt it: where it started, the six cards
    from there (the coup uses the first ``cards_used``), its multiplier cards, and the
    multiplier each bet got (``kernel.MULTIPLIER_ROWS``)."""

    position: int
    cards_used: int
    cards: tuple[Card, ...]
    lightning: tuple[Lightning, ...]
    multipliers: Mapping[str, int]


def kernel_multiplier_coups(
    rules: RuleSet, seed: int, rounds: int
) -> tuple[list[KernelMultiplierCoup], CountArray]:
    """The first coups of a multiplier game's stream (one worker), and the stream's counts."""
    stream = Stream(kernel_config(rules), stream_states(seed, 1)[0])
    record = np.zeros((rounds, kernel.MULTIPLIER_RECORD), dtype=np.int64)
    stream.run(rounds, record)
    order = new_shoe_order(rules.decks)
    suits = tuple(Suit)
    coups = []
    for row in record:
        k = int(row[2])
        identities = (Card(Rank(int(face) // 4), suits[int(face) % 4]) for face in row[9 : 9 + k])
        coups.append(
            KernelMultiplierCoup(
                int(row[0]),
                int(row[1]),
                tuple(order[int(i)] for i in row[3:9]),
                tuple(
                    Lightning(c, int(m)) for c, m in zip(identities, row[14 : 14 + k], strict=True)
                ),
                dict(zip(kernel.MULTIPLIER_ROWS, (int(m) for m in row[19:24]), strict=True)),
            )
        )
    return coups, stream.counts


def dealt_shoes(
    rules: RuleSet, seed: int, shoes: int = 1, *, workers: int = 1, worker: int = 0
) -> list[tuple[Card, ...]]:
    """The shoes one worker's stream deals from, in order: the cards a coup can reach.

    For a cut shoe that is the cut card position plus five (the rest of the shoe is never
    looked at); for a fresh shuffle, the six cards of each round. (A multiplier game's stream
    draws its multiplier cards between shuffles: ``kernel_multiplier_coups`` gives its coups.)
    """
    config = _classic(rules)
    stream = Stream(config, stream_states(seed, workers)[worker])
    order = new_shoe_order(config.decks)
    return [tuple(order[i] for i in stream.next_shoe()) for _ in range(shoes)]
