"""The one pass over a whole export: ``check_export`` fills in each commitment's revealed
seed and gathers every check across rounds (seeds, shoes, balances, signatures, receipts);
``verify_history`` adds each round's own checks and builds the ``HistoryReport``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..history import RoundRecord
from ..signing import PublicKeys, Receipt
from .balances import check_balances
from .receipts import check_receipts
from .report import Difference, Finding, HistoryReport
from .round import _check_round, _report
from .seeds import check_nonces, check_sources, revealed_seeds, with_revealed_seed
from .shoes import check_shuffles, check_table_logs
from .signatures import check_signatures


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
