"""``baccarat admin`` and ``baccarat serve`` argument handling, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.core import Bets
from baccarat.server import accounts, seeds, wallet
from baccarat.server.db.database import Database
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl, system_clock_us
from baccarat.server.wallets.ledger import LedgerWallet

from .support import PLAYER_WINS, StackedShoes


def admin(data_dir: Path, *argv: str) -> int:
    return main(["admin", "--data-dir", str(data_dir), *argv])


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    folder = tmp_path / "data"
    assert admin(folder, "migrate") == 0
    return folder


def create(data_dir: Path, nickname: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n"))
    assert admin(data_dir, "accounts", "create", nickname, "--password-stdin") == 0


def test_operators_move_real_money_and_the_ledger_checks_out(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    create(data_dir, "olga", monkeypatch)
    assert admin(data_dir, "deposit", "olga", "250.00") == 0
    assert admin(data_dir, "withdraw", "olga", "50") == 0
    assert "real balance 200.00" in capsys.readouterr().out
    assert admin(data_dir, "accounts", "list", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed == [{"id": 1, "nickname": "olga", "currency": "USD", "fun": 100_000,
                       "real": 20_000, "rounds": 0}]  # fmt: skip
    assert admin(data_dir, "check") == 0
    assert "ledger OK" in capsys.readouterr().out


def test_a_deposit_is_in_the_players_currency(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.server import ledger

    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        db.run_write(lambda uow: ledger.open_currencies(uow, ["JPY"]))
        system = db.run_read(SystemAccounts.load)
        db.run_write(lambda uow: accounts.register(uow, "kenji", "hash", system, "JPY"))
    finally:
        db.close()
    assert admin(data_dir, "deposit", "kenji", "2500") == 0  # yen have no decimals
    assert "deposited ¥2,500 for kenji: real balance ¥2,500" in capsys.readouterr().out
    assert admin(data_dir, "deposit", "kenji", "2500.50") == 2
    assert "at most 0 decimals" in capsys.readouterr().err
    assert admin(data_dir, "check") == 0
    capsys.readouterr()
    # The list shows each balance in its player's currency.
    assert admin(data_dir, "accounts", "list") == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "kenji" in line]
    assert line.split()[2:5] == ["JPY", "¥100,000", "¥2,500"]
    # A yen request is listed and decided in yen (100000 is ¥100,000, not 1000.00).
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        kenji = db.run_read(lambda uow: accounts.require(uow, "kenji").id)
        asked = db.run_write(lambda uow: wallet.request_deposit(uow, kenji, 100_000))
    finally:
        db.close()
    assert admin(data_dir, "deposits", "list") == 0
    assert "¥100,000" in capsys.readouterr().out
    assert admin(data_dir, "deposits", "approve", str(asked.id)) == 0
    assert f"deposit request {asked.id} of kenji for ¥100,000: approved" in capsys.readouterr().out


def test_bad_operator_input_exits_2_with_one_line(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert admin(data_dir, "deposit", "nobody", "10") == 2
    assert admin(data_dir, "deposit", "nobody", "ten") == 2
    assert admin(data_dir, "void", "r_missing", "--reason", "x") == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3 and all(line.startswith("baccarat admin: error:") for line in errors)
    assert main(["serve", "--data-dir", str(data_dir), "--workers", "2"]) == 2
    assert "one worker" in capsys.readouterr().err


def test_check_exits_1_and_reports_a_tampered_balance(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    create(data_dir, "tom", monkeypatch)
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        db.run_write(lambda uow: uow.run("UPDATE accounts SET balance = 5 WHERE kind = 'player'"))
    finally:
        db.close()
    capsys.readouterr()
    assert admin(data_dir, "check") == 1
    out = capsys.readouterr().out
    assert "LEDGER PROBLEMS" in out and "cached balance 5 but its entries sum to 100000" in out
    assert admin(data_dir, "check", "--json") == 1
    assert json.loads(capsys.readouterr().out)["ok"] is False


def test_requests_void_and_replay(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.server import wallet
    from baccarat.server.dealing import FairShoes

    create(data_dir, "vera", monkeypatch)
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        system = db.run_read(SystemAccounts.load)
        player = db.run_read(lambda uow: accounts.require(uow, "vera")).id
        db.run_write(lambda uow: wallet.request_deposit(uow, player, 10_000))
        table = load_tables().require("table-i")
        ours = LedgerWallet(system)
        stacked = db.run_write(
            lambda uow: rounds.play_round(
                uow, rounds.Dealer(StackedShoes(PLAYER_WINS), ours), player, table, "fun",
                Bets(player=1_000),
            )
        )  # fmt: skip
        fair = db.run_write(
            lambda uow: rounds.play_round(
                uow, rounds.Dealer(FairShoes(), ours), player, table, "fun", Bets(banker=500)
            )
        )
    finally:
        db.close()
    capsys.readouterr()
    assert admin(data_dir, "deposits") == 0
    assert "vera" in capsys.readouterr().out
    assert admin(data_dir, "deposits", "approve", "1") == 0
    assert "approved" in capsys.readouterr().out
    assert admin(data_dir, "withdrawals", "approve", "1") == 2  # request 1 is a deposit
    assert admin(data_dir, "replay", fair.id) == 0  # the seed not revealed: kept secret
    assert "stays secret" in capsys.readouterr().out
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        db.run_write(lambda uow: seeds.rotate(uow, player, "fun"))  # the player reveals it
    finally:
        db.close()
    assert admin(data_dir, "replay", fair.id) == 0
    assert "the round matches its seeds" in capsys.readouterr().out
    # The stacked round was not dealt from its seeds: replay says so and exits 1.
    assert admin(data_dir, "replay", stacked.id, "--json") == 1
    assert json.loads(capsys.readouterr().out)["matches"] is False
    assert admin(data_dir, "void", stacked.id, "--reason", "shoe malfunction") == 0
    assert "returned" in capsys.readouterr().out
    assert admin(data_dir, "accounts", "list", "--json") == 0
    assert json.loads(capsys.readouterr().out)[0]["real"] == 10_000
    assert admin(data_dir, "check") == 0


def test_admin_refuses_a_data_folder_or_database_that_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    typo = tmp_path / "TYPO"
    assert admin(typo, "check") == 3
    assert admin(typo, "accounts", "list") == 3
    (tmp_path / "empty").mkdir()
    assert admin(tmp_path / "empty", "deposit", "olga", "10") == 3
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3
    assert all(line.startswith("baccarat admin: could not run: no database at") for line in errors)
    assert not typo.exists() and not list((tmp_path / "empty").iterdir())
    # migrate is the one command that creates it.
    assert admin(typo, "migrate") == 0 and admin(typo, "check") == 0


def test_an_unreachable_database_is_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ..harness import free_port

    url = f"postgresql://nobody@127.0.0.1:{free_port()}/baccarat?connect_timeout=5"
    for argv in (["check"], ["migrate"], ["accounts", "list"]):
        assert main(["admin", "--database", url, *argv]) == 3
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 3, errors
    assert all("could not run: the database" in line for line in errors)
    assert "Traceback" not in "".join(errors)


def test_amounts_take_ascii_digits_only(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    create(data_dir, "olga", monkeypatch)
    for amount in ("٣٠", "３０", "1.٥", "+10", "1e3", "1_000"):
        assert admin(data_dir, "deposit", "olga", amount) == 2, amount
    assert admin(data_dir, "deposit", "olga", "30") == 0
