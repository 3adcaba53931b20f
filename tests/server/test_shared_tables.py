"""Shared tables (SPEC §9): one shoe on the server's clock, every player on the same coup."""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import Bets
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Status, verify_history
from baccarat.server import check as audit
from baccarat.server import voids
from baccarat.server.kinds.shared import bets as shared_bets
from baccarat.server.kinds.shared import views
from baccarat.server.play.check import Report
from baccarat.server.vault import is_sealed

from ..harness import Api
from .conftest import both_backends
from .sharedtables import TABLE, bet, close_and_deal, open_window, put_bets, state, tick
from .support import error_code

pytestmark = pytest.mark.anyio
NAMES = [
    "anna",
    "bert",
    "carl",
    "dora",
    "emil",
    "fred",
    "gina",
    "hugo",
    "ivan",
    "jane",
    "kurt",
    "lena",
    "mona",
    "nils",
    "otto",
    "paul",
    "rosa",
    "sven",
    "tina",
    "ulla",
]


async def balance(api: Api, token: str) -> int:
    answer = await api.client.get("/api/wallet", headers=api.auth(token, None))
    value: int = answer.json()["fun"]
    return value


def check_ledger(api: Api) -> Report:
    report = api.casino.db.run_read(audit.check)
    assert report.ok, report.problems
    return report


async def test_the_lobby_lists_the_shared_tables_with_their_clock(api: Api) -> None:
    tables = {t["id"]: t for t in (await api.client.get("/api/tables")).json()}
    assert tables["speed"]["shared"] == {"betting_s": 12, "result_s": 6}
    assert tables["live"]["shared"] == {"betting_s": 20, "result_s": 8}
    assert set(tables["deluxe"]["bets"]) == set(tables["live-deluxe"]["bets"])
    assert tables["speed"]["rules"]["decks"] == 8 and tables["speed"]["rules"]["burn"]
    assert tables["table-i"]["shared"] is None


async def test_an_unwatched_table_rests_and_a_read_of_its_state_wakes_it(api: Api) -> None:
    await tick(api)
    first = await state(api)
    assert first["phase"] == "idle" and first["coup"] is None
    await tick(api)  # the read marked it watched: the first window opens
    now = await state(api)
    assert now["phase"] == "betting"
    assert now["closes_at"] - now["server_time"] == 12_000_000
    assert len(now["shoe"]["commitment"]) == 64 and now["shoe"]["server_seed"] is None
    # Nobody looks for a minute: the coup is dealt, and no next window opens.
    api.app.state.shared._seen.clear()
    api.clock.advance(12)
    await tick(api)
    api.clock.advance(70)
    await tick(api)
    rested = (await api.client.get(f"/api/tables/{TABLE}/coups/{now['coup']}")).json()
    assert rested["phase"] == "dealt"
    assert api.casino.db.run_read(lambda uow: uow.scalar("SELECT COUNT(*) FROM shared_coups")) == 1


@both_backends
@pytest.mark.parametrize("count", [2, 20])
async def test_every_player_sees_the_same_cards_and_roads(api: Api, count: int) -> None:
    tokens = [await api.player(name) for name in NAMES[:count]]
    coups = []
    for round_no in range(2):
        coup = await open_window(api)
        coups.append(coup)
        for i, token in enumerate(tokens):
            spot = ("player", "banker")[i % 2]
            answer = await put_bets(api, token, coup, {spot: 500 + 100 * round_no})
            assert answer.status_code == 200, answer.text
            assert answer.json()["stake"] == 500 + 100 * round_no
        views._totals.clear()  # the totals are summed a few times a second, not per bet
        now = await state(api)
        assert now["players"] == count
        assert now["totals"]["player"] == {
            "players": (count + 1) // 2, "amount": (count + 1) // 2 * (500 + 100 * round_no)
        }  # fmt: skip
        await close_and_deal(api)
    seen = [
        (
            await api.client.get(
                f"/api/tables/{TABLE}/coups/{coups[-1]}", headers=api.auth(t, None)
            )
        ).json()
        for t in tokens
    ]
    assert len({(v["result"]["player"]["cards"] and tuple(v["result"]["player"]["cards"]),
                 tuple(v["result"]["banker"]["cards"])) for v in seen}) == 1  # fmt: skip
    for view in seen:
        (mine,) = view["bets"].values()
        assert mine["stake"] == 600 and mine["returned"] is not None
    roads = [
        (await api.client.get(f"/api/tables/{TABLE}/roads", headers=api.auth(t, None))).json()
        for t in tokens
    ]
    anonymous = (await api.client.get(f"/api/tables/{TABLE}/roads")).json()
    assert all(r["roads"] == anonymous["roads"] for r in roads)
    assert anonymous["stats"]["rounds"] == 2
    # Each bettor's history holds both coups, on the same cards as everyone's.
    for token in tokens[:2]:
        page = (await api.client.get("/api/history", headers=api.auth(token, None))).json()
        rounds = page["items"]
        assert [r["shared"]["coup"] for r in rounds] == coups[::-1]
        assert rounds[0]["player"]["cards"] == seen[0]["result"]["player"]["cards"]
    report = check_ledger(api)
    assert report.counts["shared_rounds"] == 2 * count
    # Each coup settled its bettors in one batch: the daily aggregates hold every round,
    # each bet's stake and its square counted once.
    day = api.casino.db.run_read(lambda uow: uow.all(
        "SELECT bet, rounds, stake, stake_sq FROM daily_stats WHERE table_id = :t ORDER BY bet",
        {"t": TABLE},
    ))  # fmt: skip
    per_spot = [(count + 1) // 2, count // 2]
    assert [tuple(row) for row in day] == [
        ("*", 2 * count, count * 1100, count * (500**2 + 600**2)),
        ("banker", per_spot[1] * 2, per_spot[1] * 1100, per_spot[1] * (500**2 + 600**2)),
        ("player", per_spot[0] * 2, per_spot[0] * 1100, per_spot[0] * (500**2 + 600**2)),
    ]


@both_backends
async def test_a_bet_after_the_close_is_refused_and_nothing_is_taken(api: Api) -> None:
    token = await api.player()
    coup = await open_window(api)
    before = await balance(api, token)
    api.clock.advance(12)  # the close, to the microsecond: no dealer has run yet
    late = await bet(api, token, coup, banker=500)
    assert late.status_code == 409 and error_code(late) == "betting_closed"
    assert await balance(api, token) == before
    await tick(api)
    again = await bet(api, token, coup, banker=500)
    assert error_code(again) == "betting_closed"
    assert await balance(api, token) == before
    check_ledger(api)


async def test_stakes_are_taken_at_placement_replaced_and_withdrawn(api: Api) -> None:
    token = await api.player()
    coup = await open_window(api)
    start = await balance(api, token)
    assert (await bet(api, token, coup, banker=500)).json()["balance"] == start - 500
    assert (await bet(api, token, coup, banker=1500, tie=100)).json()["balance"] == start - 1600
    check_ledger(api)  # the escrow holds the stake of the open coup
    # A replayed request moves nothing.
    again = await bet(api, token, coup, key="same", player=500)
    replay = await bet(api, token, coup, key="same", player=500)
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert again.json() == replay.json() and await balance(api, token) == start - 500
    withdrawn = await bet(api, token, coup)
    assert withdrawn.json()["balance"] == start and withdrawn.json()["stake"] == 0
    check_ledger(api)


async def test_limits_balance_and_exclusions_apply_at_placement(api: Api) -> None:
    token = await api.player()
    coup = await open_window(api)
    start = await balance(api, token)
    for bets, code in (
        ({"banker": 100}, "bet_below_table_min"),
        ({"banker": 60000}, "bet_above_table_max"),
        ({"super6": 100}, "bet_not_offered"),
        ({"banker": 550}, "not_a_chip_multiple"),
    ):
        refused = await put_bets(api, token, coup, bets)
        assert error_code(refused) == code, refused.text
    for _ in range(2):  # 2 x 500.00 leaves less than the next bet needs
        coup_bet = await bet(api, token, coup, banker=50000, player=50000)
        assert coup_bet.status_code == 200
    short = await bet(api, token, coup, banker=50000, player=50000, tie=100)
    assert short.status_code == 409 and error_code(short) == "insufficient_funds"
    assert await balance(api, token) == start - 100000
    await bet(api, token, coup)
    excluded = await api.player("bob")
    out = await api.client.post(
        "/api/responsible/time-out", json={"days": 1}, headers=api.auth(excluded, None)
    )
    assert out.status_code == 200, out.text
    refused = await bet(api, excluded, coup, banker=500)
    assert error_code(refused) == "timed_out"
    assert await balance(api, excluded) == start
    check_ledger(api)


async def test_a_player_who_leaves_after_betting_finds_the_round_in_the_history(
    api: Api,
) -> None:
    token = await api.player()
    coup = await open_window(api)
    assert (await bet(api, token, coup, player=500, tie=100)).status_code == 200
    # The player's page is gone; the table deals on its clock.
    await close_and_deal(api)
    page = (await api.client.get("/api/history", headers=api.auth(token, None))).json()
    (played,) = page["items"]
    assert played["table_id"] == TABLE and played["shared"]["coup"] == coup
    assert played["stake"] == 600
    view = (
        await api.client.get(f"/api/tables/{TABLE}/coups/{coup}", headers=api.auth(token, None))
    ).json()
    assert view["bets"]["fun"]["returned"] == played["win"]
    assert await balance(api, token) == 100000 - 600 + played["win"]
    check_ledger(api)


async def test_the_state_during_the_result_carries_the_players_own_result(api: Api) -> None:
    """A page that opens (or reloads) while a coup's result shows finds the player's own bets
    and result in the state: their round and what it returned, as the socket's ``settled``
    said; nothing of it before the deal, and an empty ``you`` for a player who did not bet."""
    token, other = await api.player(), await api.player("bob")
    coup = await open_window(api)
    assert (await bet(api, token, coup, player=500, tie=100)).status_code == 200
    betting = (await state(api, token))["you"]
    assert betting == {"bets": {"player": 500, "tie": 100}, "stake": 600, "fee": 0,
                       "round_id": None, "returned": None}  # fmt: skip
    await close_and_deal(api)
    you = (await state(api, token))["you"]
    (played,) = (await api.client.get("/api/history", headers=api.auth(token, None))).json()[
        "items"
    ]
    assert you == {"bets": {"player": 500, "tie": 100}, "stake": 600, "fee": 0,
                   "round_id": played["id"], "returned": played["win"]}  # fmt: skip
    assert (await state(api, other))["you"] == {"bets": {}, "stake": 0, "fee": 0,
                                               "round_id": None, "returned": None}  # fmt: skip


async def test_a_shared_table_takes_no_house_round_nor_a_cut(api: Api) -> None:
    token = await api.player()
    refused = await api.play(token, table=TABLE, banker=500)
    assert refused.status_code == 409 and error_code(refused) == "shared_table"
    cut = await api.client.post(
        f"/api/tables/{TABLE}/shoe", json={"mode": "fun", "cut": 5}, headers=api.auth(token)
    )
    assert error_code(cut) == "shared_table"
    house = await api.client.get("/api/tables/table-i/coups/1")
    assert error_code(house) == "not_a_shared_table"
    unknown = await bet(api, token, 999, banker=500)
    assert unknown.status_code == 404 and error_code(unknown) == "unknown_coup"


@both_backends
async def test_voiding_a_shared_coup_refunds_every_bettor(api: Api) -> None:
    tokens = [await api.player(name) for name in NAMES[:3]]
    coup = await open_window(api)
    for i, token in enumerate(tokens):
        await put_bets(api, token, coup, {("player", "banker", "tie")[i]: 1000})
    await close_and_deal(api)
    start = 100000
    dealer = api.casino.dealer
    voided = api.casino.db.run_write(lambda uow: voids.void_coup(uow, dealer, coup, "a fault"))
    assert len(voided) == 3 and all(r.void_reason == "a fault" for r in voided)
    for token in tokens:
        assert await balance(api, token) == start
    roads = (await api.client.get(f"/api/tables/{TABLE}/roads")).json()
    assert roads["stats"]["rounds"] == 0
    again = pytest.raises(Exception, match="already void")
    with again:
        api.casino.db.run_write(lambda uow: voids.void_coup(uow, dealer, coup, "twice"))
    check_ledger(api)


async def test_the_verifier_accepts_a_finished_shoe_and_names_a_changed_card(api: Api) -> None:
    first = await open_window(api)
    committed = (await state(api))["shoe"]
    shoe_id = committed["id"]

    def stored(uow: Any) -> str:
        return str(uow.scalar("SELECT server_seed FROM shared_shoes WHERE id = :s", {"s": shoe_id}))

    # Until the shoe ends its seed is stored sealed, like the players' (docs/fairness.md).
    assert is_sealed(api.casino.db.run_read(stored))
    for _ in range(200):  # an 8-deck shoe deals ~75 coups to its cut card
        now = await state(api)
        if now["shoe"]["id"] != shoe_id or now["shoe"]["finished"]:
            break
        api.clock.advance(30)
        await tick(api)
        await tick(api)
    answer = await api.client.get(f"/api/tables/{TABLE}/shoes/{shoe_id}")
    lines = answer.text.splitlines()
    assert len(lines) > 50
    records = parse_history(lines)
    seed = records[0].fairness.server_seed
    assert seed is not None  # revealed when the shoe ended
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == committed["commitment"]
    assert api.casino.db.run_read(stored) == seed  # revealed: public, kept in the clear
    report = verify_history(records)
    assert report.ok and {r.status for r in report.rounds} == {Status.VERIFIED}
    # The first coup starts right after the burn, and no coup is skipped.
    coups = [(await api.client.get(f"/api/tables/{TABLE}/coups/{first}")).json()]
    assert coups[0]["result"]["position"] == records[0].fairness.position
    line = json.loads(lines[10])
    first_card = line["player"]["cards"][0]
    line["player"]["cards"][0] = "Qs" if first_card != "Qs" else "Qh"
    changed = json.dumps(line)
    broken = verify_history(parse_history([*lines[:10], changed, *lines[11:]]))
    assert not broken.ok
    (bad,) = [r for r in broken.rounds if r.status is Status.DIFFERS]
    assert bad.line == 11
    assert any(d.field == "player.cards" for d in bad.differences), bad.differences


async def test_real_money_limits_count_the_bets_waiting_on_every_shared_table(api: Api) -> None:
    from .support import funded, put

    token = await funded(api)
    answer = await put(api, token, "/limits", {"wager": {"day": 1000}})
    assert answer.status_code == 200, answer.text
    speed = await open_window(api)
    live = await open_window(api, "live")
    placed = await put_bets(api, token, speed, {"banker": 600}, mode="real")
    assert placed.status_code == 200, placed.text
    # The bets waiting on the speed table count: 600 + 500 is more than the day's 1000.
    refused = await put_bets(api, token, live, {"banker": 500}, table="live", mode="real")
    assert error_code(refused) == "wager_limit_reached"
    # Replacing one's own bets counts them once: 900 in place of 600.
    replaced = await put_bets(api, token, speed, {"banker": 900}, mode="real")
    assert replaced.status_code == 200, replaced.text
    await close_and_deal(api)
    check_ledger(api)


def test_the_shared_tables_migration_keeps_the_rounds_and_their_checks(
    tmp_path: Any,
) -> None:
    import sqlite3

    from baccarat.server.db import migrate
    from baccarat.server.settings import DatabaseUrl

    url = DatabaseUrl.sqlite_in(tmp_path / "data")
    assert migrate.upgrade(url, "0008") == "0008"
    path = url.target
    conn = sqlite3.connect(path)
    schema = "SELECT sql FROM sqlite_master WHERE name = 'rounds'"
    (before,) = conn.execute(schema).fetchone()
    assert "seed_id BIGINT NOT NULL" in before.replace("INTEGER", "BIGINT")
    conn.close()
    assert migrate.upgrade(url) == migrate.revisions()[0]
    conn = sqlite3.connect(path)
    (after,) = conn.execute(schema).fetchone()
    assert "ck_rounds_amounts" in after and "ck_rounds_mode" in after
    listed = "SELECT name FROM sqlite_master WHERE tbl_name = 'rounds' AND type = 'index'"
    indexes = {row[0] for row in conn.execute(listed)}
    assert {"ix_rounds_player", "ix_rounds_table", "ix_rounds_transaction"} <= indexes
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"shared_tables", "shared_shoes", "shared_coups", "shared_bets"} <= tables
    conn.close()


async def test_admin_checks_replays_and_voids_a_shared_coup(
    api: Api, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main

    def admin(*argv: str) -> int:
        return main(["admin", "--data-dir", str(tmp_path / "data"), *argv])

    tokens = [await api.player(name) for name in NAMES[:2]]
    coup = await open_window(api)
    for token in tokens:
        assert (await bet(api, token, coup, banker=2500)).status_code == 200
    assert admin("check") == 0  # the stakes wait in escrow
    assert "ledger OK" in capsys.readouterr().out
    await close_and_deal(api)
    assert admin("check") == 0
    assert "2 shared rounds" in capsys.readouterr().out
    page = (await api.client.get("/api/history", headers=api.auth(tokens[0], None))).json()
    round_id = page["items"][0]["id"]
    assert admin("replay", round_id, "--json") == 0  # the money is the shared bank's
    assert json.loads(capsys.readouterr().out)["matches"] is True
    assert admin("void", "coup:x1", "--reason", "x") == 2
    assert admin("void", f"coup:{coup}", "--reason", "card reader fault") == 0
    assert "2 bettors' rounds" in capsys.readouterr().out
    for token in tokens:
        assert await balance(api, token) == 100000
    assert admin("check") == 0


def test_the_documented_shared_shoe_vector() -> None:
    from baccarat.core import deal_coup, format_cards, get_rules
    from baccarat.fairness import commitment, fair_shoe

    seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    shoe = fair_shoe(get_rules("classic-8deck"), seed, "speed/1", 0, 0)
    assert commitment(seed) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert (shoe.position, shoe.cut_card) == (4, 364)
    dealt = []
    for _ in range(3):
        coup = deal_coup(shoe)
        dealt.append((format_cards(coup.player.cards), format_cards(coup.banker.cards)))
    assert dealt == [("Th 2d", "Th 9h"), ("2s 4d", "2d 7s"), ("Ad Js 6d", "Jh 3h Jh")]
    text = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text()
    assert "| coup 3 at position 12 | player `Ad Js 6d` (1:7), banker `Jh 3h Jh`" in text


async def test_the_clock_keeps_its_pace_whatever_a_deal_took(api: Api) -> None:
    await open_window(api)
    first = await state(api)
    for _ in range(5):
        now = await state(api)
        api.clock.now = now["closes_at"] + 400_000  # the dealer looks 0.4 s after the close
        await tick(api)
        dealt = await state(api)
        api.clock.now = dealt["next_at"] + 300_000  # and opens the next window 0.3 s late
        await tick(api)
    now = await state(api)
    assert now["number"] == first["number"] + 5
    assert now["closes_at"] - first["closes_at"] == 5 * (12 + 6) * 1_000_000


async def test_a_table_no_longer_served_refunds_its_open_coup_and_reveals_its_shoe(
    api: Api,
) -> None:
    from baccarat.server.kinds.shared import clock

    token = await api.player()
    coup = await open_window(api)
    assert (await bet(api, token, coup, banker=2500)).status_code == 200
    dealer, served = api.casino.dealer, [t for t in api.casino.tables if t != TABLE]
    retired = api.casino.db.run_write(lambda uow: clock.retire(uow, dealer, served))
    assert retired == [TABLE]
    assert await balance(api, token) == 100000
    view = (await api.client.get(f"/api/tables/{TABLE}/coups/{coup}")).json()
    assert view["void_reason"] and view["shoe"]["finished"] and view["shoe"]["server_seed"]
    check_ledger(api)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_withdrawal_that_read_no_bet_leaves_a_bet_placed_meanwhile_alone(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two placements of one bettor on two workers: a withdrawal reads no bet (none is
    committed yet), then a bet of the same bettor commits; the withdrawal must not delete
    that bet's row, whose stake is in escrow (it would be money held for nothing)."""
    token = await api.player()
    me = await api.read(lambda uow: uow.scalar("SELECT id FROM players WHERE nickname = 'alice'"))
    coup = await open_window(api)
    casino, table = api.casino, api.casino.tables[TABLE]
    read = shared_bets.placed

    def then_a_bet_commits(uow: Any, *args: Any, **kwargs: Any) -> Any:
        seen = read(uow, *args, **kwargs)
        monkeypatch.setattr(shared_bets, "placed", read)
        with ThreadPoolExecutor(1) as other:  # another worker's placement, committed now
            other.submit(casino.db.run_write, lambda u: shared_bets.place(
                u, casino.dealer, table, coup, me, "fun", Bets(banker=500))).result()  # fmt: skip
        return seen

    start = await balance(api, token)
    monkeypatch.setattr(shared_bets, "placed", then_a_bet_commits)
    await api.write(lambda uow: shared_bets.place(
        uow, casino.dealer, table, coup, me, "fun", Bets()))  # fmt: skip
    assert await balance(api, token) == start - 500
    held = await api.read(lambda uow: shared_bets.placed(uow, coup, me, "fun"))
    assert held == (Bets(banker=500), 500)
    check_ledger(api)
