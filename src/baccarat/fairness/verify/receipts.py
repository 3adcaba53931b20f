"""The player's receipts: the commitments the casino showed (and signed) before play, with
the time the browser saw them. Each of the player's own rounds must be dealt under one of
its mode's; a receipt whose signature is not the casino's is a finding and is not used
(``check_receipts``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..history import RoundRecord
from ..signing import PublicKeys, Receipt
from .report import Difference, Finding, Kind
from .seeds import _own, _ranges, _short

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


def _shown_before(receipt: Receipt, record: RoundRecord, index: int,
                  first_line: dict[str, int]) -> bool:  # fmt: skip
    """Whether ``receipt`` was shown before the round of line ``index``. Times are whole
    seconds: a receipt of the round's second (a rotation in that second) is known to be
    older only if a line before the round was dealt under it (``first_line``: each
    commitment's first, in the server's order); otherwise it may have come after it."""
    if record.time is None or receipt.time < record.time:
        return True
    return receipt.time == record.time and first_line.get(receipt.commitment, index) < index


_RECEIPT_WHY = {"missing": "missing", "invalid": "invalid",
                "unknown key": "by a key that is not the casino's"}  # fmt: skip


def check_receipts(
    records: Sequence[RoundRecord], receipts: Sequence[Receipt], keys: PublicKeys | None
) -> tuple[dict[int, list[Difference]], list[Finding], list[Finding]]:
    """Against the commitments the player was shown before play (their receipts, each
    signed by the casino): each of the player's own rounds was dealt under a commitment of
    a receipt of its mode; one that was not, played after a receipt of its mode was shown
    (``_shown_before``), differs once its seed is revealed (its commitment, and the seed
    revealed for it, are not what was shown); until then it is not verifiable yet, and
    named in a note. Returns differences by index, findings (receipts whose signature is
    not the casino's) and notes."""
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
    first_line: dict[str, int] = {}  # each commitment's first line (the server's order)
    for index, record in enumerate(records):
        first_line.setdefault(record.fairness.commitment, index)
    before_first = 0
    unshown: list[int] = []  # lines not revealed yet, under a commitment of no receipt
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
        earlier = [r for r in mine if _shown_before(r, record, index, first_line)]
        if not earlier:
            before_first += 1
            continue
        if not record.fairness.is_revealed:
            unshown.append(record.line)
            continue
        shown = earlier[0]
        for r in earlier[1:]:
            if r.time > shown.time:
                shown = r
        note = (
            f"not the commitment shown before play, in your receipt {shown.index} of "
            f"{shown.time}: the revealed server seed does not hash to it"
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
    if unshown:
        notes.append(
            Finding(
                Kind.UNCHECKED,
                f"{len(unshown)} line(s) not revealed yet were dealt under a commitment none "
                f"of your receipts shows (line(s) {_ranges(unshown)}): not verifiable yet, "
                "they are compared with your receipts once their seed is revealed",
                tuple(unshown),
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
