"""Multiplier baccarat on the command line: ``odds``, ``game-sheet`` and ``simulate``."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat.analysis.multiplier import exact, one_in
from baccarat.cli.game import multiplier_rows
from baccarat.core import get_rules
from baccarat.core.rules import MULTIPLIER_TERMS

from .support import run

MULTIPLIER = get_rules("multiplier")


def test_odds_of_a_multiplier_game_are_the_exact_analysis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    analysis = exact(MULTIPLIER)
    status, out, _ = run(capsys, "odds", "--rules", "multiplier")
    assert status == 0
    assert "K = 1 (1/10), 2 (1/5), 3 (2/5), 4 (1/5), 5 (1/10)" in out
    assert "8x (1/10)" in out and "a fee of 1/5 of each stake" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:1].isalpha()}
    for name, bet in analysis.bets.items():
        assert rows[name][4] == f"{float(bet.rtp) * 100:.4f}%"
        assert f"  {name}: {bet.rtp}" in out
    assert rows["player"][1:3] == ["1:1", "x"] and rows["banker"][1] == "19:20"
    assert (
        rows["tie"][7] == "262,144x"
        and rows["tie"][8] == f"{one_in(analysis.bets['tie'].max_chance):,}"
    )
    status, out, _ = run(capsys, "odds", "--rules", "multiplier", "--json")
    data = json.loads(out)
    assert data["rules"] == "multiplier" and data["multipliers"]["fee"] == "1/5"
    assert Fraction(data["bets"]["banker"]["rtp"]) == analysis.bets["banker"].rtp


@pytest.mark.parametrize("extra", [("--remove", "Ah"), ("--eor",)])
def test_odds_of_a_multiplier_game_are_for_a_full_shoe_only(
    capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]
) -> None:
    status, out, err = run(capsys, "odds", "--rules", "multiplier", *extra)
    assert status == 2 and out == ""
    assert "full shoe only" in err


def test_the_game_sheet_gives_a_multiplier_game_its_exact_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(capsys, "game-sheet")
    section = out.split("### multiplier\n")[1].split("###")[0]
    player = exact(MULTIPLIER).bets["player"]
    assert f"| player | 1:1 x M | {float(player.rtp) * 100:.4f}% |" in section
    assert f"player {player.rtp};" in section
    assert "per unit wagered (stake and fee)" in section


def test_simulate_a_multiplier_game_prints_its_rtp_beside_the_exact_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("simulate", "--rules", "multiplier", "--rounds", "50000", "--seed", "7")
    status, out, _ = run(capsys, *argv, "--workers", "1")
    assert status == 0
    assert "RTP per unit wagered (the stake and its fee)" in out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(MULTIPLIER.bets)}
    assert set(rows) == set(MULTIPLIER.bets)
    exact_rtp = f"{float(exact(MULTIPLIER).bets['player'].rtp) * 100:.4f}%"
    assert exact_rtp in rows["player"]
    status, out, _ = run(capsys, *argv, "--workers", "1", "--json")
    data = json.loads(out)
    assert data["rounds"] == 50000 and sum(data["outcomes"].values()) == 50000
    for bet in data["bets"].values():
        lo, hi = bet["ci95"]
        assert lo < bet["mean"] < hi and -1 < bet["exact"] < 0


def test_the_documented_figures_are_the_analysis() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "multiplier.md").read_text()
    analysis = exact(MULTIPLIER)
    shown = {row[0]: row for row in multiplier_rows(analysis)}
    for name, bet in analysis.bets.items():
        _, pays, rtp, edge, sd, largest, one_in_n, big = shown[name]
        row = f"| {name} | {pays} | `{bet.rtp}` | {rtp} | {edge} | {sd} | {largest} | "
        assert f"{row}{one_in_n} | {big} |" in doc, name
    for k, chance in MULTIPLIER_TERMS.counts:
        assert f'"{k}": "{chance}"' in doc
    for v, chance in MULTIPLIER_TERMS.values:
        assert f'"{v}": "{chance}"' in doc
