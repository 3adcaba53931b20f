"""Server seeds at rest are sealed (AES-256-GCM under a key the database does not hold):
the database file holds no unrevealed seed, no operator command prints one, a replay of an
unrevealed round reveals it only on an explicit flag (audited), migration 0009 seals the
seeds stored before it, and a server given the wrong key says so when it starts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from baccarat.cli import main
from baccarat.core import Bets
from baccarat.fairness import commitment, server_seed_bytes
from baccarat.server import accounts, responsible
from baccarat.server.casino import Casino
from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.settings import DatabaseUrl, Settings, system_clock_us
from baccarat.server.vault import SeedKeyError, SeedVault, is_sealed
from baccarat.server.wallets.ledger import LedgerWallet

from ..harness import Api
from .conftest import BACKENDS


def admin(data_dir: Path, *argv: str) -> int:
    return main(["admin", "--data-dir", str(data_dir), *argv])


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The embedded default: no key in the environment, the data folder keeps it."""
    monkeypatch.delenv("BACCARAT_DATABASE_URL", raising=False)
    monkeypatch.delenv("BACCARAT_SEED_KEY", raising=False)
    folder = tmp_path / "data"
    assert admin(folder, "migrate") == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("a good password\n"))
    assert admin(folder, "accounts", "create", "sam", "--password-stdin") == 0
    return folder


def current_seeds(db: Database) -> list[str]:
    """Every unrevealed seed, opened with the data folder's key (as the server would)."""
    sql = "SELECT server_seed, commitment FROM fairness_seeds WHERE revealed_us IS NULL"
    rows = db.run_read(lambda uow: uow.all(sql))
    vault = db.vault
    return [vault.open(stored, committed) for stored, committed in rows]


def play(db: Database, table: str = "table-i") -> str:
    system = db.run_read(SystemAccounts.load)
    player = db.run_read(lambda uow: accounts.require(uow, "sam")).id
    found = load_tables().require(table)
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    return db.run_write(
        lambda uow: rounds.play_round(uow, dealer, player, found, "fun", Bets(player=500))
    ).id


def database_bytes(data_dir: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("baccarat.db*")))


def test_the_database_file_holds_no_unrevealed_seed(data_dir: Path) -> None:
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        play(db)
        player = db.run_read(lambda uow: accounts.require(uow, "sam")).id
        dealer = rounds.Dealer(FairShoes(), LedgerWallet(db.run_read(SystemAccounts.load)))
        mini = load_tables().require("mini")
        db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, player, mini, "fun", 40))
        play(db, "mini")
        secret = current_seeds(db)
        assert len(secret) == 4  # fun and real, each the fresh shuffles' and the cut shoes'
        stored = db.run_read(lambda uow: uow.all("SELECT server_seed FROM fairness_states"))
        assert all(is_sealed(text) for (text,) in stored)
    finally:
        db.close()
    raw = database_bytes(data_dir)
    for seed in secret:
        assert seed.encode() not in raw and server_seed_bytes(seed) not in raw
    # The key is beside the database, never inside it.
    key = (data_dir / "keys" / "seed-key").read_text().strip()
    assert key.encode() not in raw
    assert (data_dir / "keys" / "seed-key").stat().st_mode & 0o777 == 0o600


def test_replay_of_an_unrevealed_round_prints_no_seed_and_reveals_only_on_the_flag(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        round_id = play(db)
        secret = current_seeds(db)
    finally:
        db.close()
    capsys.readouterr()
    assert admin(data_dir, "replay", round_id, "--json") == 0
    out = capsys.readouterr().out
    shown = json.loads(out)
    assert shown["revealed"] is False and shown["recorded"]["fairness"]["server_seed"] is None
    assert not any(seed in out for seed in secret)
    assert admin(data_dir, "replay", round_id) == 0
    assert not any(seed in capsys.readouterr().out for seed in secret)
    # Asked explicitly, the replay rotates first (the player's next shuffles get a new seed)
    # and the audit log keeps it.
    assert admin(data_dir, "replay", round_id, "--json", "--rotate-first") == 0
    done = capsys.readouterr()
    assert "rotated to reveal it" in done.err
    replayed = json.loads(done.out)
    assert replayed["revealed"] is True and replayed["matches"] is True
    assert replayed["recorded"]["fairness"]["server_seed"] in secret
    db = Database(DatabaseUrl.sqlite_in(data_dir), clock=system_clock_us)
    try:
        player = db.run_read(lambda uow: accounts.require(uow, "sam")).id
        log = db.run_read(lambda uow: responsible.audit_log(uow, player))
    finally:
        db.close()
    (entry,) = [e for e in log if e["action"] == "operator_revealed_seed"]
    assert entry["details"]["round"] == round_id
    # Revealed once, it is not rotated again.
    assert admin(data_dir, "replay", round_id, "--rotate-first") == 0
    assert "rotated" not in capsys.readouterr().err


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_migration_0009_seals_the_seeds_stored_before_it(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    import sqlalchemy as sa
    from alembic import command

    url = database_url
    vault = SeedVault.in_folder(tmp_path)
    db = Database(url, clock=system_clock_us, vault=vault)
    try:
        system = db.run_read(SystemAccounts.load)
        db.run_write(lambda uow: accounts.register(uow, "old", "hash", system))
        sealed = current_seeds(db)
    finally:
        db.close()
    # Back at 0008 the seeds are stored as they were then: in plain text.
    engine = sa.create_engine(url.sqlalchemy_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            command.downgrade(migrate._config(connection, vault), "0008")  # type: ignore[arg-type]
            connection.commit()
            query = sa.text("SELECT server_seed FROM fairness_seeds")
            plain = [seed for (seed,) in connection.execute(query)]
    finally:
        engine.dispose()
    assert sorted(plain) == sorted(sealed)
    assert migrate.upgrade(url, vault=vault) == migrate.revisions()[0]
    db = Database(url, clock=system_clock_us, vault=vault)
    try:
        assert sorted(current_seeds(db)) == sorted(sealed)
        rows = db.run_read(lambda uow: uow.all("SELECT server_seed FROM fairness_states"))
        assert all(is_sealed(text) for (text,) in rows)
    finally:
        db.close()
    if url.dialect == "sqlite":
        assert all(seed.encode() not in database_bytes(Path(url.target).parent)
                   for seed in sealed)  # fmt: skip


def test_a_server_with_another_seed_key_says_so_when_it_starts(data_dir: Path) -> None:
    other = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="  # 32 bytes of 1
    settings = Settings.for_data_dir(data_dir, seed_key=other)
    casino = Casino(settings)
    with pytest.raises(SeedKeyError, match=r"sealed with seed key .* set BACCARAT_SEED_KEY"):
        casino.start()
    casino.close()
    # The right key (the data folder's, which the admin used) opens them.
    casino = Casino(Settings.for_data_dir(data_dir))
    casino.start()
    casino.close()


def test_a_sealed_seed_opens_only_with_its_commitment() -> None:
    vault = SeedVault(b"\x02" * 32)
    seed = "00" * 32
    sealed = vault.seal(seed, commitment(seed))
    assert vault.open(sealed, commitment(seed)) == seed
    with pytest.raises(SeedKeyError, match="does not open"):
        vault.open(sealed, commitment("11" * 32))
    with pytest.raises(SeedKeyError, match="unsealed"):
        vault.open(seed, commitment(seed))


def test_the_operator_makes_a_seed_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "seed-key", "new"]) == 0
    made = capsys.readouterr()
    assert SeedVault.from_text(made.out).key_id
    assert "BACCARAT_SEED_KEY" in made.err


@pytest.mark.anyio
async def test_no_endpoint_shows_a_seed_that_is_not_revealed(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    played = [(await api.play(token, player=500)).json()["id"] for _ in range(2)]
    await api.client.post("/api/tables/mini/shoe", json={"mode": "fun", "cut": 30}, headers=auth)
    secret = current_seeds(api.casino.db)
    answers = [
        await api.client.get(path, headers=auth)
        for path in ("/api/fairness", "/api/fairness/seeds", "/api/history",
                     "/api/history/export", f"/api/rounds/{played[0]}",
                     "/api/tables/mini/shoe?mode=fun", "/api/tables/mini/state?mode=fun",
                     "/api/tables/table-i/state?mode=fun")
    ]  # fmt: skip
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    shown = "".join(a.text for a in answers)
    assert not any(seed in shown for seed in secret) and "aesgcm1:" not in shown
