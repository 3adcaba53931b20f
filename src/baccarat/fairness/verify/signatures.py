"""The casino's signatures on the lines of an export: with its public keys, every line must
carry one that verifies; without them, a note says what could not be checked
(``check_signatures``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..history import RoundRecord
from ..signing import PublicKeys
from .report import Difference, Finding, Kind


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
