"""docs/game-sheet.md is what ``baccarat game-sheet`` prints (regenerate it with
``baccarat game-sheet > docs/game-sheet.md`` after changing a rule set or a table)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baccarat.analysis.exact import analyse
from baccarat.core import get_rules

from .support import run

ROOT = Path(__file__).resolve().parents[2]
SHEET = ROOT / "docs" / "game-sheet.md"
CATALOG = ROOT / "src" / "baccarat" / "web" / "i18n" / "en.json"


def test_the_game_sheet_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "game-sheet")
    assert status == 0
    assert SHEET.read_text(encoding="utf-8") == out


def test_the_sheet_carries_the_exact_analysers_rtp_of_every_bet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "game-sheet")
    banker = analyse(get_rules("online-8deck-tie8")).bets["banker"].rtp
    section = out.split("### online-8deck-tie8")[1].split("###")[0]
    assert "| banker | " in section and f"{float(banker) * 100:.4f}%" in section
    assert "| table-i | Table I | online-6deck-tie9 | 2.00-20.00 |" in out


def test_the_sheet_writes_pays_as_a_player_reads_them(capsys: pytest.CaptureFixture[str]) -> None:
    """A plain banker bet is "19:20", not the pay table's lines; the variants name only what
    pays otherwise than a win."""
    _, out, _ = run(capsys, "game-sheet")
    rows = {
        rules: {
            line.split(" | ")[0].strip("| "): line.split(" | ")[1]
            for line in out.split(f"### {rules}\n")[1].split("###")[0].splitlines()
            if line.startswith("| ") and not line.startswith("| bet ")
        }
        for rules in ("classic-8deck", "ez-8deck", "no-commission-8deck")
    }
    assert rows["classic-8deck"]["banker"] == "19:20, tie push"
    assert rows["classic-8deck"]["player"] == "1:1, tie push"
    assert rows["classic-8deck"]["tie"] == "8:1"
    assert rows["classic-8deck"]["perfect_pair"] == "one 25:1, both 200:1"
    assert rows["ez-8deck"]["banker"] == "1:1, win with a three-card 7 push, tie push"
    assert rows["no-commission-8deck"]["banker"] == "1:1, win with 6 1:2, tie push"
    assert rows["no-commission-8deck"]["super6"] == "12:1"
    assert "win_with_6" not in out and "19/20" not in out


def test_the_sheet_and_the_lobby_name_each_table_alike(capsys: pytest.CaptureFixture[str]) -> None:
    """The English lobby names a table as the tables file (and so the sheet) does."""
    _, out, _ = run(capsys, "game-sheet")
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    named = {key.removeprefix("tablename."): text for key, text in catalog.items()
             if key.startswith("tablename.")}  # fmt: skip
    sheet = {
        cells[0].removeprefix("| "): cells[1]
        for cells in (line.split(" | ") for line in out.split("## Rule sets")[0].splitlines())
        if len(cells) > 2
    }
    assert named and {table: sheet[table] for table in named} == named
