"""The back office's reports: kept as rounds are recorded, read from the daily aggregates
only, voids taken off, the RTP band from the exact analyser, CSV of every table."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction
from typing import Any

import anyio
import pytest

from baccarat.analysis.exact import analyse
from baccarat.core import Outcome, get_rules
from baccarat.server import daily, significant, voids
from baccarat.server.office import reports
from baccarat.server.settings import DatabaseUrl

from ..harness import Api
from .conftest import both_backends
from .office import logged_in
from .support import BANKER_WINS, PLAYER_WINS, StackedShoes

pytestmark = pytest.mark.anyio


async def get(api: Api, headers: dict[str, str], path: str) -> Any:
    answer = await api.client.get(path, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer


def test_the_band_uses_the_exact_standard_deviations_of_each_bet() -> None:
    # From the three outcomes' exact chances (8 decks, banker 0.95, tie 8:1), by hand.
    rules = get_rules("online-8deck-tie8")
    chance = {o: analyse(rules).probability(o) for o in Outcome}
    b, p, t = chance[Outcome.BANKER], chance[Outcome.PLAYER], chance[Outcome.TIE]
    by_hand = {
        "banker": (Fraction(95, 100), b, p),  # pay, chance of winning, of losing
        "player": (Fraction(1), p, b),
        "tie": (Fraction(8), t, b + p),
    }
    moments = reports.unit_moments(rules)
    for bet, (pay, win, lose) in by_hand.items():
        mean = pay * win - lose
        sd = float(pay * pay * win + lose - mean * mean) ** 0.5
        assert moments[bet] == (1 + mean, pytest.approx(sd, abs=1e-12))
    assert round(moments["banker"][1], 4) == 0.9274 and round(moments["tie"][1], 4) == 2.6409


@both_backends
async def test_ggr_and_rtp_come_from_the_rounds_as_played_and_a_void_leaves_them(
    api: Api,
) -> None:
    token = await api.player("alice")
    api.shoes.current = StackedShoes(BANKER_WINS)
    for _ in range(3):
        assert (await api.play(token, banker=1_000, player=500)).status_code == 201
    api.shoes.current = StackedShoes(PLAYER_WINS)
    played = await api.play(token, player=2_000)
    assert played.status_code == 201
    finance = await logged_in(api, "fiona", "finance")
    by_day = (await get(api, finance.headers, "/admin/api/reports/ggr?by=day")).json()
    (today,) = by_day["ggr-by-day"]
    # Stakes 3 x 1,500 + 2,000; returns 3 x 1,950 (banker pays 0.95) + 4,000.
    assert today["rounds"] == 4 and today["stake"] == 6_500 and today["returned"] == 9_850
    assert today["ggr"] == -3_350 and today["mode"] == "fun"
    by_bet = (await get(api, finance.headers, "/admin/api/reports/ggr?by=bet")).json()
    assert {r["bet"]: (r["rounds"], r["stake"]) for r in by_bet["ggr-by-bet"]} == {
        "banker": (3, 3_000), "player": (4, 3_500),
    }  # fmt: skip

    round_id = played.json()["id"]
    await api.casino.db.write(
        lambda uow: voids.void_round(uow, api.casino.dealer, round_id, "test void")
    )
    (today,) = (await get(api, finance.headers, "/admin/api/reports/ggr")).json()["ggr-by-day"]
    assert (today["rounds"], today["stake"], today["voided"]) == (3, 4_500, 1)

    rtp = (await get(api, finance.headers, "/admin/api/reports/rtp?period=day")).json()
    rows = {r["bet"]: r for r in rtp["rtp-day"]}
    banker = rows["banker"]
    assert banker["actual"] == pytest.approx(1.95) and banker["alarm"] is False
    assert banker["low"] < banker["theoretical"] < banker["high"]
    # Three bets of 10.00: the band is 3 SD / sqrt(3) either side.
    sd = reports.unit_moments(get_rules("online-6deck-tie9"))["banker"][1]
    assert banker["high"] - banker["theoretical"] == pytest.approx(3 * sd / 3**0.5)
    # Twelve banker wins in a row leave the band (3 SD / sqrt(12) = 0.80): the alarm.
    api.shoes.current = StackedShoes(BANKER_WINS)
    for _ in range(9):
        assert (await api.play(token, banker=1_000)).status_code == 201
    rtp = (await get(api, finance.headers, "/admin/api/reports/rtp?period=month")).json()
    banker = {r["bet"]: r for r in rtp["rtp-month"]}["banker"]
    assert banker["bets"] == 12 and banker["high"] < 1.95 and banker["alarm"] is True


async def test_every_report_downloads_as_csv(api: Api) -> None:
    token = await api.player("alice")
    assert (await api.play(token, player=500)).status_code == 201
    admin = await logged_in(api, "ada", "admin")
    for path in ("ggr?by=table", "rtp?period=life", "liability", "events/large_win"):
        json_rows = (await get(api, admin.headers, f"/admin/api/reports/{path}")).json()
        (rows,) = json_rows.values()
        sep = "&" if "?" in path else "?"
        answer = await get(api, admin.headers, f"/admin/api/reports/{path}{sep}format=csv")
        assert answer.headers["content-type"].startswith("text/csv")
        assert "attachment" in answer.headers["content-disposition"]
        parsed = list(csv.DictReader(io.StringIO(answer.text)))
        assert len(parsed) == len(rows)
        for row, original in zip(parsed, rows, strict=True):
            assert row.keys() == original.keys()


async def test_reports_are_for_viewers_finance_and_admins_only(api: Api) -> None:
    support = await logged_in(api, "sam", "support")
    for path in ("ggr", "rtp", "liability", "events/void"):
        answer = await api.client.get(f"/admin/api/reports/{path}", headers=support.headers)
        assert answer.status_code == 403, path
    viewer = await logged_in(api, "vic", "viewer")
    assert (await api.client.get("/admin/api/reports/rtp", headers=viewer.headers)).is_success


async def test_reports_read_the_aggregates_never_the_rounds(api: Api, monkeypatch: Any) -> None:
    token = await api.player("alice")
    assert (await api.play(token, player=500)).status_code == 201
    admin = await logged_in(api, "ada", "admin")
    from baccarat.server.db.uow import UnitOfWork

    seen: list[str] = []
    original = UnitOfWork.execute

    def execute(self: UnitOfWork, sql: str, params: Any = None) -> Any:
        seen.append(sql)
        return original(self, sql, params)

    monkeypatch.setattr(UnitOfWork, "execute", execute)
    for path in ("ggr?by=day", "ggr?by=bet", "rtp?period=life", "liability"):
        await get(api, admin.headers, f"/admin/api/reports/{path}")
    assert seen and not [sql for sql in seen if "rounds " in sql.replace("(", " ") + " "]
    assert any("daily_stats" in sql for sql in seen)


async def test_a_large_real_win_is_a_significant_event(api: Api) -> None:
    from .support import funded

    token = await funded(api, real=5_000_000)
    await api.casino.db.write(
        lambda uow: uow.run(
            "INSERT INTO office_settings (key, value, updated_us) VALUES ('large_win', '900', 0)"
        )
    )
    significant.forget_thresholds()
    api.shoes.current = StackedShoes(PLAYER_WINS)
    assert (await api.play(token, mode="real", player=1_000)).status_code == 201
    assert (await api.play(token, mode="fun", player=1_000)).status_code == 201  # fun: none
    significant.forget_thresholds()
    admin = await logged_in(api, "ada", "admin")
    rows = (await get(api, admin.headers, "/admin/api/reports/events/large_win")).json()
    (win,) = rows["large_win"]
    assert win["stake"] == 1_000 and win["returned"] == 2_000 and win["actor"].startswith("player:")


COUNTS = ("rounds", "stake", "returned", "stake_sq", "voided")


@both_backends
async def test_rebuilding_the_aggregates_from_the_rounds_gives_what_the_rounds_kept(
    api: Api,
) -> None:
    token = await api.player("alice")
    assert (await api.play(token, banker=500)).status_code == 201
    assert (await api.play(token, player=1_000, tie=500)).status_code == 201
    assert (await api.play(token, banker=200)).status_code == 201
    first = (await api.play(token, player=300)).json()["id"]
    await api.casino.db.write(
        lambda uow: voids.void_round(uow, api.casino.dealer, first, "test void")
    )

    def snapshot(uow: Any) -> list[Any]:
        # Summed over the shards (PostgreSQL's connections each add to their own).
        return uow.all(
            "SELECT day, table_id, mode, bet, "
            + ", ".join(f"CAST(SUM({n}) AS BIGINT)" for n in COUNTS)
            + " FROM daily_stats "
            "GROUP BY day, table_id, mode, bet ORDER BY day, table_id, mode, bet"
        )

    kept = await api.casino.db.read(snapshot)
    assert await api.casino.db.write(lambda uow: daily.rebuild(uow, batch=2)) == 4
    assert await api.casino.db.read(snapshot) == kept
    assert json.dumps(kept)  # plain values


async def test_amounts_of_different_currencies_are_never_added_together(api: Api) -> None:

    dollars, euros = await api.player("alice"), await api.player("emil", currency="EUR")
    api.shoes.current = StackedShoes(BANKER_WINS)
    assert (await api.play(dollars, banker=1_000)).status_code == 201
    assert (await api.play(euros, banker=500)).status_code == 201
    assert (await api.play(euros, player=500)).status_code == 201
    void_id = (await api.play(euros, banker=700)).json()["id"]
    await api.casino.db.write(
        lambda uow: voids.void_round(uow, api.casino.dealer, void_id, "test void")
    )
    finance = await logged_in(api, "fiona", "finance")
    for by in ("mode", "currency", "day", "table"):
        rows = (await get(api, finance.headers, f"/admin/api/reports/ggr?by={by}")).json()
        found = {r["currency"]: (r["rounds"], r["stake"], r["ggr"], r["voided"])
                 for r in rows[f"ggr-by-{by}"]}  # fmt: skip
        # Banker wins: 10.00 returns 19.50; 5.00 returns 9.75 and the player bet loses.
        assert found == {"USD": (1, 1_000, -950, 0), "EUR": (2, 1_000, 25, 1)}, by
    rtp = (await get(api, finance.headers, "/admin/api/reports/rtp?period=day")).json()
    banker = {
        r["currency"]: (r["bets"], r["stake"]) for r in rtp["rtp-day"] if r["bet"] == "banker"
    }
    assert banker == {"USD": (1, 1_000), "EUR": (1, 500)}
    held = (await get(api, finance.headers, "/admin/api/reports/liability")).json()["liability"]
    balances = {(r["mode"], r["currency"]): r["balances"] for r in held}
    for token, currency in ((dollars, "USD"), (euros, "EUR")):
        wallet = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()
        assert balances[("fun", currency)] == wallet["fun"]

    # The rebuild from the rounds finds each round's currency again.
    def snapshot(uow: Any) -> list[Any]:
        return uow.all("SELECT * FROM daily_stats ORDER BY day, table_id, mode, bet, currency")

    kept = await api.casino.db.read(snapshot)
    await api.casino.db.write(daily.rebuild)
    assert await api.casino.db.read(snapshot) == kept


async def _ggr(api: Api, headers: dict[str, str], by: str) -> list[dict[str, Any]]:
    answer = await get(api, headers, f"/admin/api/reports/ggr?by={by}")
    rows: list[dict[str, Any]] = answer.json()[f"ggr-by-{by}"]
    return rows


@both_backends
async def test_the_ggr_report_is_what_the_ledger_gave_the_house_at_every_kind_of_table(
    api: Api, database_url: DatabaseUrl
) -> None:
    """House rounds, a shared table's coup and player-banked rounds (one voided): the GGR of
    every view is, to the cent, what ``baccarat admin check`` finds in the house's account;
    at the player-banked table that is the casino's fee, not the bettor's losses."""
    from baccarat.server import check as audit
    from baccarat.server.kinds.banked.terms import fee_for

    from .sharedtables import bet, close_and_deal, open_window

    alice, bob = await api.player("alice"), await api.player("bob")
    carol = await api.player("carol")
    api.shoes.current = StackedShoes(BANKER_WINS)
    assert (await api.play(alice, banker=1_000, player=500)).status_code == 201
    assert (await api.play(alice, player=700)).status_code == 201
    coup = await open_window(api)
    assert (await bet(api, alice, coup, player=1_000)).status_code == 200
    assert (await bet(api, bob, coup, banker=2_000)).status_code == 200
    await close_and_deal(api)

    async def join(token: str, role: str, **extra: Any) -> Any:
        body = {"table_id": "banked-i", "role": role, "mode": "fun"} | extra
        answer = await api.client.post("/api/seats", json=body, headers=api.auth(token, None))
        assert answer.status_code == 201, answer.text
        return answer.json()["seat"]["id"]

    await join(carol, "banker", auto_approve=True)
    seat = await join(bob, "player")
    dealt = []
    for stake in (2_000, 1_000, 1_500):  # the player's bets lose to the banker
        answer = await api.client.post(f"/api/seats/{seat}/deal", json={"bets": {"player": stake}},
                                       headers=api.auth(bob))  # fmt: skip
        assert answer.status_code == 201, answer.text
        dealt.append(answer.json()["id"])
    await api.casino.db.write(
        lambda uow: voids.void_round(uow, api.casino.dealer, dealt[-1], "misdeal")
    )
    ledger = (await api.casino.db.read(audit.check)).totals["fun"]["house"]
    finance = await logged_in(api, "fiona", "finance")
    for by in ("day", "table", "bet", "mode", "currency"):
        rows = await _ggr(api, finance.headers, by)
        assert sum(r["ggr"] for r in rows) == ledger, (by, rows)
    banked = {r["table"]: r for r in await _ggr(api, finance.headers, "table")}["banked-i"]
    fees = fee_for(2_000) + fee_for(1_000)
    assert (banked["banker"], banked["rounds"], banked["voided"]) == ("player", 2, 1)
    assert (banked["stake"], banked["returned"]) == (3_000, 0)  # the players' own, apart
    assert banked["fees"] == banked["ggr"] == fees
    by_bet = {(r["bet"], r["banker"]): r for r in await _ggr(api, finance.headers, "bet")}
    assert by_bet[("fee", "player")]["ggr"] == fees
    assert by_bet[("player", "player")]["ggr"] == 0  # a bet the casino does not cover
    by_mode = await _ggr(api, finance.headers, "mode")
    assert {(r["mode"], r["banker"]) for r in by_mode} == {("fun", "house"), ("fun", "player")}
    # The house's RTP: the tables whose bets it covers, never the player-banked ones.
    rtp = (await get(api, finance.headers, "/admin/api/reports/rtp?period=day")).json()
    assert {r["table"] for r in rtp["rtp-day"]} == {"table-i", "speed"}
    # Rebuilt from the rounds, the aggregates hold the same fees; and so does a casino whose
    # rounds were played before the aggregates kept fees (migration 0022 adds them).
    kept = await _ggr(api, finance.headers, "table")
    await api.casino.db.write(daily.rebuild)
    assert await _ggr(api, finance.headers, "table") == kept
    await anyio.to_thread.run_sync(_migrate_again, database_url, "0021")
    assert await _ggr(api, finance.headers, "table") == kept


def _migrate_again(url: DatabaseUrl, since: str) -> None:
    """Back to revision ``since``, then up to this version's again."""
    import sqlalchemy as sa
    from alembic import command

    from baccarat.server.db import migrate
    from baccarat.server.vault import default_vault

    engine = sa.create_engine(url.sqlalchemy_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            config = migrate._config(connection, default_vault(url.file))
            command.downgrade(config, since)  # type: ignore[arg-type]
            connection.commit()
    finally:
        engine.dispose()
    migrate.upgrade(url)


async def test_the_rtp_report_splits_play_money_from_real_money(api: Api) -> None:
    from .support import funded

    token = await funded(api)
    api.shoes.current = StackedShoes(BANKER_WINS)
    assert (await api.play(token, mode="real", banker=1_000)).status_code == 201
    assert (await api.play(token, mode="fun", banker=500)).status_code == 201
    assert (await api.play(token, mode="fun", banker=500)).status_code == 201
    finance = await logged_in(api, "fiona", "finance")
    rtp = (await get(api, finance.headers, "/admin/api/reports/rtp?period=day")).json()
    rows = {(r["mode"], r["currency"]): (r["bets"], r["stake"]) for r in rtp["rtp-day"]}
    assert rows == {("real", "USD"): (1, 1_000), ("fun", "USD"): (2, 1_000)}


async def test_the_liability_leaves_out_the_play_money_of_operators_players(api: Api) -> None:
    from .support import operator_session

    await api.player("alice")
    await operator_session(api, "JPY")  # a player of an operator's, in yen
    finance = await logged_in(api, "fiona", "finance")
    held = (await get(api, finance.headers, "/admin/api/reports/liability")).json()["liability"]
    balances = {(r["mode"], r["currency"]): r["balances"] for r in held}
    assert balances[("fun", "USD")] == 100_000  # alice's 1,000.00 of play money
    assert balances.get(("fun", "JPY"), 0) == 0  # never playable: not the casino's to owe
