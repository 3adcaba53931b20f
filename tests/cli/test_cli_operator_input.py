"""Operator input is validated like a player's: request ids are bounded whole numbers in
ASCII digits, amounts plain ASCII decimal text (no spaces, no signs, more than zero and at
most the wallet's bound), nicknames as the player API takes them, round ids as the server
makes them, notes, memos and void reasons printable text of bounded length, counts bounded.
Bad input is exit 2 with one line on stderr (the input shown escaped), never a traceback,
and changes nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.core import Bets
from baccarat.server import accounts, wallet
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl, system_clock_us
from baccarat.server.wallets.ledger import LedgerWallet

from .support import run

BAD_IDS = ["99999999999999999999999", "9223372036854775808", "0", "-1", " 1", "1 ", "+1",
           "٣", "１", "1_0", "0x1", "1e3", "", "1\n"]  # fmt: skip
BAD_AMOUNTS = [" 5.00", "5.00 ", "\t5", "5.00\n", "0", "0.00", "5.001", ".5", "5.", "-5",
               "٥", "5,00", "", "1e3", "100000000001", "999999999999999"]  # fmt: skip
BAD_NICKNAMES = ["ol", "o" * 25, "olga\n", "olga\x1b[2J", "ölga", "olga ", " olga", "ol ga",
                 "olga\u202e", ""]  # fmt: skip
BAD_ROUNDS = ["r_missing", "r_" + "0" * 20 + "\n", "r_" + "A" * 20, "x" * 10_000, "",
              "r_" + "0" * 21]  # fmt: skip
BAD_TEXTS = ["a\x1b[31mb", "a\x00b", "line\nbreak", "bidi\u202etxet", "x" * 201, "   ", ""]
ESCAPE = "\x1b"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A migrated database with the player olga, a pending deposit request (1) and a
    pending withdrawal request (2) of hers, and one round of hers."""
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    folder = tmp_path / "data"
    assert main(["admin", "--data-dir", str(folder), "migrate"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n"))
    assert main(["admin", "--data-dir", str(folder), "accounts", "create", "olga",
                 "--password-stdin"]) == 0  # fmt: skip
    assert main(["admin", "--data-dir", str(folder), "deposit", "olga", "100"]) == 0
    db = Database(DatabaseUrl.sqlite_in(folder), clock=system_clock_us)
    try:
        system = db.run_read(SystemAccounts.load)
        player = db.run_read(lambda uow: accounts.require(uow, "olga")).id
        db.run_write(lambda uow: wallet.request_deposit(uow, player, 1_000))
        db.run_write(lambda uow: wallet.request_withdrawal(uow, player, 1_000, system))
        table = load_tables().require("table-i")
        dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
        db.run_write(
            lambda uow: rounds.play_round(uow, dealer, player, table, "fun", Bets(banker=500))
        )
    finally:
        db.close()
    return folder


def state(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> tuple[object, ...]:
    """What a refused command must not have changed: players, balances, requests."""
    listed = run(capsys, "admin", "--data-dir", str(data_dir), "accounts", "list", "--json")
    requests = [
        run(capsys, "admin", "--data-dir", str(data_dir), kind, "list", "--all", "--json")
        for kind in ("deposits", "withdrawals")
    ]
    return listed, *requests


def a_round(data_dir: Path) -> str:
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        found: str = db.run_read(lambda uow: uow.scalar("SELECT id FROM rounds"))
    finally:
        db.close()
    return found


def refused(
    capsys: pytest.CaptureFixture[str], data_dir: Path, cases: list[list[str]]
) -> list[str]:
    """Run each command; each must exit 2 with one line on stderr, no traceback, and no
    raw escape or control character of the input in it. The lines."""
    lines = []
    for argv in cases:
        status, _, err = run(capsys, "admin", "--data-dir", str(data_dir), *argv)
        assert status == 2, (argv, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (argv, err)
        assert ESCAPE not in err and "\x00" not in err and "\u202e" not in err, (argv, err)
        assert len(err) < 400, (argv, err)
        lines.append(err.strip())
    return lines


def test_request_ids_are_bounded_whole_numbers(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = state(data_dir, capsys)
    cases = [
        [kind, action, bad]
        for kind in ("deposits", "withdrawals")
        for action in ("approve", "reject")
        for bad in BAD_IDS
    ]
    lines = refused(capsys, data_dir, cases)
    assert all("request id" in line for line in lines), lines
    # The largest id there can be is a request that does not exist (exit 2, no overflow).
    refused(capsys, data_dir, [["deposits", "approve", str(2**63 - 1)]])
    refused(capsys, data_dir, [["deposits", "list", "1"]])
    assert state(data_dir, capsys) == before


def test_amounts_are_plain_ascii_decimals(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = state(data_dir, capsys)
    cases = [[move, "olga", bad] for move in ("deposit", "withdraw") for bad in BAD_AMOUNTS]
    lines = refused(capsys, data_dir, cases)
    assert all("amount" in line for line in lines), lines
    assert state(data_dir, capsys) == before
    status, out, _ = run(capsys, "admin", "--data-dir", str(data_dir), "deposit", "olga", "5.5")
    assert status == 0 and "real balance 95.50" in out


def test_nicknames_are_validated_as_the_player_api_does(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = state(data_dir, capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n" * 100))
    cases = [
        argv
        for bad in BAD_NICKNAMES
        for argv in (["deposit", bad, "5"], ["withdraw", bad, "5"], ["responsible", bad],
                     ["accounts", "create", bad, "--password-stdin"])
    ]  # fmt: skip
    lines = refused(capsys, data_dir, cases)
    assert all("nickname" in line for line in lines), lines
    assert state(data_dir, capsys) == before


def test_round_ids_are_as_the_server_makes_them(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = state(data_dir, capsys)
    cases = [argv for bad in BAD_ROUNDS
             for argv in (["void", bad, "--reason", "shoe error"], ["replay", bad])]  # fmt: skip
    lines = refused(capsys, data_dir, cases)
    assert all("round id" in line for line in lines), lines
    assert state(data_dir, capsys) == before
    status, out, _ = run(capsys, "admin", "--data-dir", str(data_dir), "replay", a_round(data_dir))
    assert status == 0 and "check out" in out  # a well-formed id of a real round replays


def test_notes_memos_and_reasons_are_printable_and_bounded(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = state(data_dir, capsys)
    played = a_round(data_dir)
    cases = [
        argv
        for bad in BAD_TEXTS
        for argv in (["void", played, "--reason", bad], ["deposit", "olga", "5", "--memo", bad],
                     ["withdraw", "olga", "5", "--memo", bad],
                     ["deposits", "approve", "1", "--note", bad],
                     ["withdrawals", "reject", "2", "--note", bad])
    ]  # fmt: skip
    lines = refused(capsys, data_dir, cases)
    assert all(word in line for line in lines for word in ("printable", "200")), lines
    assert state(data_dir, capsys) == before
    # Within the bounds (other scripts are printable text too).
    argv = ["void", played, "--reason", "Shoe error – déjà vu " + "x" * 179]
    status, _, err = run(capsys, "admin", "--data-dir", str(data_dir), *argv)
    assert status == 0, err


def test_counts_are_bounded(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [["responsible", "olga", "--audit", bad]
             for bad in ("-1", "1001", "٣", " 5", "99999999999999999999", "")]  # fmt: skip
    refused(capsys, data_dir, cases)
    status, out, _ = run(
        capsys, "admin", "--data-dir", str(data_dir), "responsible", "olga", "--audit", "0",
        "--json",
    )  # fmt: skip
    assert status == 0 and json.loads(out)["audit"] == []


@pytest.mark.parametrize(
    "argv",
    [["--port", bad] for bad in ("0", "65536", "٨٠٠٠", "+8000", " 8000", "8e3", "")]
    + [["--workers", bad] for bad in ("0", "٢", "99999999999999999999", "1025")],
)
def test_serve_options_are_bounded_ascii_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    # Refused before anything starts (no database is created, nothing listens).
    status, _, err = run(capsys, "serve", "--data-dir", str(tmp_path / "data"), *argv)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "data").exists()
