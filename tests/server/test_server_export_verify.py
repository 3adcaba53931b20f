"""Real exports of every kind of house table verify, with their nonces checked for gaps;
the same exports, cut by a cheat, do not.

Fresh shuffles take the nonces of one seed per mode and cut shoes those of another, both
committed together; a rotation reveals the fresh shuffles' seed at once and takes effect at
the next shoe (the seed of a shoe in play is revealed when the shoe ends); a void keeps its
nonce; an export for one mode holds that mode's commitments only.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli
from baccarat.core import Bets
from baccarat.fairness.history import parse_history
from baccarat.fairness.signing import PublicKeys, Signer, private_key
from baccarat.fairness.verify import HistoryReport, Kind, Status, verify_history
from baccarat.server import accounts, history, seeds, voids, wallet
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.tables import TableSet
from baccarat.server.wallets.ledger import LedgerWallet

from .conftest import both_backends

# The casino's signing key in these tests (any Ed25519 key: 32 bytes in base64).
SIGNER = Signer(private_key("c2lnbmluZy1rZXktb2YtdGhlLWV4cG9ydC10ZXN0cyE="))


@pytest.fixture(scope="module")
def tables() -> TableSet:
    return load_tables()


class Casino:
    def __init__(self, db: Database, system: SystemAccounts, tables: TableSet):
        self.db = db
        self.dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
        self.tables = tables
        self.player = db.run_write(lambda uow: accounts.register(uow, "eve", "hash", system)).id

    def play(self, table: str, mode: str = "fun", **bets: int) -> history.StoredRound:
        found = self.tables.require(table)
        return self.db.run_write(
            lambda uow: rounds.play_round(uow, self.dealer, self.player, found, mode, Bets(**bets))
        )

    def cut(self, mode: str = "fun", at: int = 100) -> rounds.ShoeState:
        mini = self.tables.require("mini")
        return self.db.run_write(
            lambda uow: rounds.cut_shoe(uow, self.dealer, self.player, mini, mode, at)
        )

    def rotate(self, mode: str = "fun") -> seeds.Rotation:
        return self.db.run_write(lambda uow: seeds.rotate(uow, self.player, mode))

    def finish_shoe(self) -> list[history.StoredRound]:
        mini = self.tables.require("mini")
        dealt = []
        while not self.db.run_read(
            lambda uow: rounds.shoe_state(uow, self.player, mini, "fun")
        ).cut_due:
            dealt.append(self.play("mini", banker=200))
        return dealt

    def revealed(self, mode: str = "fun") -> list[seeds.RevealedSeed]:
        return self.db.run_read(lambda uow: seeds.revealed_seeds(uow, self.player, mode))

    def void(self, round_id: str) -> None:
        self.db.run_write(lambda uow: voids.void_round(uow, self.dealer, round_id, "malfunction"))

    def export(self, mode: str | None = None) -> str:
        text, after = "", 0
        while True:
            page = functools.partial(
                history.export_chunk,
                player_id=self.player,
                mode=mode,
                after_seq=after,
                signer=SIGNER,
            )
            chunk, following = self.db.run_read(page)
            text += chunk
            if following is None:
                return text
            after = following


def report_of(text: str) -> HistoryReport:
    """The report with the casino's public key: every line's signature is checked too."""
    return verify_history(parse_history(text.splitlines()), PublicKeys(SIGNER.keys))


def checked_commitments(report: HistoryReport) -> bool:
    return not any("without nonces_used" in n.message for n in report.notes)


def play_every_kind(casino: Casino, system: SystemAccounts) -> dict[str, Any]:
    """Fresh rounds, a cut shoe dealt from (a rotation while it is dealt: the fresh rounds'
    seed is revealed at once, the shoe's when it ends), voids, a shoe cut and not dealt yet
    at a rotation, in both modes; returns what was played."""
    casino.db.run_write(lambda uow: wallet.deposit(uow, casino.player, 50_000, system))
    fresh = [casino.play("table-i", player=500, tie=200) for _ in range(3)]
    casino.cut(at=123)
    shoe = [casino.play("mini", banker=200) for _ in range(4)]
    later = [casino.play("table-i", banker=300) for _ in range(2)]
    casino.void(fresh[1].id)
    casino.void(shoe[2].id)
    real = [casino.play("table-i", "real", player=400) for _ in range(2)]
    rotated = casino.rotate()  # the shoe in play keeps its seed; the fresh rounds' is revealed
    assert rotated.shoe_revealed is None and casino.revealed() == [rotated.revealed]
    shoe += casino.finish_shoe()  # the shoe ends: its seed is revealed
    first, shoe_seed = casino.revealed()
    assert first == rotated.revealed and shoe_seed.nonces_used == 1
    # No shoe in play: both revealed at once.
    real_rotated = casino.rotate("real")
    assert real_rotated.revealed is not None and real_rotated.shoe_revealed is not None
    # Under the next seed: a shoe cut, a fresh round, a rotation (the shoe waits to be dealt).
    undealt = casino.cut(at=7)
    after_cut = casino.play("table-i", player=200)
    second = casino.rotate()
    # A round under the current seed, not revealed yet.
    pending = casino.play("table-i", player=200)
    return {"fresh": fresh, "shoe": shoe, "later": later, "real": real, "first": first,
            "undealt": undealt, "after_cut": after_cut, "second": second,
            "pending": pending}  # fmt: skip


@both_backends
def test_an_export_of_every_kind_of_house_table_verifies_with_its_nonces_checked(
    db: Database, system: SystemAccounts, tables: TableSet, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    casino = Casino(db, system, tables)
    played = play_every_kind(casino, system)
    assert played["undealt"].nonce == 0 and played["after_cut"].nonce == 0
    # The shoe cut at 7 is in play: its seed waits, the fresh rounds' is revealed.
    assert played["second"].revealed is not None and played["second"].shoe_revealed is None
    assert played["first"].undealt_shoes == ()
    text = casino.export()
    report = report_of(text)
    assert report.ok, (report.summary(), [str(f) for f in report.findings])
    assert report.counts[Status.VOIDED] == 2
    # The round under the current seed (the one beside the shoe in play was revealed).
    assert report.counts[Status.UNVERIFIABLE] == 1
    assert checked_commitments(report)
    assert not [n for n in report.notes if n.kind is Kind.UNDEALT]
    # Every round was dealt with the server's placeholder client seed (never set): named.
    assert report.server_client_seeds == len(report.rounds)
    lines = [json.loads(line) for line in text.splitlines()]
    first = next(line for line in lines if line["id"] == played["fresh"][0].id)
    # The fresh rounds' seed: a nonce each; the shoe's: one for the cut (all its coups).
    used = len(played["fresh"]) + len(played["later"])
    assert first["fairness"]["nonces_used"] == played["first"].nonces_used == used
    coup = next(line for line in lines if line["id"] == played["shoe"][0].id)
    assert coup["fairness"]["nonces_used"] == 1 and coup["fairness"]["nonce"] == 0
    path = tmp_path / "export.jsonl"
    path.write_text(text)
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"signing_keys": SIGNER.keys_json()}))
    assert cli(["verify", str(path), "--keys", str(keys)]) == 0
    # The export of one mode holds that mode's commitments only, and verifies alone.
    for mode in ("fun", "real"):
        alone = report_of(casino.export(mode))
        assert alone.ok, [str(f) for f in alone.findings]
        assert {r.mode for r in parse_history(casino.export(mode).splitlines())} == {mode}


@both_backends
def test_a_round_cut_from_a_real_export_is_a_gap_and_fails(
    db: Database, system: SystemAccounts, tables: TableSet, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    casino = Casino(db, system, tables)
    played = play_every_kind(casino, system)
    lines = casino.export().splitlines()
    for gone in (played["fresh"][2].id, played["shoe"][1].id):
        kept = [line for line in lines if json.loads(line)["id"] != gone]
        path = tmp_path / "cut.jsonl"
        path.write_text("\n".join(kept) + "\n")
        capsys.readouterr()
        assert cli(["verify", str(path)]) == 1
        out = capsys.readouterr().out
        assert "nonce(s)" in out or "went to no coup" in out
