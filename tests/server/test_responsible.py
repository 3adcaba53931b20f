"""Responsible gaming through the HTTP API on an injected clock: each limit refuses at its
edge and resets at its period's end, a raised limit waits 24 hours, the reality check is
enforced, and a time-out or self-exclusion refuses play everywhere but lets the player log
in, read their history and withdraw. The clock starts on Monday 2026-09-21 14:13:20 UTC."""

from __future__ import annotations

import asyncio
import functools
import json
import re
import uuid
from typing import Any

import pytest

from baccarat.core import Bets
from baccarat.server import check as audit
from baccarat.server import responsible, voids, wallet
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import FairShoes
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.kinds import load_tables
from baccarat.server.kinds.banked.terms import terms_of
from baccarat.server.kinds.house import service as rounds
from baccarat.server.ledger import SystemAccounts, open_currencies
from baccarat.server.play.round import Dealer
from baccarat.server.wallets.ledger import LedgerWallet
from baccarat.server.wallets.operator import launch
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.outbox import OperatorSession, OperatorWallet

from ..harness import Api
from .conftest import BACKENDS
from .interleave import held_while
from .support import BANKER_WINS, PLAYER_WINS, StackedShoes, funded, put

pytestmark = pytest.mark.anyio
HOUR = 3600
DAY = 24 * HOUR


def code(response: Any) -> str:
    assert response.status_code >= 400, response.text
    value: str = response.json()["error"]["code"]
    return value


def details(response: Any) -> dict[str, Any]:
    value: dict[str, Any] = response.json()["error"]["details"]
    return value


async def login(api: Api, nickname: str = "alice") -> str:
    session = await api.client.post(
        "/api/sessions", json={"nickname": nickname, "password": "a good password"}
    )
    assert session.status_code == 201, session.text
    token: str = session.json()["token"]
    return token


async def post(api: Api, token: str, path: str, body: Any = None) -> Any:
    return await api.client.post(
        f"/api/responsible{path}", json=body, headers=api.auth(token, None)
    )


async def status(api: Api, token: str) -> dict[str, Any]:
    answer = await api.client.get("/api/responsible", headers=api.auth(token, None))
    assert answer.status_code == 200, answer.text
    value: dict[str, Any] = answer.json()
    return value


async def real_balance(api: Api, token: str) -> int:
    answer = await api.client.get("/api/wallet", headers=api.auth(token, None))
    value: int = answer.json()["real"]
    return value


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_daily_loss_limit_refuses_past_its_edge_and_resets_at_midnight_utc(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # every player bet loses
    token = await funded(api)
    assert (await put(api, token, "/limits", {"loss": {"day": 1_000}})).status_code == 200
    assert (await api.play(token, mode="real", player=500)).status_code == 201
    assert (await api.play(token, mode="real", player=500)).status_code == 201  # at the edge
    before = await real_balance(api, token)
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "loss_limit_reached" and refused.status_code == 409
    assert details(refused) | {"requested": 200} == details(refused)
    assert details(refused)["left"] == 0 and details(refused)["limit"] == 1_000
    assert details(refused)["resets"] == "2026-09-22T00:00:00Z"
    assert await real_balance(api, token) == before  # nothing moved
    usage = (await status(api, token))["usage"]["day"]
    assert (usage["loss"], usage["wager"]) == (1_000, 1_000)
    api.clock.advance(9 * HOUR + 46 * 60 + 39)  # 23:59:59
    assert code(await api.play(token, mode="real", player=200)) == "loss_limit_reached"
    api.clock.advance(1)  # midnight UTC: a new day
    assert (await api.play(token, mode="real", player=1_000)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_voided_round_leaves_the_usage_of_the_day_it_was_played(api: Api) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # every player bet loses
    token = await funded(api)
    await put(api, token, "/limits", {"loss": {"day": 1_000, "week": 1_500}})
    assert (await api.play(token, mode="real", player=400)).status_code == 201
    lost = await api.play(token, mode="real", player=600)
    assert lost.status_code == 201
    assert code(await api.play(token, mode="real", player=200)) == "loss_limit_reached"
    dealer, round_id = api.casino.dealer, lost.json()["id"]
    api.clock.advance(10 * HOUR)  # Tuesday: the week's limit is the one left to reach
    assert (await api.play(token, mode="real", player=500)).status_code == 201
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "loss_limit_reached" and details(refused)["period"] == "week"
    await api.casino.db.write(lambda uow: voids.void_round(uow, dealer, round_id, "misdeal"))
    usage = (await status(api, token))["usage"]  # Monday's usage gave the 600 back
    assert (usage["day"]["loss"], usage["day"]["wager"]) == (500, 500)
    assert (usage["week"]["loss"], usage["week"]["wager"]) == (900, 900)
    assert (await api.play(token, mode="real", player=500)).status_code == 201
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "loss_limit_reached" and details(refused)["period"] == "day"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_reading_the_page_writes_only_when_something_has_come_due(api: Api) -> None:
    token = await funded(api)
    db = api.casino.db
    writes = 0
    write = db.write

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal writes
        writes += 1
        return await write(*args, **kwargs)

    db.write = counted
    first = await status(api, token)
    assert writes == 0  # the player's row and session exist (funded set a reality check)
    assert await status(api, token) == first
    await put(api, token, "/limits", {"loss": {"day": 5_000}})
    await put(api, token, "/limits", {"loss": {"day": 9_000}})  # a raise: pending 24 hours
    writes = 0
    assert (await status(api, token))["pending"][0]["amount"] == 9_000
    assert writes == 0
    api.clock.advance(DAY)
    now = await status(api, token)  # the raise applies: written once
    assert (now["limits"]["loss"]["day"], now["pending"], writes) == (9_000, [], 1)
    assert await status(api, token) == now and writes == 1
    await post(api, token, "/reality-check/ack")  # due after the day: seen
    await login(api)
    writes = 0  # a login after a break starts a new session: written once
    assert (await status(api, token))["session"]["rounds"] == 0 and writes == 1
    await status(api, token)
    assert writes == 1


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_net_loss_limit_counts_wins_against_losses_and_the_whole_stake(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"loss": {"week": 1_000}})
    api.shoes.current = StackedShoes(PLAYER_WINS)
    assert (await api.play(token, mode="real", player=400)).status_code == 201  # net -400
    api.shoes.current = StackedShoes(BANKER_WINS)
    # Net loss so far is -400 (ahead); a stake of 1,400 could bring it to 1,000: allowed.
    assert (await api.play(token, mode="real", player=1_400)).status_code == 201
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "loss_limit_reached"
    assert details(refused)["used"] == 1_000 and details(refused)["period"] == "week"
    assert details(refused)["resets"] == "2026-09-28T00:00:00Z"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_weekly_wager_limit_counts_every_stake_and_resets_on_monday(api: Api) -> None:
    api.shoes.current = StackedShoes(PLAYER_WINS)  # winning does not give wagering back
    token = await funded(api)
    await put(api, token, "/limits", {"wager": {"week": 1_000, "day": 5_000}})
    assert (await api.play(token, mode="real", player=600)).status_code == 201
    assert (await api.play(token, mode="real", player=400)).status_code == 201  # at the edge
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "wager_limit_reached"
    assert details(refused) | {"period": "week", "left": 0} == details(refused)
    # Fun money has no limits.
    assert (await api.play(token, mode="fun", player=1_000)).status_code == 201
    api.clock.advance(6 * DAY + 9 * HOUR + 46 * 60 + 40)  # Monday 2026-09-28 00:00 UTC
    token = await login(api)  # the first session expired after 7 days
    await post(api, token, "/reality-check/ack")
    assert (await api.play(token, mode="real", player=1_000)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_monthly_deposit_limit_counts_requests_when_made_until_rejected(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"deposit": {"month": 5_000}})

    async def deposit(amount: int) -> Any:
        return await api.client.post(
            "/api/wallet/deposits", json={"amount": amount}, headers=api.auth(token)
        )

    first = await deposit(3_000)
    assert first.status_code == 201 and (await deposit(2_000)).status_code == 201  # the edge
    refused = await deposit(1)
    assert code(refused) == "deposit_limit_reached"
    assert details(refused) | {"left": 0, "resets": "2026-10-01T00:00:00Z"} == details(refused)
    assert len((await api.client.get("/api/wallet/deposits", headers=api.auth(token))).json()) == 2
    system = api.casino.system
    await api.casino.db.write(lambda uow: wallet.decide(uow, first.json()["id"], False, system))
    assert (await deposit(3_000)).status_code == 201  # the rejected one stopped counting
    assert details(await deposit(1))["left"] == 0
    assert (await status(api, token))["usage"]["month"]["deposit"] == 5_000
    api.clock.advance(9 * DAY + 9 * HOUR + 46 * 60 + 40)  # 2026-10-01 00:00 UTC
    token = await login(api)
    assert (await deposit(5_000)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_session_limit_holds_across_logins_until_its_break_has_passed(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"session_minutes": 30})
    api.clock.advance(30 * 60 - 1)
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    api.clock.advance(1)
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "session_limit_reached"
    assert details(refused)["played_seconds"] == 1800 and details(refused)["rounds"] == 1
    resumes = details(refused)["resumes"]
    # Logging in again starts no session: neither the new token nor the old one plays.
    again = await login(api)
    for which in (again, token):
        refused = await api.play(which, mode="real", player=200)
        assert code(refused) == "session_limit_reached" and details(refused)["resumes"] == resumes
    api.clock.advance(30 * 60 - 1)
    assert code(await api.play(again, mode="real", player=200)) == "session_limit_reached"
    api.clock.advance(1)  # the break is over: a new session, on either token
    assert (await status(api, token))["session"]["started"] == resumes
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    assert (await api.play(again, mode="real", player=200)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_session_limit_set_when_the_session_is_longer_ends_play_when_it_is_set(
    api: Api,
) -> None:
    token = await funded(api)
    started = (await status(api, token))["session"]["started"]
    api.clock.advance(10 * 60)
    # Set 10 minutes in, a limit counts from the session's start: 60 minutes of it.
    shown = (await put(api, token, "/limits", {"session_minutes": 60})).json()["session"]
    assert shown["ends"] == iso_time(api.clock.now + 50 * 60 * 1_000_000)
    api.clock.advance(22 * 60)
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    # 32 minutes in, a limit of 3 has passed already: it ends play now, not 29 minutes ago.
    now = api.clock.now
    shown = (await put(api, token, "/limits", {"session_minutes": 3})).json()["session"]
    resumes = iso_time(now + 30 * 60 * 1_000_000)
    assert (shown["started"], shown["ends"]) == (started, iso_time(now))
    assert shown["resumes"] == resumes
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "session_limit_reached"
    assert (details(refused)["ended"], details(refused)["resumes"]) == (iso_time(now), resumes)
    api.clock.advance(30 * 60 - 1)
    assert code(await api.play(token, mode="real", player=200)) == "session_limit_reached"
    api.clock.advance(1)  # the break is over: a new session, of 3 minutes
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    assert (await status(api, token))["session"]["started"] == resumes


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_login_during_play_does_not_restart_the_session_clock(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"session_minutes": 30})
    api.clock.advance(20 * 60)
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    started = (await status(api, token))["session"]["started"]
    fresh = await login(api)
    assert (await status(api, fresh))["session"]["started"] == started
    api.clock.advance(10 * 60)
    assert code(await api.play(fresh, mode="real", player=200)) == "session_limit_reached"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_due_reality_check_stays_due_across_logins_until_acknowledged(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/reality-check", {"minutes": 10})
    api.clock.advance(10 * 60)
    assert code(await api.play(token, mode="real", player=200)) == "reality_check_due"
    fresh = await login(api)
    assert code(await api.play(fresh, mode="real", player=200)) == "reality_check_due"
    assert (await status(api, fresh))["reality_check"]["due"] is True
    await post(api, fresh, "/reality-check/ack")
    assert (await api.play(token, mode="real", player=200)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_lowering_applies_at_once_and_raising_or_removing_only_after_24_hours(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)
    token = await funded(api)
    await put(api, token, "/limits", {"wager": {"day": 1_000}})
    raised = await put(api, token, "/limits", {"wager": {"day": 5_000}, "loss": {"week": None}})
    assert raised.status_code == 200
    state = raised.json()
    assert state["limits"]["wager"] == {"day": 1_000, "week": None, "month": None}
    assert [(p["limit"], p["amount"], p["applies"]) for p in state["pending"]] == [
        ("wager_day", 5_000, "2026-09-22T14:13:20Z")
    ]  # removing a limit that is not set changes nothing
    assert (await api.play(token, mode="real", player=1_000)).status_code == 201
    assert code(await api.play(token, mode="real", player=200)) == "wager_limit_reached"
    api.clock.advance(DAY - 1)
    await post(api, token, "/reality-check/ack")
    assert (await status(api, token))["limits"]["wager"]["day"] == 1_000
    api.clock.advance(1)
    assert (await api.play(token, mode="real", player=2_000)).status_code == 201
    state = await status(api, token)
    assert state["limits"]["wager"]["day"] == 5_000 and state["pending"] == []
    # Removing waits too; lowering again cancels the pending removal at once.
    assert (await put(api, token, "/limits", {"wager": {"day": None}})).json()["pending"]
    lowered = (await put(api, token, "/limits", {"wager": {"day": 2_100}})).json()
    assert lowered["limits"]["wager"]["day"] == 2_100 and lowered["pending"] == []
    assert code(await api.play(token, mode="real", player=1_000)) == "wager_limit_reached"
    actions = await api.casino.db.read(
        lambda uow: [a for (a,) in uow.all("SELECT action FROM responsible_audit ORDER BY id")]
    )
    assert actions == [
        "reality_check_set", "limit_set", "limit_raise_requested", "reality_check_ack",
        "pending_applied", "limit_raise_requested", "limit_set", "pending_cancelled",
    ]  # fmt: skip


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_reality_check_is_enforced_by_the_server_until_acknowledged(api: Api) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)
    token = await funded(api)
    await put(api, token, "/reality-check", {"minutes": 10})
    assert (await api.play(token, mode="real", player=300)).status_code == 201
    api.clock.advance(10 * 60)
    due = await api.play(token, mode="real", player=200)
    assert code(due) == "reality_check_due"
    assert details(due) | {"played_seconds": 600, "net": -300, "rounds": 1} == details(due)
    assert (await status(api, token))["reality_check"]["due"] is True
    assert code(await api.play(token, mode="real", player=200)) == "reality_check_due"
    acked = await post(api, token, "/reality-check/ack")
    assert acked.status_code == 200 and acked.json()["reality_check"]["due"] is False
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    api.clock.advance(10 * 60 - 1)
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    api.clock.advance(1)
    assert code(await api.play(token, mode="real", player=200)) == "reality_check_due"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_voided_round_leaves_the_sessions_figures_and_its_reality_check(api: Api) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # the player's bets lose to the banker
    alice, bob = await funded(api, "alice"), await funded(api, "bob")
    await put(api, alice, "/reality-check", {"minutes": 10})
    played = [(await api.play(alice, mode="real", player=cents)).json()["id"]
              for cents in (1_000, 2_000, 700)]  # fmt: skip
    # Bob banks a real round against Alice; it is voided too.
    seat = {"table_id": "banked-i", "mode": "real"}
    joined = await api.client.post("/api/seats", json=seat | {"role": "banker",
                                   "auto_approve": True}, headers=api.auth(bob, None))  # fmt: skip
    assert joined.status_code == 201, joined.text
    sat = await api.client.post("/api/seats", json=seat | {"role": "player"},
                                headers=api.auth(alice, None))  # fmt: skip
    seat_id = sat.json()["seat"]["id"]
    banked = await api.client.post(f"/api/seats/{seat_id}/deal", json={"bets": {"player": 500}},
                                   headers=api.auth(alice))  # fmt: skip
    assert banked.status_code == 201, banked.text
    dealer = api.casino.dealer
    for round_id in (played[1], banked.json()["id"]):
        void = functools.partial(voids.void_round, dealer=dealer, round_id=round_id, reason="x")
        await api.casino.db.write(void)
    state = await status(api, alice)
    assert (state["session"]["rounds"], state["session"]["net"]) == (2, -1_700)
    assert state["usage"]["day"]["loss"] == 1_700  # the same figure as the day's loss
    bob_session = (await status(api, bob))["session"]
    assert (bob_session["rounds"], bob_session["net"]) == (0, 0)
    api.clock.advance(10 * 60)
    due = await api.play(alice, mode="real", player=200)
    assert code(due) == "reality_check_due"
    assert (details(due)["rounds"], details(due)["net"]) == (2, -1_700)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_self_excluded_player_is_refused_everywhere_but_can_log_in_read_and_withdraw(
    api: Api,
) -> None:
    token = await funded(api)
    assert (await api.play(token, mode="real", player=200)).status_code == 201
    excluded = await post(api, token, "/self-exclusion", {"months": 6})
    assert excluded.json()["exclusion"] == {
        "kind": "self_exclusion", "until": "2027-03-21T14:13:20Z"
    }  # fmt: skip
    for mode in ("fun", "real"):
        refused = await api.play(token, mode=mode, player=200)
        assert code(refused) == "self_excluded" and refused.status_code == 403
    deposit = await api.client.post(
        "/api/wallet/deposits", json={"amount": 100}, headers=api.auth(token)
    )
    assert code(deposit) == "self_excluded"
    for role, table, mode in (("player", "banked-i", "fun"), ("banker", "banked-i", "real")):
        seat = await api.client.post(
            "/api/seats", json={"table_id": table, "role": role, "mode": mode},
            headers=api.auth(token, None),
        )  # fmt: skip
        assert code(seat) == "self_excluded"
    # A time-out cannot shorten it; nothing lifts it.
    await post(api, token, "/time-out", {"days": 1})
    assert (await status(api, token))["exclusion"]["kind"] == "self_exclusion"
    token = await login(api)
    history = await api.client.get("/api/history?mode=real", headers=api.auth(token, None))
    assert history.status_code == 200 and len(history.json()["items"]) == 1
    withdrawal = await api.client.post(
        "/api/wallet/withdrawals", json={"amount": 500}, headers=api.auth(token)
    )
    assert withdrawal.status_code == 201
    api.clock.advance(181 * DAY - 1)  # 2027-03-21 14:13:19
    token = await login(api)
    assert code(await api.play(token, mode="fun", player=200)) == "self_excluded"
    api.clock.advance(1)
    assert (await api.play(token, mode="fun", player=200)).status_code == 201


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_time_out_refuses_play_until_it_ends_and_can_only_be_lengthened(api: Api) -> None:
    token = await funded(api)
    state = (await post(api, token, "/time-out", {"days": 7})).json()
    assert state["exclusion"] == {"kind": "time_out", "until": "2026-09-28T14:13:20Z"}
    assert (await post(api, token, "/time-out", {"days": 1})).json()["exclusion"] == state[
        "exclusion"
    ]
    refused = await api.play(token, mode="real", player=200)
    assert code(refused) == "timed_out" and details(refused)["until"] == "2026-09-28T14:13:20Z"
    api.clock.advance(7 * DAY)
    token = await login(api)
    assert (await api.play(token, mode="fun", player=200)).status_code == 201


@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        ("/limits", {"loss": {"day": -1}}, "invalid_limit"),
        ("/limits", {"session_minutes": 0}, "invalid_limit"),
        ("/limits", {"loss": {"hour": 5}}, "invalid_body"),
        ("/limits", {"loss": {"day": "5"}}, "invalid_body"),
        ("/reality-check", {"minutes": 0}, "invalid_reality_check"),
        ("/time-out", {"days": 2}, "invalid_exclusion"),
        ("/self-exclusion", {"months": 1}, "invalid_exclusion"),
    ],
)
async def test_bad_settings_are_refused_with_their_code(
    api: Api, path: str, body: Any, expected: str
) -> None:
    token = await api.player()
    send = api.client.put if path in ("/limits", "/reality-check") else api.client.post
    answer = await send(f"/api/responsible{path}", json=body, headers=api.auth(token, None))
    assert code(answer) == expected
    assert (await status(api, token))["exclusion"] is None


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_concurrent_rounds_of_one_player_cannot_pass_a_limit_together(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"wager": {"day": 1_000}})
    answers = await asyncio.gather(*(api.play(token, mode="real", player=200) for _ in range(12)))
    assert sorted(a.status_code for a in answers) == [201] * 5 + [409] * 7
    assert (await status(api, token))["usage"]["day"]["wager"] == 1_000


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_audit_log_is_append_only(api: Api) -> None:
    token = await funded(api)
    await put(api, token, "/limits", {"loss": {"day": 100}})

    def tamper(uow: Any) -> None:
        uow.run("UPDATE responsible_audit SET action = 'nothing'")

    with pytest.raises(Exception, match="append-only"):
        await api.casino.db.write(tamper)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_operator_sees_limits_usage_exclusion_and_the_audit_log_but_changes_nothing(
    api: Api, database_url: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main
    from baccarat.server.history import iso_time
    from baccarat.server.settings import system_clock_us

    api.clock.now = system_clock_us()  # the admin command reads the system clock
    api.shoes.current = StackedShoes(BANKER_WINS)
    token = await funded(api)
    await put(api, token, "/limits", {"loss": {"day": 5_000}})
    await api.play(token, mode="real", player=1_000)
    await post(api, token, "/time-out", {"days": 30})
    url = (
        f"sqlite:///{database_url.target}"
        if database_url.dialect == "sqlite"
        else (database_url.target)
    )
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["admin", "--database", url, "responsible", "alice"]) == 0
    text = capsys.readouterr().out
    assert f"time-out until {iso_time(api.clock.now + 30 * DAY * 1_000_000)}" in text
    assert re.search(r"loss +day +\$50\.00 +\$10\.00", text), text
    assert (
        await asyncio.to_thread(
            main, ["admin", "--database", url, "responsible", "alice", "--json"]
        )
        == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert shown["exclusion"]["kind"] == "time_out" and shown["usage"]["day"]["wager"] == 1_000
    assert [entry["action"] for entry in shown["audit"]] == [
        "time_out", "limit_set", "reality_check_set"
    ]  # fmt: skip
    assert code(await api.play(token, mode="fun", player=200)) == "timed_out"


async def test_the_operator_reads_a_yen_players_limits_in_yen(
    api: Api, database_url: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main

    token = await api.player("kenji", currency="JPY")
    await put(api, token, "/limits", {"loss": {"day": 3_000}})
    capsys.readouterr()
    url = f"sqlite:///{database_url.target}"
    assert await asyncio.to_thread(main, ["admin", "--database", url, "responsible", "kenji"]) == 0
    text = capsys.readouterr().out
    assert re.search(r"loss +day +¥3,000 +¥0 ", text), text


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_player_banked_seats_count_the_stake_and_check_the_bankers_exposure(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # the player's bets lose to the banker
    alice = await funded(api, "alice")
    bob = await funded(api, "bob")
    exposure = terms_of(api.casino.tables.require("banked-i")).exposure

    async def join(token: str, role: str, **extra: Any) -> Any:
        body = {"table_id": "banked-i", "role": role, "mode": "real"} | extra
        return await api.client.post("/api/seats", json=body, headers=api.auth(token, None))

    # A banker's loss limit below the round's exposure: no approval, so no banking.
    await put(api, bob, "/limits", {"loss": {"day": exposure - 1}})
    refused = await join(bob, "banker", auto_approve=True)
    assert code(refused) == "loss_limit_reached" and details(refused)["requested"] == exposure
    await put(api, bob, "/limits", {"loss": {"day": None}})  # pending: 24 hours
    assert code(await join(bob, "banker", auto_approve=True)) == "loss_limit_reached"
    api.clock.advance(DAY)
    bob = await login(api, "bob")
    await post(api, bob, "/reality-check/ack")
    alice = await login(api, "alice")
    await post(api, alice, "/reality-check/ack")
    assert (await join(bob, "banker", auto_approve=True)).status_code == 201
    await put(api, alice, "/limits", {"wager": {"day": 1_000}})
    seat = (await join(alice, "player")).json()["seat"]["id"]

    async def deal(**bets: int) -> Any:
        return await api.client.post(
            f"/api/seats/{seat}/deal", json={"bets": bets}, headers=api.auth(alice)
        )

    dealt = await deal(player=1_000)
    assert dealt.status_code == 201  # at the edge
    assert code(await deal(player=200)) == "wager_limit_reached"
    assert (await status(api, alice))["usage"]["day"]["wager"] == 1_000
    bob_day = (await status(api, bob))["usage"]["day"]
    assert bob_day["loss"] < 0 and bob_day["wager"] == 0  # the banker won the player's bet
    # A voided round counts for neither of them any more.
    dealer, round_id = api.casino.dealer, dealt.json()["id"]
    await api.casino.db.write(lambda uow: voids.void_round(uow, dealer, round_id, "misdeal"))
    assert (await status(api, alice))["usage"]["day"]["wager"] == 0
    assert (await status(api, bob))["usage"]["day"]["loss"] == 0
    assert (await deal(player=200)).status_code == 201
    await post(api, alice, "/time-out", {"days": 1})
    assert code(await deal(player=200)) == "not_seated"  # the time-out ended her seat


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_an_approved_rounds_exposure_counts_against_the_bankers_loss_limit(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(BANKER_WINS)  # the banker's house bets on Player lose
    bob = await funded(api, "bob")
    alice = await funded(api, "alice")
    exposure = terms_of(api.casino.tables.require("banked-i")).exposure
    await put(api, bob, "/limits", {"loss": {"day": exposure + 1_000}})
    joined = await api.client.post(
        "/api/seats", json={"table_id": "banked-i", "role": "banker", "mode": "real",
                            "auto_approve": True}, headers=api.auth(bob, None),
    )  # fmt: skip
    assert joined.status_code == 201, joined.text
    seat = (await api.client.post(
        "/api/seats", json={"table_id": "banked-i", "role": "player", "mode": "real"},
        headers=api.auth(alice, None),
    )).json()["seat"]["id"]  # fmt: skip
    # Approved: the exposure is spoken for, so only 1,000 of the day's limit is left.
    refused = await api.play(bob, mode="real", player=1_100)
    assert code(refused) == "loss_limit_reached"
    assert details(refused)["used"] == exposure and details(refused)["left"] == 1_000
    assert (await api.play(bob, mode="real", player=1_000)).status_code == 201
    api.shoes.current = StackedShoes(PLAYER_WINS)  # the banker's worst: the player wins
    dealt = await api.client.post(
        f"/api/seats/{seat}/deal", json={"bets": {"player": 2_000, "tie": 2_000}},
        headers=api.auth(alice),
    )  # fmt: skip
    assert dealt.status_code == 201, dealt.text
    day = (await status(api, bob))["usage"]["day"]
    assert 0 < day["loss"] <= exposure + 1_000


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
@pytest.mark.parametrize("who", ["banker", "player"])
async def test_a_time_out_or_exclusion_ends_the_players_seats_at_once(api: Api, who: str) -> None:
    bob = await funded(api, "bob")
    alice = await funded(api, "alice")

    async def sit(token: str, role: str, **extra: Any) -> str:
        joined = await api.client.post(
            "/api/seats", json={"table_id": "banked-i", "role": role, "mode": "real"} | extra,
            headers=api.auth(token, None),
        )  # fmt: skip
        assert joined.status_code == 201, joined.text
        seat: str = joined.json()["seat"]["id"]
        return seat

    async def balance(token: str) -> int:
        wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
        return int(wallet.json()["real"])

    seat = await sit(bob, "banker", auto_approve=True)
    await sit(alice, "player")
    placed = await api.client.put(
        f"/api/seats/{seat}/bets", json={"bets": {"player": 1_000}}, headers=api.auth(alice)
    )
    assert placed.status_code == 200, placed.text
    assert await balance(bob) < 1_000_000 and await balance(alice) == 1_000_000 - 1_000
    leaving = bob if who == "banker" else alice
    path = "/time-out" if who == "banker" else "/self-exclusion"
    body = {"days": 1} if who == "banker" else {"months": 6}
    assert (await post(api, leaving, path, body)).status_code == 200
    # The approved round ended undealt: bets and reserve are back, and it cannot be dealt.
    assert await balance(bob) == await balance(alice) == 1_000_000
    seats = (await api.client.get("/api/seats", headers=api.auth(alice, None))).json()
    (row,) = [s for s in seats["seats"] if s["id"] == seat]
    assert row[who] is None
    dealt = await api.client.post(
        f"/api/seats/{seat}/deal", json={"bets": {"player": 1_000}}, headers=api.auth(alice)
    )
    assert dealt.status_code in (403, 409) and dealt.json()["error"]["code"] in (
        "not_seated", "not_your_turn", "timed_out", "self_excluded",
    )  # fmt: skip
    report = await api.casino.db.read(audit.check)
    assert report.ok, report.problems


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
def test_an_exclusion_read_once_in_a_transaction_is_read_again_once_it_changes(
    db: Any,
) -> None:
    """A transaction reads a player's exclusion once however often it checks a stake (a
    player-banked deal checks it twice), and a time-out taken in the same transaction is
    in force at its next check."""
    from baccarat.server import accounts, responsible
    from baccarat.server.errors import ServiceError
    from baccarat.server.ledger import SystemAccounts

    system = db.run_read(SystemAccounts.load)
    alice = db.run_write(lambda uow: accounts.register(uow, "alice", "hash", system)).id

    def work(uow: Any) -> str:
        for _ in range(2):
            responsible.check_stake(uow, alice, "fun", 500)
        responsible.time_out(uow, alice, 1)
        try:
            responsible.check_stake(uow, alice, "fun", 500)
        except ServiceError as refused:
            return refused.code
        return "admitted"

    assert db.run_write(work) == "timed_out"


class Launches:
    """Launches of an operator with players in USD, EUR and JPY, in-process (as the API
    makes them once their signature checked), and the sessions they open."""

    def __init__(self, db: Any) -> None:
        db.run_write(lambda uow: open_currencies(uow, ("EUR", "JPY")))
        self.db, self.system, self.tables = db, db.run_read(SystemAccounts.load), load_tables()
        self.operator = Operator("acme", "sixteen-chars-or-more", "http://127.0.0.1:9/wallet",
                                 ("USD", "EUR", "JPY"), None)  # fmt: skip

    def code(self, player: str, currency: str) -> str:
        body = {
            "request_uuid": str(uuid.uuid4()),
            "timestamp": iso_time(self.db.clock()),
            "player": player,
            "token": "t",
            "currency": currency,
            "language": "en",
        }
        create = functools.partial(launch.create, operator=self.operator, tables=self.tables,
                                   body=body)  # fmt: skip
        return str(self.db.run_write(create))

    def redeem(self, uow: UnitOfWork, code: str) -> OperatorSession:
        return launch.redeem(uow, code, self.system, 3600).session

    def session(self, code: str) -> OperatorSession:
        session: OperatorSession = self.db.run_write(lambda uow: self.redeem(uow, code))
        return session

    def play(self, s: OperatorSession, mode: str = "real") -> str:
        """A round of the session at table-i (banker 10.00, or 1,000 yen): ``played``, or
        the code it was refused with."""
        table = self.tables["table-i"].for_currency(s.currency)
        wallet = OperatorWallet(s, table.id, {"banker": 1000}, 5) if mode == "real" else None
        dealer = Dealer(FairShoes(), wallet or LedgerWallet(self.system))
        try:
            self.db.run_write(lambda uow: rounds.play_round(
                uow, dealer, s.player_id, table, mode, Bets({"banker": 1000})))  # fmt: skip
        except ServiceError as refused:
            return refused.code
        return "played"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
@pytest.mark.parametrize(
    ("exclusion", "refusal"),
    [(("time_out", 1), "timed_out"), (("self_exclude", 6), "self_excluded")],
)
def test_an_operators_players_exclusion_holds_in_every_currency_of_theirs(
    db: Any, exclusion: tuple[str, int], refusal: str
) -> None:
    """An operator's player is a player of ours per currency, and one person: a time-out
    (or a self-exclusion) taken in a USD session refuses them in EUR and JPY too, whether
    that player of ours was made before it (a EUR session) or after (a launch code issued
    before it, opened after); a new launch is refused; no bet reaches the operator."""
    acme = Launches(db)
    euro = acme.session(acme.code("u42", "EUR"))
    assert acme.play(euro) == "played"
    yen = acme.code("u42", "JPY")  # opened after the time-out: a player of ours made then
    dollar = acme.session(acme.code("u42", "USD"))
    kind, length = exclusion
    db.run_write(lambda uow: getattr(responsible, kind)(uow, dollar.player_id, length))
    calls = db.run_read(lambda uow: uow.scalar("SELECT count(*) FROM operator_calls"))
    assert acme.play(dollar) == acme.play(euro) == acme.play(acme.session(yen)) == refusal
    assert acme.play(euro, "fun") == refusal  # either mode, as every exclusion
    for currency in ("USD", "EUR", "JPY"):
        with pytest.raises(ServiceError) as refused:
            acme.code("u42", currency)
        assert refused.value.code == refusal
    # Nothing was sent to the operator's wallet since (the first EUR round's calls only).
    assert db.run_read(lambda uow: uow.scalar("SELECT count(*) FROM operator_calls")) == calls
    # Each player of the person shows it, and says where it was taken; another player plays.
    shown = db.run_write(lambda uow: responsible.overview(uow, euro.player_id))
    assert shown["exclusion"]["kind"] == kind.replace("self_exclude", "self_exclusion")
    (entry, *_) = db.run_read(lambda uow: responsible.audit_log(uow, euro.player_id))
    assert entry["details"]["from_player"] == dollar.player_id
    assert acme.play(acme.session(acme.code("u43", "EUR"))) == "played"
    assert db.run_read(audit.check).ok


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
@pytest.mark.parametrize("first", ["time-out", "new player"])
def test_a_time_out_and_a_first_launch_in_another_currency_at_once_exclude_both(
    db: Any, first: str
) -> None:
    """PostgreSQL: a time-out in USD and the making of the person's JPY player (its launch
    code opened) in two transactions at once, the first holding its rows until the other
    waits for them: the JPY player is timed out all the same."""
    acme = Launches(db)
    dollar = acme.session(acme.code("u42", "USD"))
    yen = acme.code("u42", "JPY")

    def time_out(uow: UnitOfWork) -> None:
        responsible.time_out(uow, dollar.player_id, 1)

    def new_player(uow: UnitOfWork) -> None:
        acme.redeem(uow, yen)

    held, other = (time_out, new_player) if first == "time-out" else (new_player, time_out)
    # The other waits for the first's rows (its transaction open) until it commits.
    for done in held_while(db, held, other):
        done.result()
    player = db.run_read(lambda uow: uow.scalar(
        "SELECT player_id FROM operator_players WHERE currency = 'JPY'"))  # fmt: skip
    shown = db.run_write(lambda uow: responsible.overview(uow, int(player)))
    assert (shown["exclusion"] or {}).get("kind") == "time_out"
