"""The verdicts and the report of the verifier: a round's ``Status``, the export's
``Verdict``, a round's ``Difference``, a ``Finding`` (or note) about the whole export with its
``Kind``, the ``RoundReport`` on one round and the ``HistoryReport`` on an export (its
counts, headline, summary and JSON); the phrases they use (``UNREVEALED``, the ``VOID_*``
reasons, ``NO_KEYS``) and ``show``, a recorded or expected value as text.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import Any

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
