"""Verify an exported history: re-derive every shuffle, re-deal every coup, re-settle, and
check what lies between the rounds.

Pure functions over parsed records (``history.parse_history``), so the game server can run
the same checks on its own rounds. ``verify_history`` is the one pass that builds the
report; ``render`` is the one text renderer (``baccarat verify``); the browser's port in
``web/js/fair.js`` keeps the same names and reads the same vectors.

Per round (``check_round``), every comparison names the field, the value the rules and the
revealed seeds give (expected) and the value in the export (recorded). A round is
``verified`` when everything matches; ``voided`` when it was voided and its void is what a
void must be (said to be before the result, after the result, or after a win);
``unverifiable`` when its server seed is not revealed yet and nothing that can be checked
without it differs; and ``differs`` otherwise.

Across rounds (``check_export``): a seed revealed on any line of a commitment serves every
line of it; under one revealed commitment the player's own rounds (and the shoes they cut
and never dealt from) use the nonces 0 .. nonces_used-1, each once, without a gap; a cut
shoe starts where its burn ends and runs from coup to coup without a gap or an overlap;
and, per mode, each round starts with the balance the one before ended with. A gap is a
finding (the export fails); a break in the balance chain is a note with its amount
(money moves between rounds that the export does not hold: deposits, withdrawals, top-ups,
the void of an earlier round).

Given the casino's public keys (``check_signatures``), every line must carry a signature by
one of them that verifies; given the player's receipts (``check_receipts``), each of the
player's rounds must be dealt under a commitment shown before it was played.

The verdict (``Verdict``, the headline: the first line of ``render``) has three states.
Without the casino's keys the checks above cannot tell a real export from one doctored to be
consistent in itself (its last rounds removed and ``nonces_used`` lowered to match, or a
history made up afterwards with its commitment recomputed): an export in which nothing
differs is then ``signatures_not_checked``, not ``verified``, and the headline says so.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ..core import (
    Bets,
    Card,
    Coup,
    Hand,
    Outcome,
    ShoeEmpty,
    ShufflePolicy,
    banker_draws,
    burn_count,
    hand_score,
    is_natural,
    play_coup,
    player_draws,
    settle,
)
from .beacon import KNOWN_CHAINS, check_log, randomness, shoe_client_seed, verify_signature
from .derive import commitment, shuffled_order
from .history import HandRecord, RoundRecord, UndealtShoe, seat_client_seed
from .signing import PublicKeys, Receipt

UNREVEALED = "seed not revealed"
# What a voided round is said to be, by what its coup had done when it was voided.
VOID_BEFORE = "before the result"
VOID_AFTER = "after the result"
VOID_AFTER_WIN = "after a win"


class Status(enum.Enum):
    VERIFIED = "verified"
    VOIDED = "voided"
    UNVERIFIABLE = "unverifiable"
    DIFFERS = "differs"


class Verdict(enum.Enum):
    """The verdict on a whole export: everything checks out, signatures included; nothing
    differs, but the signatures were not checked (no public key of the casino was given);
    or something differs or is missing."""

    VERIFIED = "verified"
    UNSIGNED = "signatures_not_checked"
    FAILS = "fails"


# What a verdict without the casino's keys could not check (in its headline).
NO_KEYS = "no public key of the casino given: --keys, or receipts with keys"


def show(value: Any) -> str:
    """A recorded or expected value as text: cards as ``Kd 2c 9h``, the rest as JSON."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value) if value else "(no cards)"
    if isinstance(value, str):
        return value
    return json.dumps(value)


@dataclass(frozen=True, slots=True)
class Difference:
    """One field of a round that is not what the seeds and the rules give."""

    field: str
    expected: Any
    recorded: Any
    note: str = ""

    def __str__(self) -> str:
        text = f"{self.field}: expected {show(self.expected)}, recorded {show(self.recorded)}"
        return f"{text} ({self.note})" if self.note else text

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "expected": self.expected,
            "recorded": self.recorded,
            "note": self.note,
        }


class Kind(enum.Enum):
    """What a finding or a note of the whole export is about."""

    NONCE_GAP = "nonce_gap"  # nonces of a revealed seed that dealt nothing in the export
    NONCES_USED = "nonces_used"  # the published count disagrees between lines
    UNDEALT = "undealt_shoe"  # a shoe cut and never dealt (note), or one that lies (finding)
    UNCHECKED = "unchecked"  # what could not be checked, and why (note)
    BALANCE = "balance"  # a round that does not start where the one before ended (note)
    SERVER_CLIENT_SEED = "server_client_seed"  # rounds whose client seed the server set (note)
    RECEIPT = "receipt"  # a receipt whose signature is not the casino's
    TABLE_LOG = "table_log"  # what a shared shoe's log guarantees, or does not (note)


@dataclass(frozen=True, slots=True)
class Finding:
    """Something about the export as a whole: a finding fails it, a note only informs."""

    kind: Kind
    message: str
    lines: tuple[int, ...] = ()
    commitment: str | None = None
    amount: int | None = None

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "lines": list(self.lines),
            "commitment": self.commitment,
            "amount": self.amount,
        }


@dataclass(frozen=True, slots=True)
class RoundReport:
    """The verdict on one round."""

    line: int
    round_id: str
    status: Status
    differences: tuple[Difference, ...] = ()
    reason: str | None = None

    @property
    def verdict(self) -> str:
        """``verified``, ``voided after a win``, ``unverifiable: seed not revealed``, ..."""
        if self.status is Status.VOIDED:
            return f"voided {self.reason}"
        if self.reason:
            return f"{self.status.value}: {self.reason}"
        return str(self.status.value)

    @property
    def voided_after_win(self) -> bool:
        return self.status is Status.VOIDED and self.reason == VOID_AFTER_WIN

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "id": self.round_id,
            "status": self.status.value,
            "reason": self.reason,
            "differences": [d.to_json() for d in self.differences],
        }


@dataclass(frozen=True, slots=True)
class HistoryReport:
    """The verdicts on every round of an export, and on the export as a whole."""

    rounds: tuple[RoundReport, ...]
    findings: tuple[Finding, ...] = ()
    notes: tuple[Finding, ...] = ()
    # Whether every line's signature was checked with the casino's public keys.
    signatures_checked: bool = False
    counts: dict[Status, int] = field(init=False)

    def __post_init__(self) -> None:
        counts = {status: 0 for status in Status}
        for report in self.rounds:
            counts[report.status] += 1
        object.__setattr__(self, "counts", counts)

    @property
    def ok(self) -> bool:
        """No round differs and nothing is missing (rounds whose seed is not revealed, voids
        and breaks in the balance chain do not count against)."""
        return self.counts[Status.DIFFERS] == 0 and not self.findings

    @property
    def verdict(self) -> Verdict:
        if not self.ok:
            return Verdict.FAILS
        return Verdict.VERIFIED if self.signatures_checked else Verdict.UNSIGNED

    def headline(self) -> str:
        """The verdict in one line, with what could not be checked (``render``'s first)."""
        if self.verdict is Verdict.VERIFIED:
            return (
                "VERIFIED: every round checks out, nothing is missing between them, and "
                "every line carries the casino's signature"
            )
        if self.verdict is Verdict.UNSIGNED:
            return (
                f"SIGNATURES NOT CHECKED ({NO_KEYS}): nothing else differs, but an export cut "
                "short or rewritten to be consistent in itself cannot be told from the real one"
            )
        differ, found = self.counts[Status.DIFFERS], len(self.findings)
        what = [f"{differ} round{'' if differ == 1 else 's'} differ{'s' if differ == 1 else ''}"]
        if found:
            what.append(f"{found} finding{'' if found == 1 else 's'}")
        text = f"FAILS: {' and '.join(what)}"
        if not self.signatures_checked:
            text += f" (and the signatures were not checked: {NO_KEYS})"
        return text

    @property
    def voided_after_win(self) -> int:
        return sum(r.voided_after_win for r in self.rounds)

    @property
    def balance_breaks(self) -> int:
        return sum(n.kind is Kind.BALANCE for n in self.notes)

    @property
    def server_client_seeds(self) -> int:
        """Rounds dealt with a client seed the server set (the guarantee does not hold)."""
        return sum(len(n.lines) for n in self.notes if n.kind is Kind.SERVER_CLIENT_SEED)

    def extra_counts(self) -> dict[str, int]:
        """The counts beyond the verdicts of old, those that are not zero (an export without
        voids, findings or breaks reads as it always did)."""
        counts = {
            "voided": self.counts[Status.VOIDED],
            "voided_after_win": self.voided_after_win,
            "findings": len(self.findings),
            "balance_breaks": self.balance_breaks,
            "server_client_seeds": self.server_client_seeds,
        }
        return {name: n for name, n in counts.items() if n}

    def summary(self) -> str:
        c = self.counts
        voided = ""
        if c[Status.VOIDED]:
            voided = f"{c[Status.VOIDED]} voided ({self.voided_after_win} after a win), "
        text = (
            f"{len(self.rounds)} rounds: {c[Status.VERIFIED]} verified, {voided}"
            f"{c[Status.UNVERIFIABLE]} unverifiable ({UNREVEALED}), {c[Status.DIFFERS]} differ"
        )
        if self.findings:
            text += f"; {len(self.findings)} finding{'' if len(self.findings) == 1 else 's'}"
        if self.balance_breaks:
            breaks = self.balance_breaks
            text += f"; balance chain: {breaks} break{'' if breaks == 1 else 's'}"
        if self.server_client_seeds:
            text += f"; {self.server_client_seeds} with the server's client seed"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "baccarat-verify/1",
            "ok": self.ok,
            "verdict": self.verdict.value,
            "signatures_checked": self.signatures_checked,
            "summary": {"rounds": len(self.rounds)}
            | {s.value: n for s, n in self.counts.items() if s is not Status.VOIDED}
            | self.extra_counts(),
            "rounds": [r.to_json() for r in self.rounds],
            "findings": [f.to_json() for f in self.findings],
            "notes": [n.to_json() for n in self.notes],
        }


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def derived_order(record: RoundRecord) -> tuple[Card, ...] | None:
    """The round's shoe order after the cut, or None while the seed is not revealed."""
    fair = record.fairness
    if fair.server_seed is None:
        return None
    return _order(fair.server_seed, fair.client_seed, fair.nonce, record.rules.decks, fair.cut)


# The rounds of one cut shoe share its order: derive it once.
_order = functools.lru_cache(maxsize=32)(shuffled_order)


def _check_commitment(record: RoundRecord) -> list[Difference]:
    fair = record.fairness
    if fair.server_seed is None:
        return []
    expected = commitment(fair.server_seed)
    if expected == fair.commitment:
        return []
    note = "sha256 of the revealed server seed is not the commitment shown before play"
    return [Difference("fairness.commitment", expected, fair.commitment, note)]


def _check_position(record: RoundRecord, order: tuple[Card, ...] | None) -> list[Difference]:
    rules, fair = record.rules, record.fairness
    diffs = []
    if rules.shuffle is ShufflePolicy.FRESH:
        if fair.cut is not None:
            note = "a fresh-shuffle table has no cut"
            diffs.append(Difference("fairness.cut", None, fair.cut, note))
        if fair.position != 0:
            note = "a fresh-shuffle round deals from the top of its own shuffle"
            diffs.append(Difference("fairness.position", 0, fair.position, note))
        return diffs
    cut_card = rules.cut_card_position
    assert cut_card is not None
    if fair.position >= cut_card:
        note = f"the cut card lies before card {cut_card}: no coup starts after it"
        diffs.append(Difference("fairness.position", f"below {cut_card}", fair.position, note))
    if rules.burn:
        if order is not None:
            burned = 1 + burn_count(order[0])
            note = f"the turned first card {order[0]} and {burned - 1} more are burned"
        else:
            burned = 2
            note = "a burn takes the turned first card and at least one more"
        if fair.position < burned:
            diffs.append(Difference("fairness.position", f"at least {burned}", fair.position, note))
    return diffs


def _check_client_seeds(record: RoundRecord) -> list[Difference]:
    """A seat's client seed is its two participants', the banker's first."""
    fair = record.fairness
    if fair.client_seeds is None:
        return []
    expected = seat_client_seed(*fair.client_seeds)
    if expected == fair.client_seed:
        return []
    note = "a seat's client seed is the banker's and the player's, in that order"
    return [Difference("fairness.client_seed", expected, fair.client_seed, note)]


def _tableau_check(player: HandRecord, banker: HandRecord) -> list[Difference]:
    """Whether the recorded hands drew the third cards the tableau prescribes."""
    p = hand_score([c.value for c in player.cards[:2]])
    b = hand_score([c.value for c in banker.cards[:2]])
    recorded_p, recorded_b = _cards(player.cards), _cards(banker.cards)
    if is_natural(p) or is_natural(b):
        diffs = []
        for name, cards in (("player", recorded_p), ("banker", recorded_b)):
            if len(cards) != 2:
                note = f"a natural ({p} against {b}): both hands stand on two cards"
                diffs.append(Difference(f"{name}.cards", "2 cards", cards, note))
        return diffs
    if player_draws(p) != (len(player.cards) == 3):
        rule = "draws on 0-5" if player_draws(p) else "stands on 6-7"
        note = f"the player {rule}; two-card score {p}"
        expected = "3 cards" if player_draws(p) else "2 cards"
        return [Difference("player.cards", expected, recorded_p, note)]
    third = player.cards[2].value if len(player.cards) == 3 else None
    draws = banker_draws(b, third)
    if draws != (len(banker.cards) == 3):
        after = "the player stood" if third is None else f"the player's third card is {third}"
        note = f"banker {b} {'draws' if draws else 'stands'} when {after}"
        return [Difference("banker.cards", "3 cards" if draws else "2 cards", recorded_b, note)]
    return []


def _check_coup(
    record: RoundRecord, order: tuple[Card, ...] | None
) -> tuple[list[Difference], Coup | None]:
    """Cards, scores and winner; returns the differences and the coup to settle with."""
    rules, fair = record.rules, record.fairness
    player, banker = record.player, record.banker
    diffs: list[Difference] = []
    truth: Coup | None = None
    if order is not None:
        # On a fresh-shuffle table the coup is dealt from the top whatever the export says.
        start = 0 if rules.shuffle is ShufflePolicy.FRESH else fair.position
        try:
            truth = play_coup(order[start:])
        except ShoeEmpty:
            note = "too few cards left in the shoe for a coup"
            diffs.append(Difference("fairness.position", "a coup's cards", fair.position, note))
    complete = True
    if truth is not None:
        for name, hand, expected in (
            ("player", player, truth.player),
            ("banker", banker, truth.banker),
        ):
            # A voided round may hold only the cards dealt before the malfunction.
            prefix = expected.cards[: len(hand.cards)] if record.is_void else expected.cards
            if hand.cards != prefix:
                diffs.append(Difference(f"{name}.cards", _cards(prefix), _cards(hand.cards)))
            if hand.cards != expected.cards:
                complete = False
            expected_scores = list(Hand(prefix).scores)
            if list(hand.scores) != expected_scores:
                diffs.append(Difference(f"{name}.scores", expected_scores, list(hand.scores)))
        # A voided coup that was not completed has no winner.
        settled: Coup | None = truth if complete or not record.is_void else None
    else:
        has_two_each = len(player.cards) >= 2 and len(banker.cards) >= 2
        # Without the seed, a voided round counts as dealt out when it names a winner.
        complete = not record.is_void or (has_two_each and record.winner is not None)
        if complete:
            diffs += _tableau_check(player, banker)
        for name, hand in (("player", player), ("banker", banker)):
            expected_scores = list(Hand(hand.cards).scores)
            if list(hand.scores) != expected_scores:
                note = "the scores of the recorded cards"
                diffs.append(Difference(f"{name}.scores", expected_scores, list(hand.scores), note))
        settled = Coup(Hand(player.cards), Hand(banker.cards)) if complete else None
    winner = None if settled is None else settled.winner
    # A voided round may leave the winner null; otherwise it must be the coup's.
    if record.winner is not winner and not (record.is_void and record.winner is None):
        note = "" if winner is not None else "the coup was not completed before the void"
        diffs.append(
            Difference(
                "winner",
                None if winner is None else winner.value,
                None if record.winner is None else record.winner.value,
                note,
            )
        )
    return diffs, settled


def _check_money(record: RoundRecord, coup: Coup | None) -> list[Difference]:
    diffs = []
    if record.is_void:
        note = "a voided round returns every stake"
        for bet in record.bets:
            name = f"bets.{bet.bet}"
            if bet.result != "void":
                diffs.append(Difference(f"{name}.result", "void", bet.result, note))
            if bet.returned != bet.stake:
                diffs.append(Difference(f"{name}.returned", bet.stake, bet.returned, note))
        expected_win = record.staked
    else:
        assert coup is not None
        winner = coup.winner
        bets = Bets({bet.bet: bet.stake for bet in record.bets})
        settlement = settle(record.rules, bets, coup)
        for bet, settled in zip(record.bets, settlement.bets, strict=True):
            name = f"bets.{bet.bet}"
            if bet.result != settled.result.value:
                diffs.append(Difference(f"{name}.result", settled.result.value, bet.result))
            if bet.returned != settled.returned:
                outcome = "a tie" if winner is Outcome.TIE else f"a {winner.value} win"
                note = f"{bet.bet} bet of {bet.stake} on {outcome}"
                diffs.append(Difference(f"{name}.returned", settled.returned, bet.returned, note))
        expected_win = settlement.returned
    if record.win != expected_win:
        note = "the sum of what the bets return"
        diffs.append(Difference("win", expected_win, record.win, note))
    expected_after = record.balance_before - record.staked + expected_win
    note = f"balance_before {record.balance_before} - stakes {record.staked} + win {expected_win}"
    if record.role == "banker":
        # The banker's side of a player-banked round: the stakes in, the returns and the
        # casino's fee out (a void gives everything back).
        fee = 0 if record.is_void else record.fee
        expected_after = record.balance_before + record.staked - expected_win - fee
        note = (
            f"the banker's balance_before {record.balance_before} + stakes {record.staked} "
            f"- win {expected_win} - fee {fee}"
        )
    if record.balance_after != expected_after:
        diffs.append(Difference("balance_after", expected_after, record.balance_after, note))
    return diffs


def check_round(record: RoundRecord) -> list[Difference]:
    """Every difference found in one round on its own (no cross-round checks)."""
    return _check_round(record)[0]


def _check_round(record: RoundRecord) -> tuple[list[Difference], Coup | None]:
    order = derived_order(record)
    diffs = _check_commitment(record)
    diffs += _check_client_seeds(record)
    diffs += _check_position(record, order)
    coup_diffs, coup = _check_coup(record, order)
    diffs += coup_diffs
    diffs += _check_money(record, coup)
    return diffs, coup


def _void_kind(record: RoundRecord, coup: Coup | None) -> str:
    """Whether a voided round was voided before its result, after it, or after a win of the
    exporter's side (the player's bets returning more than staked; the banker's side, the
    stakes covering the returns and the fee)."""
    if coup is None:
        return VOID_BEFORE
    bets = Bets({bet.bet: bet.stake for bet in record.bets})
    settlement = settle(record.rules, bets, coup)
    net = settlement.returned - settlement.staked
    if record.role == "banker":
        net = -net - record.fee
    return VOID_AFTER_WIN if net > 0 else VOID_AFTER


def _report(record: RoundRecord, diffs: Sequence[Difference], coup: Coup | None) -> RoundReport:
    if diffs:
        return RoundReport(record.line, record.id, Status.DIFFERS, tuple(diffs))
    if record.is_void:
        return RoundReport(record.line, record.id, Status.VOIDED, reason=_void_kind(record, coup))
    if not record.fairness.is_revealed:
        return RoundReport(record.line, record.id, Status.UNVERIFIABLE, reason=UNREVEALED)
    return RoundReport(record.line, record.id, Status.VERIFIED)


def verify_round(record: RoundRecord) -> RoundReport:
    """The verdict on one round on its own."""
    diffs, coup = _check_round(record)
    return _report(record, diffs, coup)


# -- across rounds ---------------------------------------------------------------------------


def _own(record: RoundRecord) -> bool:
    """A round dealt from the exporter's seeds: their own, or a seat's, whose seed is both
    participants' (a round banked before seats had seeds was dealt from the other player's,
    whose other nonces this export cannot hold)."""
    return record.role != "banker" or record.fairness.client_seeds is not None


def revealed_seeds(records: Sequence[RoundRecord]) -> dict[str, tuple[str, int]]:
    """Per commitment, the server seed revealed on one of its lines (and that line): the
    first whose sha256 is the commitment."""
    seeds: dict[str, tuple[str, int]] = {}
    for record in records:
        fair = record.fairness
        if fair.server_seed is None or fair.commitment in seeds:
            continue
        if commitment(fair.server_seed) == fair.commitment:
            seeds[fair.commitment] = (fair.server_seed, record.line)
    return seeds


def with_revealed_seed(
    record: RoundRecord, seeds: dict[str, tuple[str, int]]
) -> tuple[RoundRecord, list[Difference]]:
    """The round with its commitment's revealed seed, and a difference if it showed another."""
    fair = record.fairness
    found = seeds.get(fair.commitment)
    if found is None:
        return record, []
    seed, line = found
    if fair.server_seed is None:
        return replace(record, fairness=replace(fair, server_seed=seed)), []
    if fair.server_seed == seed:
        return record, []
    note = f"the seed of this commitment, revealed on line {line}"
    return record, [Difference("fairness.server_seed", seed, fair.server_seed, note)]


def _shoe_start(record: RoundRecord) -> int | None:
    """Where the first coup of a cut shoe starts: right after its burn (None: unknown while
    the seed is not revealed)."""
    if not record.rules.burn:
        return 0
    order = derived_order(record)
    return None if order is None else 1 + burn_count(order[0])


def check_shuffles(records: Sequence[RoundRecord]) -> dict[int, list[Difference]]:
    """Cross-round checks of the shuffles, keyed by index into ``records``.

    Under one server seed every shuffle has its own nonce: a fresh-shuffle round never
    shares its nonce; the rounds of one cut shoe share it, with the same client seed, cut
    and rules; its first coup starts where the burn ends, and each next coup where the one
    before ended (the export is oldest first): a coup skipped, or cards dealt to no coup,
    leave a gap; coups that share cards overlap.
    """
    groups: dict[tuple[str, int], list[int]] = {}
    for index, record in enumerate(records):
        key = (record.fairness.commitment, record.fairness.nonce)
        groups.setdefault(key, []).append(index)
    found: dict[int, list[Difference]] = {}
    for (_, nonce), indices in groups.items():
        first = records[indices[0]]
        if any(records[i].rules.shuffle is ShufflePolicy.FRESH for i in indices):
            expected = "a nonce not used before under this server seed"
            note = f"the shuffle with nonce {nonce} was already used on line {first.line}"
            for i in indices[1:]:
                found.setdefault(i, []).append(Difference("fairness.nonce", expected, nonce, note))
            continue
        if any(records[i].shared is not None for i in indices):
            # A shared table's shoe is dealt to every bettor: a player's rounds are the
            # coups they bet on, and the shoe's own record shows it whole (contiguous).
            continue
        start = _shoe_start(first)
        if start is not None and first.fairness.position != start:
            note = (
                f"the first coup of the shoe (nonce {nonce}) starts where its burn ends"
                if start
                else f"the first coup of the shoe (nonce {nonce}) starts at its first card"
            )
            found.setdefault(indices[0], []).append(
                Difference("fairness.position", start, first.fairness.position, note)
            )
        previous = first
        for i in indices[1:]:
            record = records[i]
            diffs = found.setdefault(i, [])
            note = f"one shoe (nonce {nonce}) is one shuffle, as on line {first.line}"
            for name, want, got in (
                ("rules", first.rules.name, record.rules.name),
                ("fairness.client_seed", first.fairness.client_seed, record.fairness.client_seed),
                ("fairness.cut", first.fairness.cut, record.fairness.cut),
            ):
                if want != got:
                    diffs.append(Difference(name, want, got, note))
            begin = previous.fairness.position
            end = begin + previous.cards_used
            position = record.fairness.position
            if position < end:
                note = f"overlaps the coup on line {previous.line}, cards {begin}-{end - 1}"
                diffs.append(Difference("fairness.position", end, position, note))
            elif position > end:
                skipped = f"card {end}" if position == end + 1 else f"cards {end}-{position - 1}"
                note = f"{skipped} after the coup on line {previous.line} went to no coup"
                diffs.append(Difference("fairness.position", end, position, note))
            previous = record
    return found


def _log_differences(record: RoundRecord) -> tuple[list[Difference], str | None]:
    """A shared shoe's log (``table_log``) against the line: the chain of its entries, the
    commitment, the beacon round (named before it was published, signed by its chain,
    its randomness in the client seed) and the revealed seed; and a note on what it
    guarantees."""
    entries = record.table_log or ()
    fair = record.fairness
    diffs = [Difference("table_log", "a hash-chained log", "broken", p) for p in check_log(entries)]
    by_type = {str(e.get("type")): e for e in entries}
    commit = by_type.get("commit")
    if commit is None:
        return [*diffs, Difference("table_log", "the shoe's commit entry", None)], None
    if commit.get("commitment") != fair.commitment:
        diffs.append(
            Difference(
                "table_log.commit.commitment",
                fair.commitment,
                commit.get("commitment"),
                "the log committed another seed",
            )
        )
    base = str(commit.get("client_seed"))
    named = commit.get("beacon")
    shoe = f"shoe {commit.get('number')} of table {commit.get('table')}"
    note = None
    if not isinstance(named, dict):
        expected = base
        note = (
            f"{shoe} was dealt from the committed seed alone (no beacon): its order was "
            "fixed before any bet, but the operator made the seed"
        )
    else:
        entered = by_type.get("beacon")
        if entered is None:
            missing = f"beacon round {named.get('round')}"
            note = "the shoe was dealt without its beacon round"
            return [*diffs, Difference("table_log", missing, None, note)], None
        signature = str(entered.get("signature"))
        value = randomness(signature) if re.fullmatch(r"(?:[0-9a-f]{2})+", signature) else None
        expected = shoe_client_seed(base, value)
        for name, want, got in (
            ("round", named.get("round"), entered.get("round")),
            ("chain", named.get("chain"), entered.get("chain")),
            ("randomness", value, entered.get("randomness")),
        ):
            if want != got:
                diffs.append(Difference(f"table_log.beacon.{name}", want, got))
        known = KNOWN_CHAINS.get(str(named.get("chain")))
        key = known.public_key if known else str(named.get("public_key"))
        if known and named.get("public_key") != known.public_key:
            diffs.append(
                Difference(
                    "table_log.commit.beacon.public_key",
                    known.public_key,
                    named.get("public_key"),
                    "not the chain's public key",
                )
            )
        number = named.get("round")  # a whole number (a bool is none)
        if not (type(number) is int and verify_signature(key, number, signature)):
            diffs.append(
                Difference(
                    "table_log.beacon.signature",
                    f"the chain's signature of round {named.get('round')}",
                    signature,
                )
            )
        # Both whole numbers (a bool is none), the naming first; anything else (a time
        # missing, text) proves nothing: a difference, as much as a naming too late.
        named_us, published_us = commit.get("time_us"), named.get("published_us")
        if not (type(named_us) is int and type(published_us) is int and named_us < published_us):
            diffs.append(
                Difference(
                    "table_log.commit.time_us",
                    f"before {named.get('published_us')}",
                    commit.get("time_us"),
                    "the round was named after it was published",
                )
            )
        if not known:
            note = (
                f"{shoe} took round {named.get('round')} of beacon chain "
                f"{named.get('chain')}, not a known public chain: its randomness is only "
                "as independent as whoever runs that beacon"
            )
    if fair.client_seed != expected:
        diffs.append(
            Difference(
                "fairness.client_seed",
                expected,
                fair.client_seed,
                "the shoe's client seed is the one its log makes",
            )
        )
    revealed = by_type.get("reveal")
    if (
        revealed is not None
        and fair.server_seed is not None
        and revealed.get("server_seed") != fair.server_seed
    ):
        diffs.append(
            Difference(
                "table_log.reveal.server_seed", fair.server_seed, revealed.get("server_seed")
            )
        )
    return diffs, note


def check_table_logs(
    records: Sequence[RoundRecord],
) -> tuple[dict[int, list[Difference]], list[Finding]]:
    """The shared shoes' logs (``_log_differences``), once per shoe, by index."""
    found: dict[int, list[Difference]] = {}
    notes: dict[str, tuple[str, list[int]]] = {}
    done: dict[str, tuple[list[Difference], str | None]] = {}
    for index, record in enumerate(records):
        if record.table_log is None:
            continue
        key = json.dumps(
            [
                record.fairness.commitment,
                record.fairness.client_seed,
                record.fairness.server_seed,
                list(record.table_log),
            ],
            sort_keys=True,
        )
        if key not in done:
            done[key] = _log_differences(record)
        diffs, note = done[key]
        if diffs:
            found[index] = list(diffs)
        if note is not None:
            notes.setdefault(note, (note, []))[1].append(record.line)
    return found, [Finding(Kind.TABLE_LOG, n, tuple(lines)) for n, lines in notes.values()]


def _ranges(numbers: Iterable[int]) -> str:
    """``3, 5-7, 9``."""
    parts: list[str] = []
    run: list[int] = []
    for n in sorted(numbers):
        if run and n == run[-1] + 1:
            run.append(n)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [n]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ", ".join(parts)


def _missing(used: set[int], count: int) -> list[tuple[int, int]]:
    """The ranges [a, b] of 0 .. count-1 that are not in ``used`` (without listing them)."""
    gaps = []
    expected = 0
    for n in sorted(u for u in used if u < count):
        if n > expected:
            gaps.append((expected, n - 1))
        expected = n + 1
    if expected < count:
        gaps.append((expected, count - 1))
    return gaps


def _short(commit: str) -> str:
    return commit[:12]


@dataclass
class _Nonces:
    """What one commitment's own lines say about its nonces."""

    lines: list[int] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)  # into the records
    nonces: dict[int, int] = field(default_factory=dict)  # nonce -> first line
    counts: dict[int, int] = field(default_factory=dict)  # nonces_used -> first line
    undealt: dict[int, UndealtShoe] = field(default_factory=dict)
    revealed: bool = False


def check_nonces(
    records: Sequence[RoundRecord],
) -> tuple[dict[int, list[Difference]], list[Finding], list[Finding]]:
    """Per revealed commitment: the player's own rounds and undealt shoes use the nonces
    0 .. nonces_used-1 without a gap. Returns differences by index, findings and notes."""
    commits: dict[str, _Nonces] = {}
    for index, record in enumerate(records):
        if not _own(record):
            continue
        fair = record.fairness
        seen = commits.setdefault(fair.commitment, _Nonces())
        seen.lines.append(record.line)
        seen.indices.append(index)
        seen.nonces.setdefault(fair.nonce, record.line)
        seen.revealed |= fair.is_revealed
        if fair.nonces_used is not None:
            seen.counts.setdefault(fair.nonces_used, record.line)
        for shoe in fair.undealt_shoes or ():
            seen.undealt.setdefault(shoe.nonce, shoe)
    diffs: dict[int, list[Difference]] = {}
    findings: list[Finding] = []
    notes: list[Finding] = []
    unrevealed = [c for c, seen in commits.items() if not seen.revealed]
    if unrevealed:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(unrevealed)} commitment(s) not revealed yet "
                f"({', '.join(_short(c) for c in unrevealed)}): their nonces are checked "
                "for gaps once the seed is revealed (rotate it, then export again)",
            )
        )
    legacy = [c for c, seen in commits.items() if seen.revealed and not seen.counts]
    if legacy:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(legacy)} revealed commitment(s) without nonces_used "
                f"({', '.join(_short(c) for c in legacy)}): an export written before it was "
                "recorded; skipped nonces and missing rounds could not be checked there",
            )
        )
    banked = {r.fairness.commitment for r in records if not _own(r)} - set(commits)
    if banked:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(banked)} commitment(s) of rounds you banked are the other players': "
                "their nonces are not checked here (the player's own export checks them)",
            )
        )
    for commit, seen in commits.items():
        if not seen.revealed or not seen.counts:
            continue
        if len(seen.counts) > 1:
            said = ", ".join(f"{n} on line {line}" for n, line in sorted(seen.counts.items()))
            findings.append(
                Finding(
                    Kind.NONCES_USED,
                    f"commitment {_short(commit)}: its lines disagree on nonces_used ({said})",
                    tuple(sorted(seen.counts.values())),
                    commit,
                )
            )
        count = min(seen.counts)
        for index in seen.indices:
            fair = records[index].fairness
            if fair.nonce >= count:
                note = f"the seed gave out {count} nonces (nonces_used, published at rotation)"
                diffs.setdefault(index, []).append(
                    Difference("fairness.nonce", f"below {count}", fair.nonce, note)
                )
        for nonce, shoe in sorted(seen.undealt.items()):
            where = f"at {shoe.table_id}" if shoe.table_id else "at a cut-shoe table"
            cut = "" if shoe.cut is None else f", cut at {shoe.cut}"
            if nonce in seen.nonces:
                findings.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: nonce {nonce} is said to be a shoe "
                        f"never dealt, but dealt the round on line {seen.nonces[nonce]}",
                        (seen.nonces[nonce],),
                        commit,
                    )
                )
            elif nonce >= count:
                findings.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: undealt shoe nonce {nonce} is beyond "
                        f"the {count} nonces the seed gave out",
                        commitment=commit,
                    )
                )
            else:
                notes.append(
                    Finding(
                        Kind.UNDEALT,
                        f"commitment {_short(commit)}: nonce {nonce} is a shoe you cut "
                        f"{where}{cut} and never dealt from",
                        commitment=commit,
                    )
                )
        gaps = _missing(set(seen.nonces) | set(seen.undealt), count)
        if gaps:
            missing = sum(b - a + 1 for a, b in gaps)
            listed = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in gaps[:20])
            more = "" if len(gaps) <= 20 else f" and {len(gaps) - 20} more ranges"
            findings.append(
                Finding(
                    Kind.NONCE_GAP,
                    f"commitment {_short(commit)}: {missing} of its {count} nonces dealt no "
                    f"round in this export and no shoe was cut with them: nonce(s) "
                    f"{listed}{more} (rounds removed from the export, or shuffles skipped)",
                    tuple(seen.lines[:1]),
                    commit,
                    missing,
                )
            )
    return diffs, findings, notes


def check_balances(records: Sequence[RoundRecord]) -> list[Finding]:
    """Per mode, in file order (the server's ``seq``): each round starts with the balance the
    one before ended with. Each break is a note with its amount: money moved between the
    two rounds that the export does not hold (deposit, withdrawal, top-up, or the void of an
    earlier round, which takes back what that round paid)."""
    notes = []
    last: dict[str | None, RoundRecord] = {}
    for record in records:
        before = last.get(record.mode)
        last[record.mode] = record
        if before is None or record.balance_before == before.balance_after:
            continue
        amount = record.balance_before - before.balance_after
        mode = f" ({record.mode})" if record.mode else ""
        notes.append(
            Finding(
                Kind.BALANCE,
                f"balance{mode}: line {record.line} starts at {record.balance_before}, line "
                f"{before.line} ended at {before.balance_after} ({amount:+d}): money moved "
                "between the rounds outside this export",
                (before.line, record.line),
                amount=amount,
            )
        )
    return notes


def check_sources(records: Sequence[RoundRecord]) -> list[Finding]:
    """The rounds whose client seed the server set (the player never set one after the
    commitment was shown): a note naming them, not a failure, since the cards are what the
    seeds give; but the server knew that client seed when it chose its seed, so these rounds
    do not show that it could not choose the seed for them."""
    lines = tuple(r.line for r in records if r.fairness.client_seed_source == "server")
    if not lines:
        return []
    return [
        Finding(
            Kind.SERVER_CLIENT_SEED,
            f"{len(lines)} round(s) dealt with a client seed the server set, not you (line(s) "
            f"{_ranges(lines)}): the server knew it when it committed its seed, so for these "
            "rounds the guarantee that it could not choose its seed does not hold (set your "
            "own client seed after every new commitment)",
            lines,
        )
    ]


def check_signatures(
    records: Sequence[RoundRecord], keys: PublicKeys | None
) -> tuple[dict[int, list[Difference]], list[Finding]]:
    """With the casino's public keys: every line carries a signature by one of them that
    verifies (a line without, by another key, or changed after signing differs). Without
    keys: a note saying what could not be checked. Returns differences by index, notes."""
    signed = [r for r in records if r.signature is not None]
    if keys is None:
        if not signed:
            return {}, []
        ids = ", ".join(sorted({r.key_id or "?" for r in signed}))
        message = (
            f"{len(signed)} of {len(records)} lines are signed (key {ids}): give the casino's "
            "public keys (baccarat verify --keys, or your receipts) to check the signatures"
        )
        return {}, [Finding(Kind.UNCHECKED, message)]
    known = ", ".join(keys.ids)
    wanted = f"a valid signature by {'key' if len(keys.ids) == 1 else 'one of the keys'} {known}"
    diffs: dict[int, list[Difference]] = {}
    for index, record in enumerate(records):
        why = keys.check(record.signature, record.key_id, record.signed or b"")
        if why == "missing":
            note = "the line carries no signature of the casino"
            diffs[index] = [Difference("signature", wanted, None, note)]
        elif why == "unknown key":
            note = "signed with a key that is not one of the casino's public keys"
            diffs[index] = [Difference("signature", wanted, record.key_id, note)]
        elif why == "invalid":
            note = "the line is not what the casino signed: changed afterwards, or another key"
            diffs[index] = [Difference("signature", wanted, "invalid", note)]
    return diffs, []


# A browser's clock may run ahead of the server's: a receipt seen up to this long after a
# round was dealt still counts as shown before it.
SEEN_SLACK_S = 300


_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def _seconds(text: str | None) -> float | None:
    """An ISO time (``2026-01-01T12:00:00Z``) in seconds; None for anything else."""
    if text is None or not _ISO.fullmatch(text):
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _first_seen(receipts: Sequence[Receipt]) -> Receipt | None:
    """The receipt first seen (by the browser's clock), None when one has no known time."""
    first: Receipt | None = None
    for receipt in receipts:
        seen = _seconds(receipt.seen)
        if seen is None:
            return None
        if first is None or seen < (_seconds(first.seen) or 0.0):
            first = receipt
    return first


def _after(seen: str | None, played: str | None) -> bool:
    """Whether a receipt was seen more than SEEN_SLACK_S after the round was played."""
    a, b = _seconds(seen), _seconds(played)
    return a is not None and b is not None and a > b + SEEN_SLACK_S


_RECEIPT_WHY = {"missing": "missing", "invalid": "invalid",
                "unknown key": "by a key that is not the casino's"}  # fmt: skip


def check_receipts(
    records: Sequence[RoundRecord], receipts: Sequence[Receipt], keys: PublicKeys | None
) -> tuple[dict[int, list[Difference]], list[Finding], list[Finding]]:
    """Against the commitments the player was shown before play (their receipts, each
    signed by the casino): each of the player's own rounds was dealt under a commitment of
    a receipt of its mode; one that was not, played after a receipt of its mode, differs
    (its commitment, and the seed revealed for it, are not what was shown). Returns
    differences by index, findings (receipts whose signature is not the casino's) and
    notes."""
    findings: list[Finding] = []
    notes: list[Finding] = []
    valid: list[Receipt] = []
    for receipt in receipts:
        why = None if keys is None else keys.check(receipt.signature, receipt.key_id,
                                                   receipt.message)  # fmt: skip
        if why is None:
            valid.append(receipt)
            continue
        findings.append(
            Finding(
                Kind.RECEIPT,
                f"receipt {receipt.index} (commitment {_short(receipt.commitment)}, "
                f"{receipt.time}): its signature is {_RECEIPT_WHY[why]}: it is not a receipt "
                "the casino signed, and it is not used",
                commitment=receipt.commitment,
            )
        )
    if keys is None and receipts:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"the signatures of the {len(receipts)} receipts are not checked: no public key",
            )
        )
    diffs: dict[int, list[Difference]] = {}
    before_first = 0
    late: list[tuple[RoundRecord, Receipt]] = []
    for index, record in enumerate(records):
        if not _own(record):
            continue
        mine = [r for r in valid if record.mode is None or r.mode == record.mode]
        shown_as = [r for r in mine if r.commitment == record.fairness.commitment]
        if shown_as:
            first = _first_seen(shown_as)
            if first is not None and _after(first.seen, record.time):
                late.append((record, first))
            continue
        earlier = [r for r in mine if record.time is None or r.time <= record.time]
        if not earlier:
            before_first += 1
            continue
        shown = earlier[0]
        for r in earlier[1:]:
            if r.time > shown.time:
                shown = r
        what = (
            "the revealed server seed does not hash to it"
            if record.fairness.is_revealed
            else "this round's was never shown to you"
        )
        note = (
            f"not the commitment shown before play, in your receipt {shown.index} of "
            f"{shown.time}: {what}"
        )
        diffs[index] = [
            Difference("fairness.commitment", shown.commitment, record.fairness.commitment, note)
        ]
    if late:
        record, receipt = late[0]
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(late)} line(s) were dealt under a commitment this browser was first "
                f"shown only after they were played (line {record.line} at {record.time}, "
                f"receipt {receipt.index} seen {receipt.seen}): those receipts do not show "
                "what was shown before play",
                tuple(r.line for r, _ in late),
            )
        )
    if before_first:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{before_first} line(s) have no receipt of their mode from before they were "
                "played: their commitments are not compared with receipts",
            )
        )
    return diffs, findings, notes


def check_export(
    records: Sequence[RoundRecord],
    keys: PublicKeys | None = None,
    receipts: Sequence[Receipt] | None = None,
) -> tuple[list[RoundRecord], dict[int, list[Difference]], list[Finding], list[Finding]]:
    """Everything across rounds: the rounds with their commitment's revealed seed, their
    differences by index, the findings and the notes; with the casino's public keys, the
    signatures; with the player's receipts, the commitments shown before play."""
    seeds = revealed_seeds(records)
    filled: list[RoundRecord] = []
    across: dict[int, list[Difference]] = {}
    for index, record in enumerate(records):
        record, diffs = with_revealed_seed(record, seeds)
        filled.append(record)
        if diffs:
            across[index] = diffs
    for index, diffs in check_shuffles(filled).items():
        across.setdefault(index, []).extend(diffs)
    log_diffs, log_notes = check_table_logs(filled)
    for index, diffs in log_diffs.items():
        across.setdefault(index, []).extend(diffs)
    nonce_diffs, findings, notes = check_nonces(filled)
    for index, diffs in nonce_diffs.items():
        across.setdefault(index, []).extend(diffs)
    notes += check_balances(filled) + log_notes
    notes += check_sources(filled)
    signature_diffs, signature_notes = check_signatures(filled, keys)
    for index, diffs in signature_diffs.items():
        across.setdefault(index, []).extend(diffs)
    notes += signature_notes
    if receipts is not None:
        receipt_diffs, receipt_findings, receipt_notes = check_receipts(filled, receipts, keys)
        for index, diffs in receipt_diffs.items():
            across.setdefault(index, []).extend(diffs)
        findings += receipt_findings
        notes += receipt_notes
    return filled, across, findings, notes


def verify_history(
    records: Sequence[RoundRecord],
    keys: PublicKeys | None = None,
    receipts: Sequence[Receipt] | None = None,
) -> HistoryReport:
    """The verdict on every round and on the export: the one pass that builds the report."""
    filled, across, findings, notes = check_export(records, keys, receipts)
    reports = []
    for index, record in enumerate(filled):
        diffs, coup = _check_round(record)
        reports.append(_report(record, diffs + across.get(index, []), coup))
    return HistoryReport(tuple(reports), tuple(findings), tuple(notes), keys is not None)


def render(report: HistoryReport, *, quiet: bool = False) -> list[str]:
    """The report as text, line by line (``baccarat verify``): the headline (the verdict, and
    what could not be checked), every round (with ``quiet``, those that are not verified)
    and its differences, the findings and notes, the summary."""
    out = [report.headline()]
    width = max((len(r.round_id) for r in report.rounds), default=0)
    for round_report in report.rounds:
        if quiet and round_report.status is Status.VERIFIED:
            continue
        out.append(f"line {round_report.line:>4}  {round_report.round_id:<{width}}  "
                   f"{round_report.verdict}")  # fmt: skip
        out += [f"    {difference}" for difference in round_report.differences]
    out += [f"finding: {finding}" for finding in report.findings]
    out += [f"note: {note}" for note in report.notes]
    out.append(report.summary())
    return out
