"""The browser's verifier against `baccarat verify`, on the shared whole-export vectors.

Node (20+, whose WebCrypto is the browser's) runs src/baccarat/web/js/fair.js on every case
of tests/data/export_vectors.json; its report must be the Python report, field for field,
and its text the CLI's. tests/web runs the same cases in Chromium.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import PRESETS
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import render, verify_history

from .cheats import EXPORT_VECTORS_PATH, inputs

ROOT = Path(__file__).resolve().parents[2]
FAIR_JS = ROOT / "src" / "baccarat" / "web" / "js" / "fair.js"
CHECK = Path(__file__).with_name("export_check.mjs")
NODE = shutil.which("node")
CASES = json.loads(EXPORT_VECTORS_PATH.read_text(encoding="utf-8"))["cases"]

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: the JavaScript cross-check needs Node 20 or later"
)


@pytest.fixture(scope="module")
def node_output() -> Any:
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(CHECK), str(FAIR_JS), str(EXPORT_VECTORS_PATH)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def python_report(case: dict[str, Any]) -> Any:
    lines = parse_history(json.dumps(line) for line in case["lines"])
    return verify_history(lines, *inputs(case))


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["name"] for c in CASES])
def test_the_browsers_report_is_baccarat_verifys_on_every_export_vector(
    node_output: Any, index: int
) -> None:
    case = CASES[index]
    got = node_output["reports"][index]
    assert got["name"] == case["name"]
    report = python_report(case)
    assert got["report"] == report.to_json()
    assert got["text"] == render(report)
    assert got["report"]["ok"] is case["expect"]["ok"]


def test_the_browsers_rule_sets_are_the_presets(node_output: Any) -> None:
    """Its pay tables, shoes and multiplier terms: the browser keeps its own copy, so that a
    verifier does not take the rules from the casino it checks."""
    expected = [
        {"name": p.name, "bets": {t.bet: t.to_json() for t in p.paytables},
         "aliases": list(p.aliases), "decks": p.decks, "shuffle": p.shuffle.value,
         "burn": p.burn, "multipliers": p.multipliers and p.multipliers.to_json()}
        for p in PRESETS
    ]  # fmt: skip
    assert node_output["rules"] == expected
