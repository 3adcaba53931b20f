"""Our own wallet in a player's currency: a player's accounts are in the currency chosen at
registration (USD before), the casino keeps its own accounts in each currency a table has
limits in, a round is played at the table's limits in that currency and moves money
between accounts of it alone, and the tables offered are those with limits in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Status, verify_history
from baccarat.server import check as audit
from baccarat.server import ledger, wallet

from ..harness import Api
from .office import logged_in
from .support import operator_launched

pytestmark = pytest.mark.anyio
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def entries_by_currency(api: Api) -> dict[tuple[str, str, str], int]:
    rows = api.casino.db.run_read(
        lambda uow: uow.all(
            "SELECT a.currency, a.mode, a.kind, COALESCE(SUM(e.amount), 0) FROM accounts a "
            "LEFT JOIN ledger_entries e ON e.account_id = a.id GROUP BY a.currency, a.mode, a.kind"
        )
    )
    return {(c, m, k): int(total) for c, m, k, total in rows}  # fmt: skip


@SQLITE
async def test_a_yen_player_has_three_tables_a_cut_shoe_among_them(api: Api) -> None:
    token = await api.player("kenji", currency="JPY")
    listed = (await api.client.get("/api/tables", headers=api.auth(token, None))).json()
    offered = {t["id"]: t for t in listed}
    assert {"table-i", "table-ii", "mini"} <= set(offered), sorted(offered)
    assert offered["mini"]["limits"]["min"] == 100 and offered["table-ii"]["limits"]["min"] == 500
    for table in ("table-i", "table-ii"):
        played = await api.play(token, table=table, banker=500)
        assert (played.status_code, played.json()["currency"]) == (201, "JPY"), played.text
    # The history's amounts are the player's yen, and the page says so.
    page = (await api.client.get("/api/history", headers=api.auth(token, None))).json()
    assert (page["currency"], len(page["items"])) == ("JPY", 2)
    # So does each line of the export, which verifies (its seed revealed) as any other.
    await api.client.post("/api/fairness/rotate", json={"mode": "fun"}, headers=api.auth(token))
    exported = await api.client.get("/api/history/export?mode=fun", headers=api.auth(token, None))
    lines = exported.text.splitlines()
    assert [json.loads(line)["currency"] for line in lines] == ["JPY", "JPY"]
    records = parse_history(lines)
    assert [r.currency for r in records] == ["JPY", "JPY"]
    report = verify_history(records)
    assert [r.status for r in report.rounds] == [Status.VERIFIED] * 2, report.summary()


@SQLITE
async def test_a_player_in_yen_plays_at_the_tables_yen_limits_with_the_casinos_yen(
    api: Api,
) -> None:
    token = await api.player("hanako", currency="JPY")
    wallet = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()
    assert (wallet["currency"], wallet["fun"], wallet["real"]) == ("JPY", 100_000, 0)
    listed = (await api.client.get("/api/tables", headers=api.auth(token, None))).json()
    assert {t["currency"] for t in listed} == {"JPY"}
    table_i = next(t for t in listed if t["id"] == "table-i")
    assert table_i["chips"] == [100, 500, 2500, 10000]
    assert (table_i["limits"]["min"], table_i["limits"]["max"]) == (300, 3000)
    offered = {t["id"] for t in listed}
    assert "table-iii" not in offered and not {"speed", "banked-i"} & offered
    # 3,000 yen is the table's maximum in yen (30.00 would be above it in dollars) ...
    played = await api.play(token, banker=3000)
    assert played.status_code == 201, played.text
    # ... and 200 yen below its minimum (2.00 is its minimum in dollars)
    below = await api.play(token, banker=200)
    assert below.json()["error"]["code"] == "bet_below_table_min"
    elsewhere = await api.play(token, table="table-iii", banker=300)
    assert (elsewhere.status_code, elsewhere.json()["error"]["code"]) == (
        422, "unsupported_currency")  # fmt: skip
    # The round's money moved between yen accounts alone, and the ledger balances.
    net = int((await api.client.get("/api/wallet", headers=api.auth(token, None))).json()["fun"])
    totals = entries_by_currency(api)
    assert totals[("JPY", "fun", "player")] == net
    assert totals[("JPY", "fun", "house")] == 100_000 - net
    assert totals[("JPY", "fun", "cashier")] == -100_000
    assert totals[("USD", "fun", "house")] == 0
    report = api.casino.db.run_read(audit.check)
    assert report.ok, report.problems
    # A transaction between a yen and a dollar account is what the audit finds.
    system = api.casino.system
    api.casino.db.run_write(lambda uow: ledger.transfer(
        uow, "grant", "fun", system.get("fun", "cashier"),
        system.get("fun", "house", "JPY"), 100, system=system))  # fmt: skip
    (problem,) = api.casino.db.run_read(audit.check).problems
    assert problem.endswith("moves money between accounts of different currencies")


@SQLITE
async def test_a_player_of_before_is_in_dollars_and_sees_every_table(api: Api) -> None:
    token = await api.player("olduser")
    wallet = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()
    assert wallet["currency"] == "USD"
    listed = (await api.client.get("/api/tables", headers=api.auth(token, None))).json()
    assert len(listed) == len(api.casino.tables)
    assert {t["currency"] for t in listed} == {"USD"}
    assert (await api.play(token, banker=3000)).json()["error"]["code"] == "bet_above_table_max"


@SQLITE
async def test_a_currency_no_table_has_limits_in_is_refused_at_registration(api: Api) -> None:
    for currency, code in (("CHF", "unsupported_currency"), ("XYZ", "unsupported_currency"),
                           ("euro", "invalid_body")):  # fmt: skip
        refused = await api.client.post(
            "/api/accounts",
            json={"nickname": "franz", "password": "a good password", "currency": currency},
        )
        assert (refused.status_code, refused.json()["error"]["code"]) == (422, code), currency
    assert api.casino.db.run_read(lambda uow: uow.scalar("SELECT count(*) FROM players")) == 0


@SQLITE
async def test_shared_and_player_banked_tables_play_in_dollars_alone(api: Api) -> None:
    token = await api.player("sven", currency="SEK")
    seat = await api.client.post(
        "/api/seats",
        headers=api.auth(token, None),
        json={"table_id": "banked-i", "role": "player", "mode": "fun"},
    )
    assert seat.json()["error"]["code"] == "unsupported_currency"
    state = (await api.client.get("/api/tables/speed/state")).json()
    coup = state["coup"]["number"] if isinstance(state.get("coup"), dict) else 1
    bet = await api.client.put(f"/api/tables/speed/coups/{coup}/bets", headers=api.auth(token),
                               json={"mode": "fun", "bets": {"banker": 2000}})  # fmt: skip
    assert bet.json()["error"]["code"] == "unsupported_currency"


def test_the_migration_puts_the_accounts_of_before_in_dollars(tmp_path: Path) -> None:
    import sqlite3

    from baccarat.server.db import migrate
    from baccarat.server.settings import DatabaseUrl

    url = DatabaseUrl.sqlite_in(tmp_path / "data")
    assert migrate.upgrade(url, "0013") == "0013"
    conn = sqlite3.connect(url.target)
    conn.execute("INSERT INTO players (nickname, nickname_key, password_hash, created_us) "
                 "VALUES ('ann', 'ann', 'h', 0)")  # fmt: skip
    conn.execute("INSERT INTO accounts (player_id, mode, kind, balance, version) "
                 "VALUES (1, 'real', 'player', 0, 0)")  # fmt: skip
    conn.commit()
    conn.close()
    assert migrate.upgrade(url) == migrate.revisions()[0]
    conn = sqlite3.connect(url.target)
    assert {c for (c,) in conn.execute("SELECT DISTINCT currency FROM accounts")} == {"USD"}
    conn.close()


@SQLITE
async def test_a_yen_players_cashier_request_is_in_yen_and_says_so(api: Api) -> None:
    token = await api.player("kaito", currency="JPY")
    asked = await api.client.post("/api/wallet/deposits", json={"amount": 100},
                                  headers=api.auth(token))  # fmt: skip
    assert asked.status_code == 201, asked.text
    assert (asked.json()["amount"], asked.json()["currency"]) == (100, "JPY")
    listed = (await api.client.get("/api/wallet/deposits", headers=api.auth(token, None))).json()
    assert [(r["amount"], r["currency"]) for r in listed] == [(100, "JPY")]
    # The back office's list of requests, of players in every currency, says each one's.
    staff = await logged_in(api, "carol", "admin")
    desk = (await api.client.get("/admin/api/cashier", headers=staff.headers)).json()
    assert [(r["nickname"], r["amount"], r["currency"]) for r in desk["requests"]] == [
        ("kaito", 100, "JPY")
    ]
    system = api.casino.system
    await api.casino.db.write(lambda uow: wallet.decide(uow, asked.json()["id"], True, system))
    held = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()
    assert (held["real"], held["currency"]) == (100, "JPY")  # one hundred yen, not 10,000


@SQLITE
async def test_every_answer_about_a_table_is_in_the_players_currency_and_they_agree(
    api: Api,
) -> None:
    token = await api.player("yui", currency="JPY")
    headers = api.auth(token, None)
    listed = next(t for t in (await api.client.get("/api/tables", headers=headers)).json()
                  if t["id"] == "table-i")  # fmt: skip
    one = (await api.client.get("/api/tables/table-i", headers=headers)).json()
    state = (await api.client.get("/api/tables/table-i/state?mode=fun", headers=headers)).json()
    for answer in (listed, one, state):
        assert answer["currency"] == "JPY"
        assert (answer["limits"]["min"], answer["limits"]["max"]) == (300, 3000)
        assert (answer["bets"]["banker"]["min"], answer["bets"]["banker"]["max"]) == (300, 3000)
    assert one["chips"] == listed["chips"] == [100, 500, 2500, 10000]
    # The bet check is the same table's: 2,500 yen is a bet, 200 yen is not (said in yen).
    played = await api.play(token, banker=2500)
    assert played.status_code == 201, played.text
    assert played.json()["currency"] == "JPY"
    error = (await api.play(token, banker=200)).json()["error"]
    assert error["details"] == {"bet": "banker", "stake": 200, "min": 300, "currency": "JPY"}
    assert error["message"] == "the banker bet ¥200 is below the table minimum ¥300"
    error = (await api.play(token, banker=300, tie=4000)).json()["error"]
    assert error["message"] == "the tie bet ¥4,000 is above the maximum ¥3,000"
    error = (await api.play(token, mode="real", banker=300)).json()["error"]
    assert error["message"] == "the stake ¥300 exceeds the real balance ¥0"
    # A table without limits in yen is not shown to a yen player in dollars.
    other = await api.client.get("/api/tables/table-iii", headers=headers)
    assert (other.status_code, other.json()["error"]["code"]) == (422, "unsupported_currency")
    # A visitor sees the table in dollars, and is told so; the lobby's answers vary by caller.
    api.client.cookies.clear()  # (the client kept the session's cookie)
    seen = await api.client.get("/api/tables/table-i")
    assert (seen.json()["currency"], seen.json()["limits"]["min"]) == ("USD", 200)
    assert "Cookie" in seen.headers["vary"] and "Authorization" in seen.headers["vary"]
    dollars = await api.player("dan")
    error = (await api.play(dollars, banker=100)).json()["error"]
    assert error["message"] == "the banker bet $1.00 is below the table minimum $2.00"


@SQLITE
async def test_an_operators_yen_session_reads_the_table_in_yen(api: Api) -> None:
    started = await operator_launched(api, "JPY", demo=True)
    headers = {"Authorization": f"Bearer {started.token}"}
    one = (await api.client.get("/api/tables/table-i", headers=headers)).json()
    state = (await api.client.get("/api/tables/table-i/state?mode=fun", headers=headers)).json()
    for answer in (one, state):
        assert answer["currency"] == "JPY"
        assert (answer["limits"]["min"], answer["limits"]["max"]) == (300, 3000)


@SQLITE
async def test_a_yen_top_up_says_what_it_fills_up_to_in_yen(api: Api) -> None:
    token = await api.player("sora", currency="JPY")
    full = await api.client.post("/api/wallet/fun/top-up", headers=api.auth(token))
    assert full.status_code == 200, full.text
    answer = full.json()
    assert (answer["added"], answer["fun"], answer["up_to"], answer["currency"]) == (
        0, 100_000, 100_000, "JPY")  # fmt: skip
