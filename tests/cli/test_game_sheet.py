"""docs/game-sheet.md is what ``baccarat game-sheet`` prints (regenerate it with
``baccarat game-sheet > docs/game-sheet.md`` after changing a rule set or a table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat.analysis.exact import analyse
from baccarat.core import get_rules

from .support import run

SHEET = Path(__file__).resolve().parents[2] / "docs" / "game-sheet.md"


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
