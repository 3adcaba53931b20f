"""The back office's desk through the API: players and game recall, any round, voids with
the two-person rule for real money, cashier approvals with a reason, the kill switch and
limit changes from the next round, the thresholds, and each role's reach."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.server import significant
from baccarat.server.settings import DatabaseUrl

from ..harness import Api
from .conftest import both_backends
from .office import Member, kinds, logged_in, send
from .support import PLAYER_WINS, StackedShoes, funded
from .support import error_code as code

pytestmark = pytest.mark.anyio


async def get(api: Api, member: Member, path: str) -> Any:
    return await api.client.get(f"/admin/api/{path}", headers=member.headers)


@both_backends
async def test_support_finds_a_player_and_recalls_the_last_ten_rounds_as_played(
    api: Api,
) -> None:
    token = await api.player("alice")
    await api.player("alfred")
    played = [(await api.play(token, player=500)).json() for _ in range(12)]
    sam = await logged_in(api, "sam", "support")
    found = (await get(api, sam, "players?q=AL")).json()["players"]
    assert [p["nickname"] for p in found] == ["alfred", "alice"]
    alice_id = found[1]["id"]
    assert (await get(api, sam, f"players?q={alice_id}")).json()["players"][0]["id"] == alice_id
    assert (await get(api, sam, "players?q=a_")).json()["players"] == []  # _ is no wildcard
    card = (await get(api, sam, f"players/{alice_id}")).json()
    assert card["player"]["nickname"] == "alice" and card["balances"]["real"] == 0
    assert card["balances"]["fun"] == played[-1]["balance_after"]
    recall = card["recall"]
    assert [r["id"] for r in recall] == [p["id"] for p in reversed(played[-10:])]
    newest = recall[0]
    assert newest["player"]["cards"] == played[-1]["player"]["cards"]
    assert newest["bets"] == played[-1]["bets"]
    assert newest["balance_before"] == played[-2]["balance_after"]
    assert {"commitment", "client_seed", "nonce"} <= newest["fairness"].keys()
    assert len(card["sessions"]) == 1 and "limits" in card["responsible"]
    # Looking at a player's card is itself audited.
    again = (await get(api, sam, f"players/{alice_id}")).json()
    assert [a["action"] for a in again["staff_audit"]] == ["player_viewed"]
    one = (await get(api, sam, f"rounds/{played[0]['id']}")).json()
    assert one["round"]["id"] == played[0]["id"] and one["player"]["nickname"] == "alice"
    assert (await get(api, sam, "rounds/r_00000000000000000000")).status_code == 404
    assert (await get(api, sam, "players/999")).status_code == 404


async def test_a_play_money_void_is_done_at_once_with_its_reason(api: Api) -> None:
    token = await api.player("alice")
    round_id = (await api.play(token, player=500)).json()["id"]
    sam = await logged_in(api, "sam", "support")
    missing = await send(api, sam, "POST", f"rounds/{round_id}/void", {"reason": " "})
    assert missing.status_code == 422 and code(missing) == "reason_required"
    done = await send(api, sam, "POST", f"rounds/{round_id}/void", {"reason": "table fault"})
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "void" and done.json()["round"]["void_reason"] == "table fault"
    assert "void" in await kinds(api)


@both_backends
async def test_a_real_money_void_needs_a_second_admin(api: Api) -> None:
    token = await funded(api)
    api.shoes.current = StackedShoes(PLAYER_WINS)
    round_id = (await api.play(token, mode="real", player=1_000)).json()["id"]
    fiona = await logged_in(api, "fiona", "finance")
    refused = await send(api, fiona, "POST", f"rounds/{round_id}/void", {"reason": "x"})
    assert refused.status_code == 403
    ada = await logged_in(api, "ada", "admin")
    proposed = await send(api, ada, "POST", f"rounds/{round_id}/void", {"reason": "dealer error"})
    assert proposed.json()["status"] == "proposed"
    proposal = proposed.json()["proposal"]
    twice = await send(api, ada, "POST", f"rounds/{round_id}/void", {"reason": "again"})
    assert code(twice) == "void_not_possible"
    sam = await logged_in(api, "sam", "support")
    assert (await get(api, sam, "voids")).json()["proposals"][0]["round"] == round_id
    decision = {"approve": True, "reason": "checked the logs"}
    assert (await send(api, sam, "POST", f"voids/{proposal}", decision)).status_code == 403
    same = await send(api, ada, "POST", f"voids/{proposal}", decision)
    assert same.status_code == 409 and code(same) == "same_person"
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert wallet.json()["real"] == 1_001_000  # not voided yet
    bob = await logged_in(api, "bob", "admin")
    done = await send(api, bob, "POST", f"voids/{proposal}", decision)
    assert done.status_code == 200 and done.json()["round"]["void_reason"] == "dealer error"
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert wallet.json()["real"] == 1_000_000
    audit = (await get(api, bob, f"audit?target=round:{round_id}")).json()["audit"]
    assert [(a["staff"], a["action"]) for a in audit] == [("bob", "void"), ("ada", "void_proposed")]
    assert {"void", "void_proposed"} <= set(await kinds(api))


async def test_finance_decides_deposits_with_a_reason_and_support_cannot(api: Api) -> None:
    token = await api.player("alice")
    asked = await api.client.post(
        "/api/wallet/deposits", json={"amount": 25_000}, headers=api.auth(token)
    )
    assert asked.status_code == 201, asked.text
    request_id = asked.json()["id"]
    sam = await logged_in(api, "sam", "support")
    assert (await get(api, sam, "cashier")).status_code == 403
    fiona = await logged_in(api, "fiona", "finance")
    (pending,) = (await get(api, fiona, "cashier")).json()["requests"]
    assert pending["nickname"] == "alice" and pending["amount"] == 25_000
    no_reason = await send(api, fiona, "POST", f"cashier/{request_id}", {"approve": True})
    assert no_reason.status_code == 422
    done = await send(api, fiona, "POST", f"cashier/{request_id}",
                      {"approve": True, "reason": "bank transfer 4711 received"})  # fmt: skip
    assert done.status_code == 200 and done.json()["status"] == "approved"
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert wallet.json()["real"] == 25_000
    again = await send(api, fiona, "POST", f"cashier/{request_id}",
                       {"approve": False, "reason": "oops"})  # fmt: skip
    assert code(again) == "request_not_pending"
    assert "adjustment" in await kinds(api)


async def test_the_command_line_approves_a_deposit_as_the_back_office_does(
    api: Api, database_url: DatabaseUrl, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main

    token = await api.player("alice")
    asked = await api.client.post(
        "/api/wallet/deposits", json={"amount": 25_000}, headers=api.auth(token)
    )
    request_id = str(asked.json()["id"])
    database = ["admin", "--database", f"sqlite:///{database_url.target}"]
    assert main([*database, "deposits", "approve", request_id, "--note", "wire 42"]) == 0
    assert "approved" in capsys.readouterr().out
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert wallet.json()["real"] == 25_000
    # The same significant event and audit entry as a decision in the back office.
    assert main([*database, "events", "--kind", "adjustment", "--json"]) == 0
    (event,) = json.loads(capsys.readouterr().out)
    assert event["actor"] == "system" and event["subject"].startswith("player:")
    expected = {"request": int(request_id), "status": "approved", "amount": 25_000,
                "by": "command line"}  # fmt: skip
    assert event["details"] | expected == event["details"]
    ada = await logged_in(api, "ada", "admin")
    (entry,) = (await get(api, ada, f"audit?target={event['subject']}")).json()["audit"]
    assert (entry["staff"], entry["action"], entry["reason"]) == (
        "command line", "deposit_approved", "wire 42",
    )  # fmt: skip


async def test_a_deposit_and_a_withdrawal_made_at_the_command_line_are_events_too(
    api: Api, database_url: DatabaseUrl, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main

    await api.player("bruno")
    database = ["admin", "--database", f"sqlite:///{database_url.target}"]
    assert main([*database, "deposit", "bruno", "30", "--memo", "wire 7"]) == 0
    assert main([*database, "withdraw", "bruno", "10"]) == 0
    capsys.readouterr()
    assert main([*database, "events", "--kind", "adjustment", "--json"]) == 0
    events = json.loads(capsys.readouterr().out)
    made = sorted((e["details"]["request_kind"], e["details"]["amount"]) for e in events)
    assert made == [("deposit", 3000), ("withdrawal", 1000)], events
    assert all(e["details"]["by"] == "command line" for e in events)


@both_backends
async def test_the_kill_switch_stops_new_rounds_until_the_table_is_on_again(api: Api) -> None:
    token = await api.player("alice")
    ada = await logged_in(api, "ada", "admin")
    sam = await logged_in(api, "sam", "support")
    off = {"enabled": False, "reason": "suspected shoe fault"}
    assert (await send(api, sam, "PUT", "tables/table-i/switch", off)).status_code == 403
    assert (await send(api, ada, "PUT", "tables/table-i/switch", off)).status_code == 200
    refused = await api.play(token, player=500)
    assert refused.status_code == 409 and code(refused) == "table_disabled"
    assert (await api.play(token, table="table-ii", player=500)).status_code == 201
    listed = {t["id"]: t for t in (await get(api, sam, "tables")).json()["tables"]}
    assert listed["table-i"]["enabled"] is False and listed["table-ii"]["enabled"] is True
    on = {"enabled": True, "reason": "shoe replaced"}
    assert (await send(api, ada, "PUT", "tables/table-i/switch", on)).status_code == 200
    assert (await api.play(token, player=500)).status_code == 201
    assert {"table_disabled", "table_enabled"} <= set(await kinds(api))
    missing = await send(api, ada, "PUT", "tables/nowhere/switch", on)
    assert missing.status_code == 404


@both_backends
async def test_a_switch_another_process_sets_holds_from_the_next_round(api: Api) -> None:
    """What is kept of a table's switch between rounds (SQLite's writer; on PostgreSQL each
    process) never outlives a change another process commits: the row is written here by
    plain SQL on another connection, as another worker or the CLI would, and each next
    round plays by it, refused or not."""
    token = await api.player("alice")

    def elsewhere(enabled: int, limits: str | None) -> None:
        with api.casino.db.transaction() as uow:  # this thread's own connection
            uow.run("DELETE FROM table_switches WHERE table_id = 'table-i'")
            uow.run("INSERT INTO table_switches (table_id, enabled, limits, updated_us) "
                    "VALUES ('table-i', :e, :l, 0)", {"e": enabled, "l": limits})  # fmt: skip

    limits = {"min": 1_000, "max": 500_000, "tie_min": 500, "tie_min_alone": 500, "tie_max": 50_000}
    assert (await api.play(token, player=500)).status_code == 201  # kept: no row
    elsewhere(0, None)
    assert code(await api.play(token, player=500)) == "table_disabled"
    elsewhere(1, None)
    assert (await api.play(token, player=500)).status_code == 201
    elsewhere(1, json.dumps(limits))
    assert code(await api.play(token, player=500)) == "bet_below_table_min"
    assert (await api.play(token, player=1_000)).status_code == 201  # kept: the higher min
    elsewhere(1, json.dumps(limits | {"min": 100}))
    assert (await api.play(token, player=500)).status_code == 201  # not refused by the kept min


@both_backends
async def test_the_lobby_and_the_table_show_a_closed_table_and_changed_limits(api: Api) -> None:
    """What the back office changes is what a player is shown: the lobby's tables, one
    table, and the player's state at it (read on every focus and after every round) say a
    table is closed and give its limits now, not the tables file's; a player in another
    currency keeps the table's own limits in it (as their rounds do)."""

    yen = await api.player("hanako", currency="JPY")
    token = await api.player("alice")  # the client's cookie is hers from here on
    auth, in_yen = {"Authorization": f"Bearer {token}"}, {"Authorization": f"Bearer {yen}"}
    assert (await api.play(token, player=500)).status_code == 201

    async def lobby(headers: dict[str, str] | None = None) -> dict[str, Any]:
        answer = await api.client.get("/api/tables", headers=headers or {})
        return {t["id"]: t for t in answer.json()}

    async def state(table: str) -> Any:
        return (await api.client.get(f"/api/tables/{table}/state", headers=auth)).json()

    before, yen_before = await lobby(), await lobby(in_yen)
    assert before["table-ii"]["open"] is True and before["table-i"]["limits"]["min"] == 200
    assert {"deal", "rebet", "double"} <= set((await state("table-i"))["allowed_actions"])
    ada = await logged_in(api, "ada", "admin")
    off = {"enabled": False, "reason": "dealer fault"}
    assert (await send(api, ada, "PUT", "tables/table-ii/switch", off)).status_code == 200
    raised = {"limits": {"min": 1_000}, "reason": "high rollers tonight"}
    assert (await send(api, ada, "PUT", "tables/table-i/limits", raised)).status_code == 200
    for shown in (await lobby(), await lobby(auth)):
        assert shown["table-ii"]["open"] is False and shown["table-i"]["open"] is True
        assert shown["table-i"]["limits"]["min"] == 1_000
        assert shown["table-i"]["bets"]["player"]["min"] == 1_000
        assert shown["table-iii"]["limits"] == before["table-iii"]["limits"]
    one = (await api.client.get("/api/tables/table-i")).json()
    assert one["limits"]["min"] == 1_000 and one["open"] is True
    assert (await api.client.get("/api/tables/table-ii")).json()["open"] is False
    closed = await state("table-ii")
    assert closed["open"] is False and closed["allowed_actions"] == []
    now = await state("table-i")
    assert now["limits"]["min"] == 1_000 and now["bets"]["player"]["min"] == 1_000
    # The last round's 500 is below the minimum now: no rebet; twice it, 1,000, is not.
    assert set(now["allowed_actions"]) == {"deal", "new_game", "double"}
    # In yen, table I keeps its own limits (changed limits are in dollars).
    assert (await lobby(in_yen))["table-i"]["limits"] == yen_before["table-i"]["limits"]
    assert (await send(api, ada, "PUT", "tables/table-i/switch", off)).status_code == 200
    assert (await lobby(in_yen))["table-i"]["open"] is False
    on = {"enabled": True, "reason": "fixed"}
    assert (await send(api, ada, "PUT", "tables/table-ii/switch", on)).status_code == 200
    assert (await lobby())["table-ii"]["open"] is True
    assert "deal" in (await state("table-ii"))["allowed_actions"]


async def test_the_kill_switch_and_limits_hold_at_a_shared_table_too(api: Api) -> None:
    from .sharedtables import bet, open_window

    token = await api.player("alice")
    ada = await logged_in(api, "ada", "admin")
    coup = await open_window(api)
    assert (await bet(api, token, coup, player=500)).status_code == 200
    off = {"enabled": False, "reason": "dealer fault"}
    assert (await send(api, ada, "PUT", "tables/speed/switch", off)).status_code == 200
    refused = await bet(api, token, coup, player=1_000)
    assert (refused.status_code, code(refused)) == (409, "table_disabled")
    assert (await bet(api, token, coup)).status_code == 200  # withdrawing still works
    on = {"enabled": True, "reason": "fixed"}
    assert (await send(api, ada, "PUT", "tables/speed/switch", on)).status_code == 200
    raised = {"limits": {"min": 1_000}, "reason": "busy night"}
    assert (await send(api, ada, "PUT", "tables/speed/limits", raised)).status_code == 200
    low = await bet(api, token, coup, player=500)
    assert (low.status_code, code(low)) == (422, "bet_below_table_min"), low.text
    assert (await bet(api, token, coup, player=1_000)).status_code == 200


async def test_new_limits_apply_from_the_next_round_and_are_an_event(api: Api) -> None:
    token = await api.player("alice")
    ada = await logged_in(api, "ada", "admin")
    assert (await api.play(token, player=500)).status_code == 201
    changed = await send(api, ada, "PUT", "tables/table-i/limits",
                         {"limits": {"min": 1_000}, "reason": "high rollers tonight"})  # fmt: skip
    assert changed.status_code == 200, changed.text
    refused = await api.play(token, player=500)
    assert code(refused) == "bet_below_table_min"
    assert (await api.play(token, player=1_000)).status_code == 201
    bad = await send(api, ada, "PUT", "tables/table-i/limits",
                     {"limits": {"min": 10**9}, "reason": "typo"})  # fmt: skip
    assert bad.status_code == 422 and code(bad) == "invalid_limit"
    back = await send(api, ada, "PUT", "tables/table-i/limits", {"limits": None, "reason": "done"})
    assert back.status_code == 200
    assert (await api.play(token, player=500)).status_code == 201
    assert (await kinds(api)).count("limits_changed") == 2


async def test_the_thresholds_are_an_admins_and_their_change_is_an_event(api: Api) -> None:
    fiona = await logged_in(api, "fiona", "finance")
    body = {"large_win": 50_000, "reason": "regulator's letter"}
    assert (await send(api, fiona, "PUT", "settings", body)).status_code == 403
    ada = await logged_in(api, "ada", "admin")
    answer = await send(api, ada, "PUT", "settings", body)
    assert answer.json()["large_win"] == 50_000
    assert answer.json()["large_wager"] == significant.THRESHOLDS["large_wager"]
    assert (await get(api, fiona, "settings")).json()["large_win"] == 50_000
    assert "configuration_changed" in await kinds(api)
    significant.forget_thresholds()


async def test_each_currency_has_its_own_thresholds_and_a_round_is_compared_with_its_own(
    api: Api,
) -> None:
    """A real-money round in SEK is compared with SEK's thresholds (öre), set by an admin;
    until they are, HOME's figures stand for SEK, and the settings say so (``own``)."""
    from baccarat.server import wallet

    from .support import put

    sven = await api.player("sven", currency="SEK")

    def deposit(uow: Any) -> None:
        sven_id = int(uow.scalar("SELECT id FROM players WHERE nickname = 'sven'"))
        wallet.deposit(uow, sven_id, 1_000_000, api.casino.system)

    await api.casino.db.write(deposit)
    assert (await put(api, sven, "/reality-check", {"minutes": 1440})).status_code == 200
    ada = await logged_in(api, "ada", "admin")
    home = significant.THRESHOLDS
    shown = (await get(api, ada, "settings")).json()
    assert shown["currencies"]["SEK"] == {**home, "own": False}
    assert {"EUR", "JPY", "DKK"} <= shown["currencies"].keys() and "USD" not in shown["currencies"]
    body = {"large_win": 5_000, "large_wager": 100_000, "currency": "SEK", "reason": "SGA"}
    answer = await send(api, ada, "PUT", "settings", body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["currencies"]["SEK"] == {"large_win": 5_000, "large_wager": 100_000,
                                                  "own": True}  # fmt: skip
    assert (answer.json()["large_win"], answer.json()["large_wager"]) == (
        home["large_win"], home["large_wager"],
    )  # fmt: skip
    api.shoes.current = StackedShoes(PLAYER_WINS)
    # 100 SEK on Player wins 100 SEK: 10,000 öre, at SEK's 5,000 a large win; HOME's figure
    # (1,000,000) would have missed it.
    assert (await api.play(sven, mode="real", player=10_000)).status_code == 201
    wins = await api.casino.db.read(lambda uow: significant.listed(uow, kind="large_win"))
    assert [(e.details["currency"], e.details["returned"]) for e in wins] == [("SEK", 20_000)]
    bad = await send(api, ada, "PUT", "settings", body | {"currency": "XQQ"})
    assert (bad.status_code, code(bad)) == (422, "unsupported_currency")
    significant.forget_thresholds()


# Each read route and the roles it answers (the others: 403).
ROLE_ROUTES = {
    "players?q=al": {"support", "admin"},
    "rounds/r_00000000000000000000": {"support", "admin"},  # 404 for them: no such round
    "voids": {"support", "admin"},
    "cashier": {"finance", "admin"},
    "tables": {"viewer", "support", "finance", "admin"},
    "settings": {"viewer", "support", "finance", "admin"},
    "reports/ggr": {"viewer", "finance", "admin"},
    "reports/rtp": {"viewer", "finance", "admin"},
    "reports/liability": {"viewer", "finance", "admin"},
    "events": {"viewer", "support", "finance", "admin"},
    "audit": {"admin"},
    "staff": {"admin"},
}


async def test_each_role_reaches_what_its_permissions_say_and_nothing_else(api: Api) -> None:
    members = {role: await logged_in(api, f"st-{role}", role) for role in ROLE_ROUTES["tables"]}
    for path, allowed in ROLE_ROUTES.items():
        for role, member in members.items():
            answer = await get(api, member, path)
            if role in allowed:
                assert answer.status_code in (200, 404), (path, role, answer.text)
            else:
                assert answer.status_code == 403 and code(answer) == "forbidden", (path, role)


async def test_changed_limits_are_in_dollars_and_leave_the_tables_yen_limits(api: Api) -> None:

    yen = await api.player("hanako", currency="JPY")
    ada = await logged_in(api, "ada", "admin")
    changed = await send(api, ada, "PUT", "tables/table-i/limits",
                         {"limits": {"min": 1_000}, "reason": "high rollers tonight"})  # fmt: skip
    assert changed.status_code == 200, changed.text
    # Table I in yen: 300 to 3,000 (its file's), not a minimum of 1,000 yen.
    assert (await api.play(yen, player=300)).status_code == 201
    assert code(await api.play(yen, player=3_100)) == "bet_above_table_max"
