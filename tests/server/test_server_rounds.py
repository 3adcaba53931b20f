"""Rounds, shoes, voids and replays through the services, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.core import Bets, play_coup
from baccarat.fairness import commitment, shuffled_order
from baccarat.fairness.signing import Signer, new_private_key_pem, private_key
from baccarat.server import accounts, history, replay, seeds, voids, wallet
from baccarat.server import check as audit
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes, ShoeFactory
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.tables import TableSet
from baccarat.server.wallets.ledger import LedgerWallet

from .conftest import both_backends
from .support import BANKER_WINS, PLAYER_WINS, TIE, StackedShoes


@pytest.fixture(scope="module")
def tables() -> TableSet:
    return load_tables()


def player(db: Database, system: SystemAccounts, nickname: str = "alice") -> int:
    return db.run_write(lambda uow: accounts.register(uow, nickname, "hash", system)).id


def play(
    db: Database,
    shoes: ShoeFactory,
    system: SystemAccounts,
    tables: TableSet,
    player_id: int,
    table: str = "table-i",
    mode: str = "fun",
    **stakes: int,
) -> history.StoredRound:
    dealer = rounds.Dealer(shoes, LedgerWallet(system))
    return db.run_write(
        lambda uow: rounds.play_round(
            uow, dealer, player_id, tables.require(table), mode, Bets(**stakes)
        )
    )


def balances(db: Database, player_id: int) -> dict[str, int]:
    return db.run_read(lambda uow: wallet.balances(uow, player_id))


def assert_ledger_ok(db: Database) -> None:
    report = db.run_read(audit.check)
    assert report.ok, report.problems


@both_backends
def test_a_lost_player_bet_moves_the_stake_to_the_house(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    played = play(db, StackedShoes(BANKER_WINS), system, tables, alice, player=500)
    answer = played.to_json()
    assert answer["player"] == {"cards": ["Kh", "Qd"], "scores": [0, 0]}
    assert answer["banker"] == {"cards": ["9s", "Kc"], "scores": [9, 9]}
    assert answer["winner"] == "banker"
    assert answer["bets"] == {"player": {"stake": 500, "result": "lose", "returned": 0}}
    assert (answer["win"], answer["balance_before"], answer["balance_after"]) == (
        0,
        100_000,
        99_500,
    )
    assert balances(db, alice)["fun"] == 99_500
    report = db.run_read(audit.check)
    assert report.ok, report.problems
    assert report.totals["fun"]["house"] == 500


@both_backends
def test_payouts_follow_the_table_rules(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    won = play(db, StackedShoes(PLAYER_WINS), system, tables, alice, player=1_000, banker=500)
    assert won.to_json()["bets"] == {
        "player": {"stake": 1_000, "result": "win", "returned": 2_000},
        "banker": {"stake": 500, "result": "lose", "returned": 0},
    }
    # Seed 000's tables pay a tie 9:1 and push the player and banker bets.
    tied = play(db, StackedShoes(TIE), system, tables, alice, player=200, tie=200)
    assert tied.to_json()["bets"] == {
        "player": {"stake": 200, "result": "push", "returned": 200},
        "tie": {"stake": 200, "result": "win", "returned": 2_000},
    }
    # Single deck (seed 002): a 0.50 banker win returns 0.97, commission rounded down.
    banker = play(db, StackedShoes(BANKER_WINS), system, tables, alice, "single-deck", banker=50)
    assert banker.to_json()["bets"]["banker"] == {"stake": 50, "result": "win", "returned": 97}
    assert balances(db, alice)["fun"] == 100_000 + 1_000 - 500 + 1_800 + 47
    assert_ledger_ok(db)


@both_backends
@pytest.mark.parametrize(
    ("table", "stakes", "code"),
    [
        ("table-i", {}, "no_bets"),
        ("table-i", {"player": 100}, "bet_below_table_min"),
        ("table-i", {"banker": 2_100}, "bet_above_table_max"),
        ("table-i", {"player": 250}, "not_a_chip_multiple"),
        ("tie-limits-5-500", {"tie": 400}, "tie_below_min"),
        ("tie-limits-5-500", {"tie": 6_100, "player": 500}, "tie_above_max"),
        ("tie-limits-25-1000", {"tie": 400, "banker": 2_500}, "tie_below_min"),
    ],
)
def test_bets_outside_the_limits_are_refused_and_nothing_moves(
    db: Database,
    system: SystemAccounts,
    tables: TableSet,
    table: str,
    stakes: dict[str, Any],
    code: str,
) -> None:
    alice = player(db, system)
    with pytest.raises(ServiceError) as refused:
        play(db, StackedShoes(BANKER_WINS), system, tables, alice, table, **stakes)
    assert refused.value.code == code
    assert balances(db, alice)["fun"] == 100_000


def test_seed_004_tie_limits_accept_a_combined_tie_below_the_lone_minimum(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    # $5-500 table: a lone tie needs $5, beside another bet $1 is enough.
    played = play(db, StackedShoes(TIE), system, tables, alice, "tie-limits-5-500",
                  tie=100, player=500)  # fmt: skip
    assert played.to_json()["bets"]["tie"] == {"stake": 100, "result": "win", "returned": 900}


@both_backends
def test_a_stake_above_the_balance_is_refused_without_using_a_nonce(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    with pytest.raises(ServiceError) as refused:
        play(db, StackedShoes(BANKER_WINS), system, tables, alice, mode="real", player=500)
    assert refused.value.code == "insufficient_funds"
    assert refused.value.details == {"stake": 500, "balance": 0, "currency": "USD"}
    assert db.run_read(lambda uow: seeds.state(uow, alice, "real")).next_nonce == 0
    db.run_write(lambda uow: wallet.deposit(uow, alice, 500, system))
    played = play(db, StackedShoes(BANKER_WINS), system, tables, alice, mode="real", player=500)
    assert (played.nonce, played.balance_after) == (0, 0)
    assert_ledger_ok(db)


@both_backends
def test_fresh_tables_take_one_nonce_per_round_under_the_committed_seed(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    state = db.run_read(lambda uow: seeds.state(uow, alice, "fun"))
    shoes = FairShoes()
    played = [play(db, shoes, system, tables, alice, player=500) for _ in range(3)]
    assert [r.nonce for r in played] == [0, 1, 2]
    assert {(r.commitment, r.client_seed, r.cut, r.position) for r in played} == {
        (state.commitment, state.client_seed, None, 0)
    }
    rotation = db.run_write(lambda uow: seeds.rotate(uow, alice, "fun"))
    revealed, new_state = rotation.revealed, rotation.state
    assert revealed is not None and commitment(revealed.server_seed) == state.commitment
    assert new_state.next_nonce == 0 and new_state.commitment != state.commitment
    for rec in played:
        order = shuffled_order(revealed.server_seed, rec.client_seed, rec.nonce, 6)
        coup = play_coup(order)
        assert rec.player_cards == " ".join(map(str, coup.player.cards))
        assert rec.banker_cards == " ".join(map(str, coup.banker.cards))


@both_backends
def test_a_cut_shoe_waits_for_the_cut_and_deals_on_from_where_it_stopped(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    mini = tables.require("mini")
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    with pytest.raises(ServiceError) as refused:
        play(db, dealer.shoes, system, tables, alice, "mini", player=100)
    assert refused.value.code == "cut_required"
    state = db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 123))
    assert (state.cut_due, state.nonce, state.cut, state.cut_card) == (False, 0, 123, 364)
    first = play(db, dealer.shoes, system, tables, alice, "mini", player=100)
    # A restart: a new shoe factory (empty cache) rebuilds the shoe from seeds and position.
    second = play(db, FairShoes(), system, tables, alice, "mini", player=100)
    assert (first.nonce, second.nonce) == (0, 0)
    assert first.position == state.position >= 2
    used = len(first.player_cards.split()) + len(first.banker_cards.split())
    assert second.position == first.position + used
    with pytest.raises(ServiceError) as busy:
        db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 5))
    assert busy.value.code == "shoe_in_progress"
    # Rotation takes effect at the next shoe: the shoe in play is dealt on from its seed
    # (the cut shoes'), which is revealed when the shoe ends (a player cannot end a shoe at
    # will); the fresh shuffles' seed is revealed at once.
    rotation = db.run_write(lambda uow: seeds.rotate(uow, alice, "fun"))
    new = rotation.state
    assert rotation.revealed is not None and rotation.shoe_revealed is None
    (waiting,) = db.run_read(lambda uow: seeds.pending(uow, alice, "fun"))
    assert (waiting["commitment"], waiting["tables"]) == (first.commitment, ["mini"])
    after = play(db, dealer.shoes, system, tables, alice, "mini", player=100)
    assert (after.commitment, after.nonce) == (first.commitment, 0)
    assert after.position == second.position + len(second.player_cards.split()) + len(
        second.banker_cards.split()
    )
    fresh = play(db, dealer.shoes, system, tables, alice, player=500)
    assert (fresh.commitment, fresh.nonce) == (new.commitment, 0)
    assert db.run_read(lambda uow: history.get_round(uow, alice, first.id)).server_seed is None
    while not db.run_read(lambda uow: rounds.shoe_state(uow, alice, mini, "fun")).cut_due:
        play(db, dealer.shoes, system, tables, alice, "mini", player=100)
    assert db.run_read(lambda uow: seeds.pending(uow, alice, "fun")) == []
    exported = [
        json.loads(line)
        for line in history.export_lines(
            db.run_read(lambda uow: history.export_page(uow, alice, "fun", 0)),
            Signer(private_key(new_private_key_pem())),
        )
    ]
    seed = exported[0]["fairness"]["server_seed"]
    assert commitment(seed) == first.commitment
    order = shuffled_order(seed, first.client_seed, 0, 8, 123)
    shoe = [line for line in exported if line["table_id"] == "mini"]
    assert shoe[0]["fairness"]["nonces_used"] == 1 and shoe[0]["fairness"]["undealt_shoes"] == []
    for line in shoe:
        coup = play_coup(order[line["fairness"]["position"] :])
        assert line["player"]["cards"] == [str(c) for c in coup.player.cards]
    assert_ledger_ok(db)


def test_a_cut_shoe_ends_at_its_cut_card(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    mini = tables.require("mini")
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 0))
    dealt = 0
    while not db.run_read(lambda uow: rounds.shoe_state(uow, alice, mini, "fun")).cut_due:
        last = play(db, dealer.shoes, system, tables, alice, "mini", player=100, banker=100)
        dealt += 1
        assert last.position < 364
    assert 364 // 6 <= dealt <= 364 // 4
    # The next shoe takes the next nonce.
    state = db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 77))
    assert state.nonce == 1


@both_backends
def test_a_void_returns_every_stake_and_takes_back_the_payout(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    won = play(db, StackedShoes(PLAYER_WINS), system, tables, alice, player=1_000, tie=200)
    assert balances(db, alice)["fun"] == 100_000 + 1_000 - 200
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    voided = db.run_write(lambda uow: voids.void_round(uow, dealer, won.id, "dealer error"))
    assert balances(db, alice)["fun"] == 100_000
    answer = voided.to_json()
    assert answer["void_reason"] == "dealer error"
    assert answer["bets"] == {
        "player": {"stake": 1_000, "result": "void", "returned": 1_000},
        "tie": {"stake": 200, "result": "void", "returned": 200},
    }
    assert answer["balance_after"] == answer["balance_before"] == 100_000
    with pytest.raises(ServiceError) as twice:
        db.run_write(lambda uow: voids.void_round(uow, dealer, won.id, "again"))
    assert twice.value.code == "void_not_possible"
    assert_ledger_ok(db)


@both_backends
def test_replay_rederives_a_round_with_the_reference(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    played = play(db, FairShoes(), system, tables, alice, player=500, tie=200)
    db.run_write(lambda uow: seeds.rotate(uow, alice, "fun"))  # the player reveals the seed
    result = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert result.ok and result.revealed, result.mismatches
    assert result.moved == result.owed and result.owed[f"player {alice}"] == played.win - 700
    # A record whose money is not what the ledger moved is caught (the ledger itself is
    # append-only): here the round says it paid a cent more than its transaction did.
    db.run_write(
        lambda uow: uow.run("UPDATE rounds SET win = win + 1 WHERE id = :id", {"id": played.id})
    )
    skimmed = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert not skimmed.ok
    assert [m for m in skimmed.mismatches if m.startswith("money:")], skimmed.mismatches
    db.run_write(
        lambda uow: uow.run("UPDATE rounds SET win = win - 1 WHERE id = :id", {"id": played.id})
    )
    # A tampered record is caught.
    db.run_write(
        lambda uow: uow.run(
            "UPDATE rounds SET winner = 'tie', banker_cards = 'Ah Ad' WHERE id = :id",
            {"id": played.id},
        )
    )
    tampered = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert not tampered.ok
    assert any(m.startswith("banker.cards:") for m in tampered.mismatches), (
        played.banker_cards, tampered.mismatches,
    )  # fmt: skip


@both_backends
def test_replay_keeps_an_unrevealed_seed_secret_and_still_checks_the_payouts(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    played = play(db, FairShoes(), system, tables, alice, player=500, tie=200)
    seed = db.run_read(
        lambda uow: uow.scalar(
            "SELECT s.server_seed FROM rounds r JOIN fairness_seeds s ON s.id = r.seed_id "
            "WHERE r.id = :id",
            {"id": played.id},
        )
    )
    result = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert result.ok and not result.revealed, result.mismatches
    assert seed not in json.dumps(result.to_json())  # nothing an operator sees holds it
    # A payout changed by hand is caught on the recorded cards, without the seed.
    bets = json.loads(played.bets)
    bets["player"]["returned"] += 100
    db.run_write(
        lambda uow: uow.run(
            "UPDATE rounds SET bets = :b, win = win + 100 WHERE id = :id",
            {"b": json.dumps(bets), "id": played.id},
        )
    )
    changed = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert not changed.ok
    assert any(m.startswith("bets.player.returned: expected") for m in changed.mismatches)


@both_backends
def test_replay_of_a_voided_round_checks_out_once_revealed(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = player(db, system)
    played = play(db, FairShoes(), system, tables, alice, banker=500)
    dealer = rounds.Dealer(FairShoes(), LedgerWallet(system))
    db.run_write(lambda uow: voids.void_round(uow, dealer, played.id, "dealer error"))
    db.run_write(lambda uow: seeds.rotate(uow, alice, "fun"))
    result = db.run_read(lambda uow: replay.replay_round(uow, played.id))
    assert result.revealed and result.report.status.value == "voided"
    assert result.ok, result.mismatches


@both_backends
def test_a_shuffle_takes_the_nonce_and_seeds_the_database_has_when_they_change_elsewhere(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    """PostgreSQL keeps a player's seeds and next nonce between rounds: whatever changes
    them meanwhile (a rotation, a client seed, a round taken by another process) is found,
    and the round deals from what the database holds."""
    alice = player(db, system)
    shoes = StackedShoes(BANKER_WINS)
    assert play(db, shoes, system, tables, alice, player=500).nonce == 0
    assert play(db, shoes, system, tables, alice, player=500).nonce == 1
    db.run_write(lambda uow: seeds.set_client_seed(uow, alice, "fun", "mine"))
    played = play(db, shoes, system, tables, alice, player=500)
    assert (played.nonce, played.client_seed) == (2, "mine")
    rotated = db.run_write(lambda uow: seeds.rotate(uow, alice, "fun")).state
    played = play(db, shoes, system, tables, alice, player=500)
    assert (played.nonce, played.commitment) == (0, rotated.commitment)
    assert play(db, shoes, system, tables, alice, player=500).nonce == 1
    # Another process took a nonce: this one's next is 3.
    db.run_write(lambda uow: uow.run(
        "UPDATE fairness_states SET next_nonce = next_nonce + 1 WHERE player_id = :p",
        {"p": alice},
    ))  # fmt: skip
    after = play(db, shoes, system, tables, alice, player=500)
    assert (after.nonce, after.commitment) == (3, rotated.commitment)
    assert play(db, shoes, system, tables, alice, player=500).nonce == 4
    assert db.run_read(lambda uow: seeds.state(uow, alice, "fun")).next_nonce == 5
    assert_ledger_ok(db)
