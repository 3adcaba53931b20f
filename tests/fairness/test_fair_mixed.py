"""An honest export of every kind of round, played now on a game server as
``tests/fairness/mixed.py`` plays it, checks out against the receipts its browser kept: no
round differs, and the rounds whose seeds are not revealed yet are not verifiable yet. (The
stored one, tests/data/mixed_export.json, is among the export vectors both verifiers run.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Verdict, verify_history

from . import mixed
from .cheats import inputs


def test_an_honest_mixed_export_played_now_checks_out_against_its_receipts(
    tmp_path: Path,
) -> None:
    played = asyncio.run(mixed.play(tmp_path))
    lines = parse_history(json.dumps(line) for line in played["lines"])
    report = verify_history(lines, *inputs({"receipts": played["receipts"]}))
    assert [r.status.value for r in report.rounds] == played["statuses"], report.summary()
    assert {"verified", "unverifiable"} == set(played["statuses"])
    assert report.verdict is Verdict.VERIFIED and not report.findings
    assert not report.balance_breaks and not report.server_client_seeds
    # Each kind of round is there, revealed and not.
    kinds = {("shared" in x, "banked" in x, x["fairness"]["cut"] is not None, s)
             for x, s in zip(played["lines"], played["statuses"], strict=True)}  # fmt: skip
    for kind in ((True, False, True), (False, True, False), (False, False, True),
                 (False, False, False)):  # fmt: skip
        assert {(*kind, "verified"), (*kind, "unverifiable")} <= kinds, kind
