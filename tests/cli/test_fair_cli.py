"""``baccarat fair``, ``verify`` and ``rng-report`` as a user runs them."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main
from baccarat.fairness import commitment
from tests.fairness.samples import edited, history, jsonl
from tests.fairness.vectors import VECTORS_PATH

VECTOR = json.loads(VECTORS_PATH.read_text())["vectors"][0]
MINI = next(v for v in json.loads(VECTORS_PATH.read_text())["vectors"] if v["rules"] == "mini")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def shuffle_args(vector: dict[str, Any]) -> list[str]:
    args = [
        "fair",
        "shuffle",
        "--server-seed",
        vector["server_seed"],
        "--client-seed",
        vector["client_seed"],
        "--nonce",
        str(vector["nonce"]),
        "--decks",
        str(vector["decks"]),
    ]
    if vector["cut"] is not None:
        args += ["--cut", str(vector["cut"])]
    return args


def test_fair_shuffle_json_is_the_list_of_cards(capsys: pytest.CaptureFixture[str]) -> None:
    for vector in (VECTOR, MINI):
        status, out, _ = run(capsys, *shuffle_args(vector), "--json")
        assert status == 0
        assert json.loads(out) == vector["order"]


def test_fair_shuffle_text_shows_seeds_commitment_and_numbered_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, *shuffle_args(VECTOR))
    assert status == 0
    assert f"commitment   {VECTOR['commitment']}" in out
    rows = out.split("order (dealt from position 0):\n")[1].splitlines()
    assert rows[0].split() == ["0", *VECTOR["order"][:13]]
    assert rows[3].split() == ["39", *VECTOR["order"][39:]]


def test_fair_shuffle_forgives_upper_case_and_blanks_in_the_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = shuffle_args(VECTOR)
    args[3] = f" {VECTOR['server_seed'].upper()} "
    status, out, _ = run(capsys, *args, "--json")
    assert status == 0 and json.loads(out) == VECTOR["order"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"--server-seed": "12ab"}, "a server seed is 64 hex characters (32 bytes), not '12ab'"),
        ({"--nonce": "-1"}, "a nonce is a whole number from 0, not -1"),
        ({"--nonce": "one"}, "argument --nonce: invalid int value: 'one'"),
        ({"--decks": "9"}, "a shoe holds 1 to 8 decks, not 9"),
        ({"--cut": "52"}, "a cut is a position from 0 to 51, not 52"),
        ({"--cut": "-3"}, "a cut is a position from 0 to 51, not -3"),
    ],
)
def test_fair_shuffle_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], change: dict[str, str], message: str
) -> None:
    args = shuffle_args(VECTOR)
    for option, value in change.items():
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    try:
        status = main(args)
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code  # type: ignore[assignment]
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


def test_fair_commit_prints_the_commitment(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "fair", "commit", "--server-seed", VECTOR["server_seed"])
    assert status == 0 and out == VECTOR["commitment"] + "\n"


def test_fair_new_prints_a_seed_with_its_commitment(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "fair", "new", "--json")
    data = json.loads(out)
    assert status == 0
    assert commitment(data["server_seed"]) == data["commitment"]
    assert len(data["client_seed"]) == 16


def test_example_history_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, _ = run(capsys, "fair", "example-history", "--rules", "mini", "--seed", "3")
    assert status == 0
    path = tmp_path / "history.jsonl"
    path.write_text(out)
    status, out, _ = run(capsys, "verify", str(path))
    # Example exports are not signed: nothing differs, but no key checked a signature.
    assert status == 3
    assert out.startswith("SIGNATURES NOT CHECKED")
    assert (
        out.splitlines()[-1]
        == "10 rounds: 10 verified, 0 unverifiable (seed not revealed), 0 differ"
    )
    status, out, _ = run(capsys, "verify", "--accept-unsigned", str(path))
    assert status == 0 and out.startswith("SIGNATURES NOT CHECKED")


def write(tmp_path: Path, lines: list[Any]) -> str:
    path = tmp_path / "history.jsonl"
    path.write_text(jsonl(lines))
    return str(path)


def test_verify_names_the_tampered_field_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = edited(history("single-deck", 4), 2, "bets.player.returned", 9999)
    status, out, _ = run(capsys, "verify", write(tmp_path, lines))
    assert status == 1
    assert "line    3  r_000003  differs" in out
    assert "    bets.player.returned: expected 200, recorded 9999" in out


def test_verify_quiet_lists_only_rounds_that_are_not_verified(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = edited(history("single-deck", 4), 2, "win", 1)
    status, out, _ = run(capsys, "verify", "--quiet", write(tmp_path, lines))
    assert status == 1
    assert [line.split()[1] for line in out.splitlines() if line.startswith("line")] == ["3"]


def test_verify_unrevealed_seeds_do_not_fail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, history("single-deck", 3, revealed=False))
    status, out, _ = run(capsys, "verify", "--accept-unsigned", path)
    assert status == 0
    assert out.count("unverifiable: seed not revealed") == 3


def test_verify_json_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = edited(history("mini", 3), 1, "player.cards.0", "Kh")
    status, out, _ = run(capsys, "verify", "--json", write(tmp_path, lines))
    data = json.loads(out)
    assert status == 1
    assert data["summary"] == {"rounds": 3, "verified": 2, "unverifiable": 0, "differs": 1}
    assert data["rounds"][1]["differences"][0]["field"] == "player.cards"


def test_verify_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = jsonl(history("single-deck", 2)).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = run(capsys, "verify", "--accept-unsigned", "-")
    assert status == 0 and "2 verified" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "baccarat-history/1"}\n', "line 1: id is missing"),
        ("\n\nnot json\n", "line 3: not JSON"),
    ],
)
def test_verify_malformed_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    status, out, err = run(capsys, "verify", str(path))
    assert status == 2 and out == ""
    assert err.startswith(f"baccarat verify: error: {message}") and err.count("\n") == 1


def test_verify_missing_file_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "verify", str(tmp_path / "nope.jsonl"))
    assert status == 2 and "No such file" in err and err.count("\n") == 1


def test_verify_malformed_line_in_a_tampered_file_reports_its_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = edited(history("single-deck", 5), 3, "fairness.server_seed", "not-hex")
    status, _, err = run(capsys, "verify", write(tmp_path, lines))
    assert status == 2 and "line 4: fairness.server_seed" in err


SEED = "5eed" * 16


def test_rng_report_prints_a_report_with_every_test(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "rng-report", "--shuffles", "1200", "--shoes", "300", "--server-seed", SEED
    )
    assert status == 0, out
    assert "baccarat RNG report" in out and "PARTIAL" not in out
    assert "T1 card positions, 1-deck shuffles (52 x 52)" in out and "2601" in out
    assert "T6 first card of 8-deck shoes (52 faces)" in out
    assert "X^2 x 51/52 is chi-square with 2601 df" in out
    assert "result: all 7 tests pass at alpha = 0.01" in out
    assert f"--server-seed {SEED}" in out
    assert "Ctrl-C" in err and "\r" not in err


def test_rng_report_json_and_tests_it_cannot_run(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "rng-report",
        "--shuffles",
        "300",
        "--server-seed",
        SEED,
        "--json",
        "--alpha",
        "0.05",
    )
    data = json.loads(out)
    assert status == 0
    assert data["complete"] and data["alpha"] == 0.05
    assert data["shoes_8deck"] == {"planned": 37, "done": 37, "nonces": "300..336"}
    not_run = [t["name"] for t in data["not_run"]]
    assert "T6 first card of 8-deck shoes (52 faces)" in not_run
    assert len(data["tests"]) + len(not_run) == 7
    positions = data["tests"][0]
    assert positions["df"] == 2601 and positions["samples"] == 300
    assert positions["passed"] == (positions["p_value"] >= 0.05)


def test_rng_report_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("rng-report", "--shuffles", "300", "--server-seed", SEED, "--json")
    first = json.loads(run(capsys, *args)[1])
    second = json.loads(run(capsys, *args)[1])
    assert [t["statistic"] for t in first["tests"]] == [t["statistic"] for t in second["tests"]]


@pytest.mark.parametrize(
    "args",
    [
        ["--shuffles", "0"],
        ["--shuffles", "10", "--alpha", "1.5"],
        ["--shuffles", "10", "--shoes", "-1"],
        ["--shuffles", "10", "--server-seed", "xyz"],
    ],
)
def test_rng_report_bad_input_exit_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    status, _, err = run(capsys, "rng-report", *args)
    assert status == 2 and err.count("\n") == 1


def test_rng_report_ctrl_c_prints_a_partial_report(tmp_path: Path) -> None:
    program = "import sys; from baccarat.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", program, "rng-report", "--shuffles", "10000000"]
    command += ["--server-seed", SEED]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert process.stderr is not None
    started = process.stderr.readline()
    assert "Ctrl-C stops with a partial report" in started
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "baccarat RNG report (PARTIAL: stopped early)" in out
    # The signal may land before the first shuffle: the report then says none were done.
    assert re.search(r"1-deck rounds  \d+ of 10000000 \(nonces (0\.\.\d+|none)\)", out), out
    assert "Traceback" not in err
