"""``baccarat simulate``, ``baccarat shoe`` and ``baccarat odds --eor`` from the command line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest

from baccarat.cli import main
from baccarat.cli.progress import format_rate, progress
from baccarat.core import get_rules


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_simulate_json_has_exactly_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys,
        "simulate",
        "--rules",
        "mini",
        "--rounds",
        "20000",
        "--seed",
        "3",
        "--workers",
        "1",
        "--json",
    )
    data = json.loads(out)
    assert status == 0 and err == ""
    assert list(data) == ["rules", "rounds", "seconds", "rounds_per_second", "outcomes", "bets"]
    assert data["rules"] == "mini" and data["rounds"] == 20000
    assert isinstance(data["seconds"], float) and data["rounds_per_second"] > 0
    assert set(data["outcomes"]) == {"banker", "player", "tie"}
    assert sum(data["outcomes"].values()) == 20000
    # Every bet mini offers: the main bets, then its side bets.
    assert list(data["bets"]) == list(get_rules("mini").bets)
    assert len(data["bets"]) == 11
    for bet in data["bets"].values():
        assert list(bet) == ["mean", "stderr", "ci95", "exact", "z"]
        lo, hi = bet["ci95"]
        assert lo < bet["mean"] < hi
        assert isinstance(bet["exact"], float) and isinstance(bet["z"], float)


def test_simulate_same_seed_and_workers_prints_the_same_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def counts(seed: str) -> dict[str, object]:
        argv = ("simulate", "--rounds", "1e5", "--seed", seed, "--workers", "2", "--json")
        data: dict[str, object] = json.loads(run(capsys, *argv)[1])
        return data

    first, second, other = counts("12"), counts("12"), counts("13")
    assert first["outcomes"] == second["outcomes"] != other["outcomes"]
    assert first["bets"] == second["bets"]


def test_simulate_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys,
        "simulate",
        "--rules",
        "classic-8deck",
        "--rounds",
        "50_000",
        "--seed",
        "1",
        "--workers",
        "1",
    )
    assert status == 0
    # Not a terminal: no progress bar on stderr.
    assert err == ""
    assert "rounds: 50,000" in out and "seed 1" in out
    for bet in ("player", "banker", "tie"):
        assert any(line.startswith(bet) for line in out.splitlines())
    assert "fresh full shoe" in out and "cut shoe" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--rounds", "0"],
        ["simulate", "--rounds", "ten"],
        ["simulate", "--rounds", "1.5"],
        ["simulate", "--rounds", "100", "--rules", "no-such-game"],
        ["simulate", "--rounds", "100", "--seed", "-4"],
        ["simulate", "--rounds", "100", "--workers", "0"],
        ["simulate", "--rounds", "100", "--workers", "100000"],
        ["simulate"],
        ["shoe", "--rules", "no-such-game"],
        ["shoe", "--seed", "x"],
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "error" in err


def test_shoe_json_traces_one_shoe(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "shoe", "--rules", "classic-8deck", "--seed", "4", "--json")
    data = json.loads(out)
    assert status == 0 and data["seed"] == 4 and data["cut_card"] == 364
    assert len(data["coups"]) > 60
    assert [c["number"] for c in data["coups"]] == list(range(1, len(data["coups"]) + 1))
    again = json.loads(run(capsys, "shoe", "--seed", "4", "--json")[1])
    assert again == data


def test_shoe_text_shows_every_coup_and_the_edges(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "shoe", "--rules", "mini", "--seed", "2")
    assert status == 0
    assert "burn: first card" in out and "cut card after 364 of 416 cards" in out
    coup_lines = [line for line in out.splitlines() if line.startswith("#")]
    assert len(coup_lines) > 60 and all(line.count("%") == 3 for line in coup_lines)


def test_shoe_for_a_fresh_shuffle_game_says_where_it_puts_the_cut_card(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "shoe", "--rules", "single-deck", "--seed", "2")
    assert status == 0 and "standard 7/8 penetration" in out and "burn:" not in out


def test_odds_eor_json_adds_the_effect_of_each_rank(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "odds", "--rules", "classic-8deck", "--eor", "--json")
    data = json.loads(out)
    assert status == 0
    assert list(data["eor"]) == ["A", *"23456789", "T", "J", "Q", "K"]
    assert data["eor"]["5"]["banker"] > 0 > data["eor"]["5"]["player"]
    assert set(data["eor"]["K"]) == set(data["bets"])
    plain = json.loads(run(capsys, "odds", "--rules", "classic-8deck", "--json")[1])
    assert "eor" not in plain and plain == {k: v for k, v in data.items() if k != "eor"}


def test_odds_eor_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "odds", "--decks", "1", "--remove", "5h 5d 5c 5s", "--eor")
    assert status == 0 and "effect of removal" in out
    lines = out.splitlines()
    header = lines[lines.index(next(x for x in lines if x.startswith("effect of"))) + 1].split()
    # Bets down, ranks across; the ten-value ranks share a column while they act alike.
    assert header == ["bet", "A", *"23456789", "T", "J", "Q", "K"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[-10:]}
    assert set(rows) == {"player", "banker", "tie", "player_pair", "banker_pair",
        "either_pair", "player_dragon", "banker_dragon", "big", "small"}  # fmt: skip
    assert rows["banker"][4] == "-"  # no five left to remove
    assert all(cell[0] in "+-" for cell in rows["banker"]) and rows["player_pair"][0] == "0"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_shows_share_count_rate_and_time_left() -> None:
    stream = Terminal()
    with progress(1000, stream=stream) as update:
        update(100)
        time.sleep(0.15)
        update(400)
        time.sleep(0.3)
    drawn = stream.getvalue()
    assert "40%" in drawn and "400/1.0k" in drawn and "rounds/s" in drawn and "left" in drawn
    # The bar goes at the end: its last line is erased.
    assert drawn.endswith("\x1b[2K") or "\x1b[2K" in drawn[-40:]


def test_progress_writes_nothing_to_a_pipe() -> None:
    stream = io.StringIO()
    with progress(1000, stream=stream) as update:
        update(400)
        time.sleep(0.15)
    assert stream.getvalue() == ""


def test_rates_read_well() -> None:
    assert format_rate(43_500_000) == "43.5M" and format_rate(999) == "999"


def test_ctrl_c_on_a_terminal_stops_and_reports_what_was_simulated() -> None:
    # A real terminal for stderr: the progress bar appears after a second; then Ctrl-C goes
    # to the whole process group, as a terminal sends it.
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from baccarat.cli import main; sys.exit(main())",
            *("simulate", "--rounds", "1e13", "--seed", "1", "--workers", "2"),
        ],
        stdout=subprocess.PIPE,
        stderr=follower,
        start_new_session=True,
    )
    os.close(follower)
    seen = b""
    try:
        # A fresh install compiles the kernel first (numba's cache is empty): allow for it.
        deadline = time.monotonic() + 120
        while b"rounds/s" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                seen += os.read(leader, 4096)
        assert b"rounds/s" in seen, f"no progress bar in 120 s: {seen[-300:]!r}"
        os.killpg(process.pid, signal.SIGINT)
        # A terminal keeps reading while the run winds down: a pty nobody reads fills up and
        # blocks the bar's last redraws (and with them the exit).
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.2)[0]:
                try:
                    seen += os.read(leader, 4096)
                except OSError:
                    break
        out, _ = process.communicate(timeout=10)
        while select.select([leader], [], [], 0.2)[0]:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        # Whatever happened, nothing of the run outlives the test (a simulation left behind
        # would take both cores from the rest of the suite).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
        os.close(leader)
    assert b"rounds/s" in seen and b"left" in seen
    assert process.returncode == 130
    assert b"interrupted after" in seen
    report = out.decode()
    assert "rounds: " in report and "banker" in report
