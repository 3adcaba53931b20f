"""What operators do is checked like what players do: a credit to a timed-out or
self-excluded player needs an explicit confirmation (``--confirm-excluded``) and lands in
the player's audit log; a void's reason is printable text."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.server import accounts, responsible, wallet
from baccarat.server.db.database import Database
from baccarat.server.settings import DatabaseUrl, system_clock_us
from baccarat.server.wallets.ledger import LedgerWallet


def admin(data_dir: Path, *argv: str) -> int:
    return main(["admin", "--data-dir", str(data_dir), *argv])


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A migrated data folder with one player, ida, made by the operator's command."""
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    folder = tmp_path / "data"
    assert admin(folder, "migrate") == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n"))
    assert admin(folder, "accounts", "create", "ida", "--password-stdin") == 0
    return folder


def test_crediting_an_excluded_player_needs_confirming_and_is_audited(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        player = db.run_read(lambda uow: accounts.require(uow, "ida")).id
        # A deposit request made before the exclusion, then a time-out.
        asked = db.run_write(lambda uow: wallet.request_deposit(uow, player, 5_000))
        db.run_write(lambda uow: responsible.time_out(uow, player, 7))
    finally:
        db.close()
    capsys.readouterr()
    assert admin(data_dir, "deposit", "ida", "25.00") == 2
    assert admin(data_dir, "deposits", "approve", str(asked.id)) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all("--confirm-excluded" in line for line in errors)
    assert admin(data_dir, "deposit", "ida", "25.00", "--confirm-excluded") == 0
    assert admin(data_dir, "deposits", "approve", str(asked.id), "--confirm-excluded") == 0
    assert admin(data_dir, "responsible", "ida", "--json") == 0
    report = capsys.readouterr().out
    assert report.count("operator_credit_while_excluded") == 2
    assert admin(data_dir, "check") == 0


def test_a_void_reason_with_control_bytes_is_refused_and_the_round_stays(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.core import Bets
    from baccarat.server.dealing import FairShoes
    from baccarat.server.kinds import load_tables
    from baccarat.server.kinds.house import service as rounds
    from baccarat.server.ledger import SystemAccounts

    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        system = db.run_read(SystemAccounts.load)
        player = db.run_read(lambda uow: accounts.require(uow, "ida")).id
        table = load_tables()["table-i"]
        dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
        played = db.run_write(
            lambda uow: rounds.play_round(uow, dealer, player, table, "fun", Bets(player=200))
        )
    finally:
        db.close()
    capsys.readouterr()
    for reason in ("misdeal \x1b[2J", "bell\x07", "x" * 501):
        assert admin(data_dir, "void", played.id, "--reason", reason) == 2
    errors = capsys.readouterr().err
    assert "\x1b" not in errors and "\x07" not in errors
    assert admin(data_dir, "void", played.id, "--reason", "a card flew off the table") == 0
    assert admin(data_dir, "check") == 0
