"""The game server and the demo operator as processes: launches, signatures, rounds on the
operator's wallet, refusals, demo sessions and the report (no faults: see the proof). The
tests of what a wallet contract decides (a round's calls, refusals, the operator's limit
and messages) run for each contract (``either``); the rest for API v1 (``both``)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from baccarat.server.wallets.operator.signing import headers, timestamp

from ..harness import http, until
from .support import OPERATOR, SECRET, Pair, Pairs, play


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pairs]:
    with Pairs(tmp_path_factory.mktemp("operators")) as started:
        yield started


def operator_balance(both: Pair, player: str) -> int:
    players = both.admin("ledger", {})["players"]
    return int(next(balance for name, balance, *_ in players if name == player))


def key() -> str:
    return str(uuid.uuid4())


# What each contract calls a refusal (its status, as the game passes it on).
STATUS = {
    "v1": {"disabled": "RS_ERROR_USER_DISABLED", "money": "RS_ERROR_NOT_ENOUGH_MONEY",
           "limit": "RS_ERROR_GAMBLING_LIMIT_EXCEEDED"},
    "actions": {"disabled": "player_blocked", "money": "insufficient_funds",
                "limit": "gambling_limit_exceeded"},
}  # fmt: skip


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_round_debits_the_bet_and_credits_the_win_on_the_operators_wallet(
    either: Pair,
) -> None:
    both = either
    token = both.session("alice")
    before = operator_balance(both, "alice")
    answer = play(both.game.url, token, key(), {"player": 1000, "tie": 500})
    assert answer.status_code == 201, answer.text
    played = answer.json()
    assert played["mode"] == "real" and played["payout"] in ("pending", "paid", "none")
    assert (played["payout"] == "none") == (played["win"] == 0)
    assert played["balance_after"] == before - played["stake"] + played["win"]
    line = until(lambda: next((r for r in both.report("player=alice")
                               if r["round"] == played["id"] and r["state"] == "settled"), None),
                 "the round is settled", timeout=30)  # fmt: skip
    assert [(t["type"], t["amount"], t["state"]) for t in line["transactions"]] == [
        ("bet", 1500, "ok"), ("win", played["win"], "ok")]  # fmt: skip
    assert operator_balance(both, "alice") == before - 1500 + played["win"]
    # A house round's result is known when it is dealt: on the actions contract its bet and
    # its win are one request to the operator; on API v1, a bet and then its win.
    assert both.admin("ledger", {})["requests"][played["id"]] == (
        1 if both.protocol == "actions" else 2
    )
    if both.protocol == "actions":
        assert played["payout"] in ("paid", "none")  # the win landed with the bet
    history = http().get(f"{both.game.url}/api/history", timeout=10, headers=auth(token)).json()
    assert played["id"] in [r["id"] for r in history["items"]]


def test_a_multiplier_round_bets_its_stakes_and_their_fee_on_the_operators_wallet(
    both: Pair,
) -> None:
    token = both.session("niaj")
    before = operator_balance(both, "niaj")
    answer = play(both.game.url, token, key(), {"player": 1000, "tie": 500}, table="lightning")
    assert answer.status_code == 201, answer.text
    played = answer.json()
    # The fee (1/5 of each stake) is taken with the stakes, in the bet sent to the operator.
    assert (played["stake"], played["fee"]) == (1500, 300) and played["lightning"]
    assert played["balance_after"] == before - 1800 + played["win"]
    (bet,) = [t for t in both.admin("ledger", {})["transactions"]
              if t["kind"] == "bet" and t["round"] == played["id"]]  # fmt: skip
    assert bet["amount"] == 1800
    (line,) = [r for r in both.report("player=niaj") if r["round"] == played["id"]]
    assert line["stake"] == 1800 and line["win"] == played["win"]


def test_a_round_of_a_market_showing_the_net_position_answers_it(both: Pair) -> None:
    # GB's felt shows the session's net position: the round's answer carries it, counted
    # with the round (docs/jurisdictions.md); the deployment's default shows none.
    briton = both.session("judy", market="GB")
    played = play(both.game.url, briton, key(), {"banker": 1000}).json()
    shown = played["position"]
    assert (shown["rounds"], shown["net"], shown["mode"], shown["currency"]) == (
        1, played["win"] - played["stake"], "real", "USD",
    )  # fmt: skip
    assert "position" not in play(both.game.url, both.session("heidi"), key()).json()


def test_a_round_that_returned_nothing_has_no_win_on_its_way(both: Pair) -> None:
    # A lone tie bet loses nine rounds in ten: a lost round comes within a few.
    token = both.session("mallory")
    for _ in range(40):
        played = play(both.game.url, token, key(), {"tie": 500}).json()
        if played["win"] == 0:
            break
    # No win to credit: not "pending" (the page would say the casino is crediting a win).
    assert (played["win"], played["payout"]) == (0, "none")
    assert played["balance_after"] == played["balance_before"] - 500


def test_a_retried_round_request_is_the_same_round_and_one_bet(either: Pair) -> None:
    both = either
    token = both.session("bob")
    same = key()
    first, again = play(both.game.url, token, same), play(both.game.url, token, same)
    assert first.status_code == again.status_code == 201
    # The same round as the database has it (the first answer is not read back from it):
    # the same cards, bets and balances; only the payout may have landed meanwhile.
    assert {**first.json(), "payout": None} == {**again.json(), "payout": None}
    bets = [t for t in both.admin("ledger", {})["transactions"]
            if t["kind"] == "bet" and t["player"] == "bob"]  # fmt: skip
    assert len(bets) == 1


def test_a_bad_or_missing_signature_is_refused(both: Pair) -> None:
    raw = json.dumps({"player": "alice"}).encode()
    url = f"{both.game.url}/operator/v1/launch"
    for sent in (
        {},  # none
        headers(OPERATOR, "not-the-shared-secret-at-all", raw),
        headers("someone-else", SECRET, raw),
    ):
        refused = http().post(url, content=raw, headers=sent, timeout=10)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "invalid_signature"
    path = "/operator/v1/rounds?player=alice"
    forged = http().get(both.game.url + path, timeout=10,
                       headers=headers(OPERATOR, SECRET, b"/operator/v1/rounds"))  # fmt: skip
    assert forged.json()["error"]["code"] == "invalid_signature"


def test_a_launch_code_is_used_once_and_opens_the_table_in_a_browser(both: Pair) -> None:
    code = both.launch("carol", language="sv", table="table-ii").json()["code"]
    opened = http().get(f"{both.game.url}/play/{code}", timeout=10)
    assert opened.status_code == 303
    assert opened.headers["location"] == "/?lang=sv&mode=real&currency=USD#/table/table-ii"
    assert "baccarat_session" in opened.cookies
    again = http().get(f"{both.game.url}/play/{code}", timeout=10)
    assert (again.status_code, again.json()["error"]["details"]["reason"]) == (401, "used")
    page = http().get(f"{both.game.url}/play/{code}", timeout=10,
                     headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})  # fmt: skip
    assert (page.status_code, page.headers["content-type"]) == (401, "text/html; charset=utf-8")
    assert '<html lang="sv">' in page.text and 'href="http://lobby.example/"' in page.text
    unknown = http().get(
        f"{both.game.url}/play/no-such-code",
        timeout=10,
        headers={"Accept": "text/html", "Accept-Language": "da-DK,da;q=0.9"},
    )
    assert '<html lang="da">' in unknown.text and "<a " not in unknown.text  # no way back
    exchanged = http().post(f"{both.game.url}/api/sessions/launch", json={"code": code})
    assert exchanged.json()["error"]["code"] == "invalid_launch_code"


def test_a_signed_launch_sent_again_answers_the_first_answer_and_never_a_new_session(
    both: Pair,
) -> None:
    token = both.admin("session", {"player": "carol"})["token"]
    body = {"request_uuid": str(uuid.uuid4()), "timestamp": timestamp(), "player": "carol",
            "token": token, "currency": "USD", "language": "en", "demo": False}  # fmt: skip
    raw = json.dumps(body).encode()
    url = f"{both.game.url}/operator/v1/launch"

    def post(raw: bytes) -> httpx.Response:
        return http().post(url, content=raw, timeout=10, headers=headers(OPERATOR, SECRET, raw))

    first, again = post(raw), post(raw)  # the same signed bytes
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert http().get(first.json()["url"], timeout=10).status_code == 303
    assert post(raw).json() == first.json()  # its code used: still no new one
    other = post(json.dumps(body | {"player": "dave"}).encode())
    assert (other.status_code, other.json()["error"]["code"]) == (409, "request_uuid_reused")
    late = {"request_uuid": str(uuid.uuid4()), "timestamp": timestamp(time.time() - 301)}
    stale = post(json.dumps(body | late).encode())
    assert (stale.status_code, stale.json()["error"]["code"]) == (401, "launch_out_of_window")
    undated = post(
        json.dumps(body | {"request_uuid": str(uuid.uuid4()), "timestamp": None}).encode()
    )
    assert undated.json()["error"] == {
        "code": "invalid_body", "details": {"field": "timestamp"},
        "message": "timestamp is the launch's time in ISO 8601, like 2026-12-01T10:00:00Z",
    }  # fmt: skip


def test_a_launch_is_refused_for_a_currency_the_table_lacks(both: Pair) -> None:
    refused = both.launch("carol", currency="EUR", table="table-iii")
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "unsupported_currency"


def test_a_launch_to_a_player_banked_table_is_refused(both: Pair) -> None:
    refused = both.launch("carol", table="banked-i")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "player_banked_table")


def test_an_operator_session_lists_its_tables_in_its_currency(both: Pair) -> None:
    token = both.session("carol")
    listed = http().get(f"{both.game.url}/api/tables", timeout=10,
                       headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
    assert listed and all(t["currency"] == "USD" for t in listed)
    assert not [t for t in listed if t["id"].startswith("banked-")]
    # Shared tables play on the operator's wallet too (test_operator_shared.py).
    assert {"speed", "live"} <= {t["id"] for t in listed if t["shared"]}
    assert both.launch("carol", table="speed").status_code == 201


def test_a_player_the_operator_disables_mid_session_is_refused_and_sees_no_cards(
    either: Pair,
) -> None:
    both = either
    disabled = STATUS[both.protocol]["disabled"]
    token = both.session("dave")
    assert play(both.game.url, token, key()).status_code == 201
    both.admin("disable", {"player": "dave"})
    try:
        refused = play(both.game.url, token, key())
    finally:
        both.admin("disable", {"player": "dave", "disabled": False})
    error = refused.json()["error"]
    assert refused.status_code == 402
    assert (error["code"], error["details"]["status"]) == ("operator_refused", disabled)
    assert "player" not in refused.json() and "banker" not in refused.json()
    history = http().get(f"{both.game.url}/api/history", timeout=10,
                        headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
    assert error["details"]["round"] not in [r["id"] for r in history["items"]]
    asked = http().get(f"{both.game.url}/api/rounds/{error['details']['round']}", timeout=10,
                      headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert asked.status_code == 404  # its cards are never shown
    (line,) = [r for r in both.report("player=dave") if r["round"] == error["details"]["round"]]
    assert (line["state"], line["transactions"][0]["status"]) == ("refused", disabled)


def test_a_bet_the_balance_does_not_cover_is_refused_with_the_operators_reason(
    either: Pair,
) -> None:
    both = either
    token = both.session("erin")
    both.admin("balance", {"player": "erin", "balance": 1000})
    refused = play(both.game.url, token, key(), {"player": 2000}, table="table-ii")
    assert refused.status_code == 402
    assert refused.json()["error"]["details"]["status"] == STATUS[both.protocol]["money"]
    assert operator_balance(both, "erin") == 1000


def test_a_bet_the_operator_refuses_for_its_gambling_limit_tells_the_player_its_reason(
    either: Pair,
) -> None:
    both = either
    token = both.session("niaj")
    before = operator_balance(both, "niaj")
    reason = "You have reached the daily loss limit you set: $20.00."
    both.admin("limit", {"player": "niaj", "reason": reason})
    same = key()
    try:
        refused = play(both.game.url, token, same)
    finally:
        both.admin("limit", {"player": "niaj", "reason": None})
    # Not a generic refusal: the operator's limit, in its words (the page shows them).
    error = refused.json()["error"]
    assert (refused.status_code, error["code"]) == (403, "operator_limit")
    assert error["details"]["status"] == STATUS[both.protocol]["limit"]
    assert error["details"]["reason"] == reason and reason in error["message"]
    assert operator_balance(both, "niaj") == before
    # Asked again with the same key: the same refusal, in the same words.
    assert play(both.game.url, token, same).json() == refused.json()
    assert play(both.game.url, token, key()).status_code == 201  # the limit is lifted


def test_a_message_the_operator_attaches_reaches_the_player_and_the_choice_goes_back(
    either: Pair,
) -> None:
    both = either
    token = both.session("ivan")
    text = "You have been playing for 60 minutes. You have lost $12.00."
    history = "http://lobby.example/history"
    both.admin("message", {"player": "ivan", "text": text, "history_url": history,
                           "choices": ["continue", "close", "view_history"]})  # fmt: skip
    first = play(both.game.url, token, key())
    assert first.status_code == 201, first.text
    message = first.json()["operator_message"]
    assert (message["text"], message["choices"], message["history_url"]) == (
        text, ["continue", "close", "view_history"], history)  # fmt: skip
    # Every answer of play tells it until the player chooses, and the session's.
    assert play(both.game.url, token, key()).json()["operator_message"] == message
    session = http().get(f"{both.game.url}/api/operator/session", headers=auth(token), timeout=10)
    assert session.json()["operator_message"] == message
    url = f"{both.game.url}/api/operator/messages/{message['id']}"
    wrong = http().post(url, json={"choice": "later"}, headers=auth(token), timeout=10)
    assert (wrong.status_code, wrong.json()["error"]["details"]["field"]) == (422, "choice")
    chosen = http().post(url, json={"choice": "continue"}, headers=auth(token), timeout=10)
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["choice"] == "continue" and chosen.json()["sent"] is not None
    # The operator has the choice; the player's next answers carry no message.
    assert [m["choice"] for m in both.admin("ledger", {})["messages"]
            if m["player"] == "ivan"] == ["continue"]  # fmt: skip
    assert "operator_message" not in play(both.game.url, token, key()).json()
    unknown = http().post(f"{both.game.url}/api/operator/messages/999999",
                         json={"choice": "continue"}, headers=auth(token), timeout=10)  # fmt: skip
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "unknown_message")


def test_a_demo_launch_plays_fun_money_and_never_calls_the_wallet(both: Pair) -> None:
    token = both.session("frank", demo=True)
    played = play(both.game.url, token, key(), mode="fun")
    assert played.status_code == 201 and played.json()["mode"] == "fun"
    refused = play(both.game.url, token, key(), mode="real")
    assert refused.json()["error"]["code"] == "mode_not_in_session"
    assert not [t for t in both.admin("ledger", {})["transactions"] if t["player"] == "frank"]


def test_the_admin_command_shows_the_rounds_and_their_calls(
    both: Pair, capsys: pytest.CaptureFixture[str]
) -> None:
    from ..cli.support import run

    token = both.session("grace")
    before = time.time()
    played = play(both.game.url, token, key()).json()
    data_dir = both.game.argv[both.game.argv.index("--data-dir") + 1]
    admin = ("admin", "--data-dir", data_dir, "operators")
    status, shown, _ = run(capsys, *admin, "calls", played["id"])
    assert status == 0 and "bet" in shown and "RS_OK" in shown
    status, listed, _ = run(capsys, *admin, "rounds", "--json")
    assert played["id"] in [r["round"] for r in json.loads(listed)]
    # Every call and its answer are kept, with their bodies, found by player and time.
    status, found, _ = run(capsys, *admin, "calls", "--player", "grace", "--json")
    calls = json.loads(found)
    assert status == 0 and {c["player"] for c in calls} == {"grace"}
    bet = next(c for c in calls if c["round"] == played["id"] and c["call"] == "bet")
    assert json.loads(bet["body"])["transaction_uuid"] == bet["transaction_uuid"]
    assert json.loads(bet["answer"])["status"] == "RS_OK"
    since = timestamp(before - 1)
    status, recent, _ = run(capsys, *admin, "calls", "--player", "grace", "--from", since,
                            "--json")  # fmt: skip
    assert played["id"] in {c["round"] for c in json.loads(recent)}
    status, older, _ = run(capsys, *admin, "calls", "--player", "grace", "--to", since, "--json")
    assert played["id"] not in {c["round"] for c in json.loads(older)}
    status, _, err = run(capsys, *admin, "calls", "--from", "yesterday")
    assert status == 2 and "--from is a time in ISO 8601" in err


def test_a_round_in_another_currency_is_sent_in_its_minor_units(both: Pair) -> None:
    token = both.session("judy", currency="JPY", table="table-i")
    listed = http().get(f"{both.game.url}/api/tables", timeout=10,
                       headers={"Authorization": f"Bearer {token}"}).json()  # fmt: skip
    (table,) = [t for t in listed if t["id"] == "table-i"]
    assert (table["currency"], table["chips"], table["limits"]["min"]) == (
        "JPY", [100, 500, 2500, 10000], 300,
    )  # fmt: skip
    below = play(both.game.url, token, key(), {"banker": 200})
    assert below.json()["error"]["code"] == "bet_below_table_min"
    # The demo operator's players are in USD: its wallet refuses a bet in yen.
    refused = play(both.game.url, token, key(), {"banker": 300})
    assert refused.json()["error"]["details"]["status"] == "RS_ERROR_WRONG_CURRENCY"
    (line,) = [r for r in both.report("player=judy") if r["currency"] == "JPY"]
    assert (line["stake"], line["state"]) == (300, "refused")


def test_the_session_tells_the_page_it_plays_the_operators_money(both: Pair) -> None:
    """GET /api/session tells the page what a session an operator launched is (the page takes
    its mode from it, not from its address): its mode, currency and the operator's lobby."""

    def session(token: str) -> dict[str, object]:
        answer = http().get(f"{both.game.url}/api/session", timeout=10,
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        assert answer.status_code == 200, answer.text
        found: dict[str, object] = answer.json()
        return found

    real = session(both.session("grace", table="table-i", currency="EUR"))
    assert real["logged_in"] and real["operator"] == {
        "operator": OPERATOR, "mode": "real", "currency": "EUR", "language": "en",
        "table": "table-i", "lobby_url": "http://lobby.example/",
    }  # fmt: skip
    demo = session(both.session("grace", demo=True, lobby_url=None))
    assert demo["operator"] == {"operator": OPERATOR, "mode": "fun", "currency": "USD",
                                "language": "en", "table": None, "lobby_url": None}  # fmt: skip
    account = {"nickname": "ownplayer", "password": "a good password"}
    assert http().post(f"{both.game.url}/api/accounts", json=account).status_code == 201
    own = http().post(f"{both.game.url}/api/sessions", json=account).json()["token"]
    assert "operator" not in session(own)


@pytest.mark.parametrize("lobby", ["javascript:alert(1)", "ftp://casino.example/", "/lobby",
                                   "https://"])  # fmt: skip
def test_a_launch_with_a_lobby_that_is_no_web_address_is_refused(both: Pair, lobby: str) -> None:
    refused = both.launch("grace", lobby_url=lobby)
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("invalid_body", "lobby_url")
