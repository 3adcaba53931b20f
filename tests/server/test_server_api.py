"""The HTTP API in-process: shapes, authentication, CSRF, idempotency, errors, history."""

from __future__ import annotations

import json

import pytest

from baccarat.core import play_coup
from baccarat.fairness import commitment, shuffled_order
from baccarat.server import check as audit

from ..harness import Api
from .conftest import BACKENDS
from .support import BANKER_WINS, PLAYER_WINS, StackedShoes, error_code

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_round_answers_in_the_documented_shape_and_a_retry_moves_no_money(
    api: Api,
) -> None:
    api.shoes.current = StackedShoes(PLAYER_WINS)
    token = await api.player()
    played = await api.play(token, key="round-1", player=1_000, tie=200)
    assert played.status_code == 201, played.text
    answer = played.json()
    assert answer["id"].startswith("r_")
    assert answer["table_id"] == "table-i" and answer["mode"] == "fun"
    assert answer["player"] == {"cards": ["9h", "Kd"], "scores": [9, 9]}
    assert answer["banker"] == {"cards": ["Ks", "Qc"], "scores": [0, 0]}
    assert answer["winner"] == "player"
    assert answer["bets"] == {
        "player": {"stake": 1_000, "result": "win", "returned": 2_000},
        "tie": {"stake": 200, "result": "lose", "returned": 0},
    }
    assert (answer["win"], answer["balance_after"]) == (2_000, 100_800)
    again = await api.play(token, key="round-1", player=1_000, tie=200)
    assert again.status_code == 201
    assert again.json() == answer
    assert again.headers["Idempotent-Replayed"] == "true"
    wallet = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert wallet.json() == {"fun": 100_800, "real": 0, "pending_withdrawals": 0, "currency": "USD"}
    other = await api.play(token, key="round-1", player=2_000)
    assert (other.status_code, error_code(other)) == (409, "idempotency_conflict")
    missing = await api.play(token, key=None, player=1_000)
    assert (missing.status_code, error_code(missing)) == (400, "idempotency_key_required")
    report = await api.casino.db.read(audit.check)
    assert report.ok, report.problems
    assert report.counts["rounds"] == 1


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_session_the_server_knows_is_still_looked_up_with_every_request(
    api: Api,
) -> None:
    """On PostgreSQL a worker keeps whose each session token is, and sends the lookup with
    the round's first reads: a replay still gets the first answer and takes no nonce, a
    refused request is refused whoever it is, and an ended session is refused at once."""
    token = await api.player()
    first = await api.play(token, key="once", player=500)
    assert first.status_code == 201, first.text
    for _ in range(2):
        again = await api.play(token, key="once", player=500)
        assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()
    conflict = await api.play(token, key="once", banker=500)
    assert (conflict.status_code, error_code(conflict)) == (409, "idempotency_conflict")
    second = await api.play(token, key="twice", player=500)
    assert second.json()["fairness"]["nonce"] == first.json()["fairness"]["nonce"] + 1
    ended = await api.client.delete("/api/sessions", headers=api.auth(token, None))
    assert ended.status_code == 204
    after = await api.play(token, key="thrice", player=500)
    assert (after.status_code, error_code(after)) == (401, "not_authenticated")
    refused = await api.play(token, key="never", player=1)  # under the table's minimum
    assert (refused.status_code, error_code(refused)) == (401, "not_authenticated")
    report = await api.casino.db.read(audit.check)
    assert report.ok, report.problems
    assert report.counts["rounds"] == 2


async def test_the_browser_cookie_needs_the_csrf_header_on_state_changing_requests(
    api: Api,
) -> None:
    await api.player("carol", "a secret for c4rol")
    # The in-process client keeps the cookies the login set.
    client = api.client
    assert (await client.get("/api/wallet")).status_code == 200
    body = {"mode": "fun", "bets": {"banker": 500}}
    refused = await client.post(
        "/api/tables/table-i/rounds", json=body, headers={"Idempotency-Key": "c1"}
    )
    assert (refused.status_code, error_code(refused)) == (403, "csrf_failed")
    csrf = client.cookies["baccarat_csrf"]
    wrong = await client.post(
        "/api/tables/table-i/rounds",
        json=body,
        headers={"Idempotency-Key": "c1", "X-CSRF-Token": "0" * 32},
    )
    assert error_code(wrong) == "csrf_failed"
    accepted = await client.post(
        "/api/tables/table-i/rounds",
        json=body,
        headers={"Idempotency-Key": "c1", "X-CSRF-Token": csrf},
    )
    assert accepted.status_code == 201, accepted.text
    logout = await client.delete("/api/sessions", headers={"X-CSRF-Token": csrf})
    assert logout.status_code == 204
    client.cookies.clear()
    gone = await client.get("/api/wallet")
    assert (gone.status_code, error_code(gone)) == (401, "not_authenticated")


async def test_a_logged_out_token_is_refused(api: Api) -> None:
    token = await api.player()
    assert (
        await api.client.delete("/api/sessions", headers=api.auth(token, None))
    ).status_code == 204
    after = await api.client.get("/api/wallet", headers=api.auth(token, None))
    assert (after.status_code, error_code(after)) == (401, "not_authenticated")


async def test_sessions_expire(api: Api) -> None:
    token = await api.player()
    api.clock.advance(api.casino.settings.session_ttl_s + 1)
    after = await api.client.get("/api/me", headers=api.auth(token, None))
    assert error_code(after) == "not_authenticated"


async def test_the_api_docs_load_nothing_from_elsewhere(api: Api) -> None:
    page = await api.client.get("/docs")
    assert page.status_code == 200
    assert "https://" not in page.text and "http://" not in page.text
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        assert f"/docs-assets/{asset}" in page.text
        served = await api.client.get(f"/docs-assets/{asset}")
        assert served.status_code == 200 and len(served.content) > 10_000


async def test_the_session_state_is_asked_without_an_error(api: Api) -> None:
    # A page load asks whether it is logged in: 200 either way, never a 401.
    nobody = await api.client.get("/api/session")
    # (The profile in force is told to visitors too: docs/jurisdictions.md.)
    logged_out = {"logged_in": False, "profile": api.casino.profiles.deployment.to_json()}
    assert (nobody.status_code, nobody.json()) == (200, logged_out)
    token = await api.player("erin")
    known = await api.client.get("/api/session", headers=api.auth(token, None))
    assert known.status_code == 200
    assert known.json()["logged_in"] is True and known.json()["player"]["nickname"] == "erin"
    api.clock.advance(api.casino.settings.session_ttl_s + 1)
    expired = await api.client.get("/api/session", headers=api.auth(token, None))
    assert (expired.status_code, expired.json()) == (200, logged_out)


async def test_the_history_of_one_table(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    at_one = (await api.play(token, "table-i", player=500)).json()["id"]
    at_two = (await api.play(token, "table-ii", player=500)).json()["id"]
    one = (await api.client.get("/api/history?table=table-i&limit=1", headers=auth)).json()
    assert [r["id"] for r in one["items"]] == [at_one]
    two = (await api.client.get("/api/history?table=table-ii&mode=fun", headers=auth)).json()
    assert [r["id"] for r in two["items"]] == [at_two]
    none = (await api.client.get("/api/history?table=mini", headers=auth)).json()
    assert none == {"items": [], "next": None, "currency": "USD"}


async def test_a_player_sees_only_their_own_rounds(api: Api) -> None:
    alice, bob = await api.player("alice"), await api.player("bob")
    played = (await api.play(alice, player=500)).json()
    mine = await api.client.get(f"/api/rounds/{played['id']}", headers=api.auth(alice, None))
    assert mine.json()["id"] == played["id"]
    theirs = await api.client.get(f"/api/rounds/{played['id']}", headers=api.auth(bob, None))
    assert (theirs.status_code, error_code(theirs)) == (404, "unknown_round")
    empty = await api.client.get("/api/history", headers=api.auth(bob, None))
    assert empty.json() == {"items": [], "next": None, "currency": "USD"}


async def test_failed_logins_back_off_exponentially(api: Api) -> None:
    await api.player("dave", "a secret of d4ve's")
    wrong = {"nickname": "dave", "password": "not the password"}
    for _ in range(3):
        failed = await api.client.post("/api/sessions", json=wrong)
        assert error_code(failed) == "invalid_credentials"
    # The fourth failure blocks for 1 s, the fifth for 2 s.
    assert error_code(await api.client.post("/api/sessions", json=wrong)) == "invalid_credentials"
    blocked = await api.client.post(
        "/api/sessions", json=wrong | {"password": "a secret of d4ve's"}
    )
    assert (blocked.status_code, error_code(blocked)) == (429, "rate_limited")
    assert blocked.headers["Retry-After"] == "1"
    api.clock.advance(1.5)
    assert error_code(await api.client.post("/api/sessions", json=wrong)) == "invalid_credentials"
    blocked = await api.client.post("/api/sessions", json=wrong)
    assert blocked.headers["Retry-After"] == "2"
    api.clock.advance(2.5)
    ok = await api.client.post(
        "/api/sessions", json={"nickname": "dave", "password": "a secret of d4ve's"}
    )
    assert ok.status_code == 201
    # Success forgives the nickname's failures.
    assert error_code(await api.client.post("/api/sessions", json=wrong)) == "invalid_credentials"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"mode": "fun", "bets": {"player": 5.0}}, "invalid_body"),
        ({"mode": "fun", "bets": {"player": "500"}}, "invalid_body"),
        ({"mode": "fun", "bets": {"player": -500}}, "invalid_body"),
        ({"mode": "fun", "bets": {"player": 500, "dragon": 5}}, "bet_not_offered"),
        ({"mode": "fun", "bets": {"player": 500, "player_pair": 100}}, "bet_not_offered"),
        ({"mode": "fun", "bets": {"Player": 500}}, "invalid_body"),
        ({"mode": "fun", "bets": {"player": 10**30}}, "invalid_body"),
        ({"mode": "gold", "bets": {"player": 500}}, "invalid_mode"),
        ({"bets": {"player": 500}}, "invalid_body"),
        ([], "invalid_body"),
    ],
)
async def test_malformed_rounds_are_refused_in_the_error_shape(
    api: Api, body: object, code: str
) -> None:
    token = await api.player()
    refused = await api.client.post(
        "/api/tables/table-i/rounds", json=body, headers=api.auth(token)
    )
    assert refused.status_code == 422
    assert set(refused.json()["error"]) == {"code", "message", "details"}
    assert error_code(refused) == code


async def test_unknown_things_answer_in_the_error_shape(api: Api) -> None:
    token = await api.player()
    unknown = await api.play(token, table="table-xiv", player=500)
    assert (unknown.status_code, error_code(unknown)) == (404, "unknown_table")
    assert error_code(await api.client.get("/api/nothing")) == "not_found"
    wrong_method = await api.client.put("/api/tables")
    assert (wrong_method.status_code, error_code(wrong_method)) == (405, "method_not_allowed")
    broken = await api.client.post(
        "/api/tables/table-i/rounds",
        content=b'{"mode": "fun", "bets": {',
        headers=api.auth(token) | {"Content-Type": "application/json"},
    )
    assert (broken.status_code, error_code(broken)) == (422, "invalid_body")
    huge = await api.client.post(
        "/api/accounts", content=b"x" * 100_000, headers={"Content-Type": "application/json"}
    )
    assert (huge.status_code, error_code(huge)) == (413, "payload_too_large")


async def test_tables_list_the_seed_tables_with_exact_rtp(api: Api) -> None:
    tables = {t["id"]: t for t in (await api.client.get("/api/tables")).json()}
    assert list(tables)[:3] == ["table-i", "table-ii", "table-iii"]
    assert tables["table-i"]["limits"] == {
        "min": 200,
        "max": 2_000,
        "tie_min": 200,
        "tie_min_alone": 200,
        "tie_max": 2_000,
    }
    assert tables["table-i"]["chips"] == [100, 500, 2_500, 10_000]
    assert tables["tie-limits-25-1000"]["limits"] == {
        "min": 2_500,
        "max": 100_000,
        "tie_min": 500,
        "tie_min_alone": 2_500,
        "tie_max": 12_000,
    }
    # Seed 002's published single-deck RTPs: banker 98.99%, player 98.71%, tie 84.25%.
    single = tables["single-deck"]["rtp"]
    assert (
        round(single["banker"] * 100, 2),
        round(single["player"] * 100, 2),
        round(single["tie"] * 100, 2),
    ) == (98.99, 98.71, 84.25)
    assert tables["mini"]["cut_shoe"] and tables["mini"]["rules"]["name"] == "mini"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_history_pages_and_exports_verifiable_lines(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    ids = [(await api.play(token, player=500)).json()["id"] for _ in range(5)]
    first = (await api.client.get("/api/history?limit=2", headers=auth)).json()
    assert [r["id"] for r in first["items"]] == ids[:-3:-1]
    second = (
        await api.client.get(f"/api/history?limit=2&before={first['next']}", headers=auth)
    ).json()
    assert [r["id"] for r in second["items"]] == ids[-3:-5:-1]
    exported = await api.client.get("/api/history/export?mode=fun", headers=auth)
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert [line["id"] for line in lines] == ids
    assert {line["fairness"]["server_seed"] for line in lines} == {None}
    rotated = (
        await api.client.post("/api/fairness/rotate", json={"mode": "fun"}, headers=auth)
    ).json()
    seed = rotated["revealed"]["server_seed"]
    assert commitment(seed) == lines[0]["fairness"]["commitment"]
    revealed = await api.client.get("/api/history/export?mode=fun", headers=auth)
    for line in map(json.loads, revealed.text.splitlines()):
        assert (line["format"], line["currency"]) == ("baccarat-history/1", "USD")
        assert line["fairness"]["server_seed"] == seed
        fair = line["fairness"]
        coup = play_coup(shuffled_order(seed, fair["client_seed"], fair["nonce"], 6))
        assert line["player"]["cards"] == [str(c) for c in coup.player.cards]
        assert line["banker"]["cards"] == [str(c) for c in coup.banker.cards]
        assert line["balance_after"] == line["balance_before"] - 500 + line["win"]


async def test_the_client_seed_is_the_players_choice(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    changed = await api.client.put(
        "/api/fairness/client-seed",
        json={"mode": "fun", "client_seed": "my lucky seed"},
        headers=auth,
    )
    assert changed.json()["client_seed"] == "my lucky seed"
    played = (await api.play(token, player=500)).json()
    assert played["fairness"]["client_seed"] == "my lucky seed"
    state = (await api.client.get("/api/fairness", headers=auth)).json()
    assert state["fun"]["next_nonce"] == 1 and state["real"]["next_nonce"] == 0
    bad = await api.client.put(
        "/api/fairness/client-seed", json={"mode": "fun", "client_seed": "tab\there"}, headers=auth
    )
    assert error_code(bad) == "invalid_client_seed"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_mini_table_deals_from_the_players_cut_shoe(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    refused = await api.play(token, table="mini", player=500)
    assert (refused.status_code, error_code(refused)) == (409, "cut_required")
    shoe = (await api.client.get("/api/tables/mini/shoe?mode=fun", headers=auth)).json()
    assert shoe["cut_due"] is True
    cut = await api.client.post(
        "/api/tables/mini/shoe", json={"mode": "fun", "cut": 415}, headers=auth
    )
    assert cut.status_code == 200 and cut.json()["cut_due"] is False
    played = (await api.play(token, table="mini", player=500)).json()
    assert played["fairness"]["cut"] == 415
    assert played["shoe"]["cards_left"] == 416 - played["shoe"]["position"]
    outside = await api.client.post(
        "/api/tables/table-i/shoe", json={"mode": "fun", "cut": 3}, headers=auth
    )
    assert error_code(outside) == "not_a_cut_shoe_table"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_cashier_requests(api: Api) -> None:
    token = await api.player()
    system = api.casino.system
    deposit = await api.client.post(
        "/api/wallet/deposits", json={"amount": 5_000}, headers=api.auth(token)
    )
    assert deposit.status_code == 201 and deposit.json()["status"] == "pending"
    from baccarat.server import wallet

    await api.casino.db.write(lambda uow: wallet.decide(uow, deposit.json()["id"], True, system))
    withdrawal = await api.client.post(
        "/api/wallet/withdrawals", json={"amount": 2_000}, headers=api.auth(token)
    )
    assert withdrawal.status_code == 201
    too_much = await api.client.post(
        "/api/wallet/withdrawals", json={"amount": 3_001}, headers=api.auth(token)
    )
    assert error_code(too_much) == "insufficient_funds"
    balances = (await api.client.get("/api/wallet", headers=api.auth(token, None))).json()
    assert balances == {"fun": 100_000, "real": 3_000, "pending_withdrawals": 2_000,
                        "currency": "USD"}  # fmt: skip
    listed = (await api.client.get("/api/wallet/withdrawals", headers=api.auth(token, None))).json()
    assert [(r["amount"], r["status"]) for r in listed] == [(2_000, "pending")]
    moves = (
        await api.client.get("/api/wallet/statement?mode=real", headers=api.auth(token, None))
    ).json()
    assert [m["amount"] for m in moves["items"]] == [-2_000, 5_000]
    api.shoes.current = StackedShoes(BANKER_WINS)
    await api.play(token, player=2_000)
    topped = await api.client.post("/api/wallet/fun/top-up", headers=api.auth(token))
    assert topped.json()["added"] == 2_000 and topped.json()["fun"] == 100_000


async def test_the_browser_files_are_served_beside_the_api(
    database_url: object, tmp_path: object, clock: object
) -> None:
    from pathlib import Path

    from ..harness import Running, SwitchableShoes, in_process, server_settings

    assert isinstance(tmp_path, Path)
    web = tmp_path / "web"
    (web / "js").mkdir(parents=True)
    (web / "index.html").write_text("<h1>baccarat</h1>")
    (web / "js" / "app.js").write_text("console.log(1)")
    shoes = SwitchableShoes()
    settings = server_settings(database_url, tmp_path, clock, shoes, web_dir=web)  # type: ignore[arg-type]
    async with in_process(settings, Running, base_url="http://t") as server:
        client = server.client
        assert (await client.get("/")).text == "<h1>baccarat</h1>"
        assert (await client.get("/js/app.js")).status_code == 200
        assert (await client.get("/api/tables")).status_code == 200
        assert error_code(await client.get("/api/nothing")) == "not_found"
        assert error_code(await client.get("/missing.html")) == "not_found"
        assert (await client.get("/docs")).status_code == 200


async def test_the_shoe_routes_document_each_refusal_they_give(api: Api) -> None:
    """A mode that is none (the shoe read) and a shared table's shoe (read or cut: it is the
    table's, not the player's): answered with their codes, each listed in the route's
    documented answers."""
    token = await api.player("shoemaker")
    schema = (await api.client.get("/openapi.json")).json()["paths"]["/api/tables/{table_id}/shoe"]

    def documented(method: str, status: int) -> str:
        return str(schema[method]["responses"][str(status)]["description"])

    read = await api.client.get("/api/tables/mini/shoe?mode=bogus", headers=api.auth(token))
    assert (read.status_code, error_code(read)) == (422, "invalid_mode")
    assert "`invalid_mode`" in documented("get", 422)
    cut = await api.client.post("/api/tables/live/shoe", json={"mode": "fun", "cut": 10},
                                headers=api.auth(token))  # fmt: skip
    assert error_code(cut) == "shared_table"
    assert "`shared_table`" in documented("post", cut.status_code)
    shared = await api.client.get("/api/tables/live/shoe", headers=api.auth(token))
    assert error_code(shared) == "shared_table" and "is shared" in shared.json()["error"]["message"]
    assert "`shared_table`" in documented("get", shared.status_code)
