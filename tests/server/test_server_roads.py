"""A table's roads and statistics: services and API, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from baccarat.core import Bets, Shoe
from baccarat.core.roads import RoadResult, compute_roads
from baccarat.server import accounts, roads, seeds, voids
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts
from baccarat.server.tables import TableSet
from baccarat.server.wallets.ledger import LedgerWallet

from .conftest import both_backends
from .support import BANKER_WINS, PLAYER_WINS, TIE, StackedShoes

# Player K K (a pair, 0), banker 9 K (natural 9): Banker wins with a player pair.
BANKER_PLAYER_PAIR = "Kh 9s Kd Kc"
# Player 9 K (natural 9), banker 5 5 (a pair, 0): Player wins with a banker pair.
PLAYER_BANKER_PAIR = "9h 5s Kd 5c"
COUPS = {"B": BANKER_WINS, "P": PLAYER_WINS, "T": TIE}


class ShoesInTurn:
    """Each shuffle deals the next stacked coup (a fresh-shuffle table's known sequence)."""

    def __init__(self, stacks: list[str]):
        self.stacks = list(stacks)

    def __call__(self, *args: object) -> Shoe:
        return Shoe.stacked(self.stacks.pop(0))


@pytest.fixture(scope="module")
def tables() -> TableSet:
    return load_tables()


def register(db: Database, system: SystemAccounts, nickname: str = "alice") -> int:
    return db.run_write(lambda uow: accounts.register(uow, nickname, "hash", system)).id


def play_all(db, system, tables, player_id, shoes, count, table="table-i", mode="fun"):
    dealer = rounds.Dealer(shoes, LedgerWallet(system))
    return [
        db.run_write(
            lambda uow: rounds.play_round(
                uow, dealer, player_id, tables.require(table), mode, Bets(player=500)
            )
        )
        for _ in range(count)
    ]


def answer(db, player_id, tables, table="table-i", mode="fun"):
    return db.run_read(lambda uow: roads.table_roads(uow, player_id, tables.require(table), mode))


@both_backends
def test_a_fresh_table_shows_the_players_rounds_there_with_pairs_and_naturals(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice, bob = register(db, system), register(db, system, "bob")
    sequence = "BPPTB"
    stacks = [COUPS[c] for c in sequence] + [BANKER_PLAYER_PAIR, PLAYER_BANKER_PAIR]
    play_all(db, system, tables, alice, ShoesInTurn(stacks), len(stacks))
    # Rounds elsewhere (another player, table, mode) are not on alice's roads here.
    play_all(db, system, tables, bob, StackedShoes(PLAYER_WINS), 2)
    play_all(db, system, tables, alice, StackedShoes(PLAYER_WINS), 1, table="table-ii")
    data = answer(db, alice, tables)
    expected = compute_roads(RoadResult.parse_many(sequence + "BP")).to_json()
    assert data["scope"] == "recent"
    assert (
        data["columns"]["big_road"]
        == expected["big_road"]
        == [["B"], ["P", "P"], ["B", "B"], ["P"]]
    )
    assert data["ask"] == expected["ask"]
    assert [c["colour"] for c in data["roads"]["big_eye_boy"]] == expected["big_eye_boy"]
    big = data["roads"]["big_road"]
    assert (big[1]["col"], big[1]["row"], big[2]["row"], big[2]["ties"]) == (1, 0, 1, 1)
    assert (big[4]["player_pair"], big[5]["banker_pair"]) == (True, True)
    stats = data["stats"]
    assert stats["counts"] == {"banker": 3, "player": 3, "tie": 1}
    assert (stats["player_pairs"], stats["banker_pairs"]) == (1, 1)
    assert stats["naturals"] == 7  # every stacked coup is a natural
    assert stats["longest_streak"] == {"banker": 2, "player": 2, "tie": 1}
    assert answer(db, bob, tables)["stats"]["counts"]["player"] == 2
    assert answer(db, alice, tables, mode="real")["stats"]["rounds"] == 0


@both_backends
def test_a_fresh_table_looks_back_a_limited_number_of_rounds_and_skips_voids(
    db: Database, system: SystemAccounts, tables: TableSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(roads, "RECENT", 3)
    alice = register(db, system)
    played = play_all(db, system, tables, alice, ShoesInTurn([COUPS[c] for c in "PPBTB"]), 5)
    assert answer(db, alice, tables)["roads"]["bead"][0]["winner"] == "B"
    assert [c["winner"] for c in answer(db, alice, tables)["roads"]["bead"]] == ["B", "T", "B"]
    db.run_write(
        lambda uow: voids.void_round(
            uow, rounds.Dealer(FairShoes(), LedgerWallet(system)), played[-2].id, "a card flew"
        )
    )
    data = answer(db, alice, tables)
    assert [c["winner"] for c in data["roads"]["bead"]] == ["B", "B"]
    assert data["limit"] == 3


@both_backends
def test_a_cut_shoe_table_shows_the_current_shoe_only(
    db: Database, system: SystemAccounts, tables: TableSet
) -> None:
    alice = register(db, system)
    mini = tables.require("mini")
    stacked = " ".join(COUPS[c] for c in "BBPTPB" * 4)
    # The cut card comes out in the seventh coup.
    cut_card = sum(len(COUPS[c].split()) for c in "BBPTPB") + 1
    shoes = StackedShoes(stacked)

    def with_cut_card(*args):
        shoe = shoes(*args)
        shoe.cut_card = cut_card
        return shoe

    dealer = rounds.Dealer(with_cut_card, LedgerWallet(system))
    assert answer(db, alice, tables, "mini")["stats"]["rounds"] == 0  # no shoe cut yet
    db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 10))
    play_all(db, system, tables, alice, with_cut_card, 6, table="mini")
    data = answer(db, alice, tables, "mini")
    assert data["scope"] == "shoe"
    assert data["limit"] == 8 * 52 // 4 + 1
    assert data["columns"]["big_road"] == [["B", "B"], ["P", "P"], ["B"]]
    assert data["columns"]["ties"] == [[0, 0], [1, 0], [0]]
    # Rotating the seed does not end the shoe (it takes effect at the next shoe): the roads
    # go on until the cut card comes out; a new shoe (the next cut) starts them again.
    db.run_write(lambda uow: seeds.rotate(uow, alice, "fun"))
    play_all(db, system, tables, alice, with_cut_card, 1, table="mini")
    assert answer(db, alice, tables, "mini")["stats"]["rounds"] == 7
    db.run_write(lambda uow: rounds.cut_shoe(uow, dealer, alice, mini, "fun", 10))
    assert answer(db, alice, tables, "mini")["stats"]["rounds"] == 0
    play_all(db, system, tables, alice, with_cut_card, 1, table="mini")
    assert answer(db, alice, tables, "mini")["roads"]["bead"][0]["winner"] == "B"


def plan(db: Database) -> str:
    params = {"p": 1, "t": "table-i", "m": "fun", "limit": 100}

    def explain(uow):
        if uow.dialect == "postgresql":
            # On a nearly empty table the planner would rightly scan it; what matters here
            # is that the index can serve the query with its order.
            uow.run("SET LOCAL enable_seqscan = off")
            uow.run("SET LOCAL enable_bitmapscan = off")
            return uow.all("EXPLAIN " + roads.RECENT_ROUNDS, params)
        return uow.all("EXPLAIN QUERY PLAN " + roads.RECENT_ROUNDS, params)

    return "\n".join(" ".join(map(str, row)) for row in db.run_read(explain))


@both_backends
def test_the_rounds_query_reads_the_table_index_in_order_with_its_limit(db: Database) -> None:
    text = plan(db)
    assert "ix_rounds_table" in text, text
    assert "TEMP B-TREE" not in text.upper() and "Sort" not in text, text


@pytest.mark.anyio
@both_backends
async def test_the_roads_endpoint_answers_for_the_caller_and_is_in_the_schema(api) -> None:
    token = await api.player()
    api.shoes.current = ShoesInTurn([COUPS[c] for c in "BPT"])
    for _ in range(3):
        assert (await api.play(token, player=500)).status_code == 201
    got = await api.client.get("/api/tables/table-i/roads?mode=fun", headers=api.auth(token, None))
    assert got.status_code == 200, got.text
    data = got.json()
    assert [c["winner"] for c in data["roads"]["bead"]] == ["B", "P", "T"]
    assert data["columns"] == {"big_road": [["B"], ["P"]], "ties": [[0], [1]]}
    assert data["ask"]["banker"] == {
        "big_eye_boy": "red",
        "small_road": None,
        "cockroach_pig": None,
    }
    assert data["stats"]["shares"] == {"banker": 0.3333, "player": 0.3333, "tie": 0.3333}
    bad_mode = await api.client.get(
        "/api/tables/table-i/roads?mode=x", headers=api.auth(token, None)
    )
    assert bad_mode.json()["error"]["code"] == "invalid_mode"
    unknown = await api.client.get("/api/tables/nope/roads", headers=api.auth(token, None))
    assert unknown.json()["error"]["code"] == "unknown_table"
    api.client.cookies.clear()  # logging in set the session cookie
    anonymous = await api.client.get("/api/tables/table-i/roads")
    assert anonymous.json()["error"]["code"] == "not_authenticated"
    schema = (await api.client.get("/openapi.json")).json()
    assert "RoadsOut" in schema["components"]["schemas"]
    assert "/api/tables/{table_id}/roads" in schema["paths"]
