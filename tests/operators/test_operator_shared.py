"""An operator's player at a shared table, on the operator's wallet, with the game server and
the demo operator as processes: bets placed and replaced in the window, the coup dealt on
the table's clock, the win paid; a bet the wallet does not confirm is rolled back and not
played; a win the wallet fails is retried until it lands; a game server killed with
``kill -9`` after the deal, before the win landed, pays it once when it comes back, though
the player's sessions ended meanwhile. The placement, the deal and the kill run for each
wallet contract (``either``: on both, a coup's bet is a call at placement and its win one
at the deal); the rest for API v1."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from ..harness import http, until
from .support import Pair, Pairs, database, pair, play

TABLE = "fast"
LIGHTNING = "fast-lightning"  # multiplier baccarat: a fee of 1/5 taken with each stake
TABLES = f"""
[[table]]
id = "house"
name = "House"
rules = "online-6deck-tie9"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"

[[table]]
id = "{LIGHTNING}"
name = "Fast Multiplier"
rules = "multiplier-shoe"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = {{ betting_s = 4, result_s = 1 }}

[[table]]
id = "{TABLE}"
name = "Fast"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = {{ betting_s = 4, result_s = 1 }}
"""
TWICE = "grace"  # on_postgres: this player's placements are tried twice
FINISH_S = 90  # how long a test waits for what must happen (a hang fails, never a race)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pairs]:
    folder = tmp_path_factory.mktemp("operators-shared")
    with Pairs(folder, TABLES, timeout_s=0.5) as started:
        yield started


@pytest.fixture(scope="module")
def on_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """The same, the game's database a throwaway PostgreSQL cluster (its row locks)."""
    folder = tmp_path_factory.mktemp("operators-shared-pg")
    tables = folder / "tables.toml"
    tables.write_text(TABLES)
    with (
        database("postgresql", "operators_shared") as url,
        pair(folder, timeout_s=0.5, tables=tables, database=url,
             first_try_fails=(TWICE,)) as running,
    ):  # fmt: skip
        yield running


@pytest.fixture(autouse=True)
def no_faults(request: pytest.FixtureRequest) -> Iterator[None]:
    running = [request.getfixturevalue(n) for n in ("both", "either", "on_postgres")
               if n in request.fixturenames]  # fmt: skip
    for one in running:
        one.faults(late=0, fail=0, drop=0)
    yield
    for one in running:
        one.faults(late=0, fail=0, drop=0)


def auth(token: str, idempotency_key: str | None = None) -> dict[str, str]:
    found = {"Authorization": f"Bearer {token}"}
    return found | ({"Idempotency-Key": idempotency_key} if idempotency_key else {})


def fresh_coup(both: Pair, token: str, after: int = 0, table: str = TABLE) -> int:
    """A coup whose window has just opened (after coup ``after``)."""

    def opened() -> int | None:
        state = http().get(f"{both.game.url}/api/tables/{table}/state", headers=auth(token),
                          timeout=10).json()  # fmt: skip
        fresh = state["phase"] == "betting" and state["coup"] > after
        return int(state["coup"]) if fresh else None

    seen = until(opened, "a window opens", timeout=FINISH_S)
    return until(
        lambda: (c := opened()) and c > seen and c, "the next window opens", timeout=FINISH_S
    )


def bet(both: Pair, token: str, coup: int, bets: dict[str, int], key: str = "",
        table: str = TABLE) -> httpx.Response:  # fmt: skip
    return http().put(f"{both.game.url}/api/tables/{table}/coups/{coup}/bets",
                     json={"mode": "real", "bets": bets},
                     headers=auth(token, key or str(uuid.uuid4())), timeout=30)  # fmt: skip


def coup_view(both: Pair, token: str, coup: int) -> dict[str, Any]:
    reply = http().get(f"{both.game.url}/api/tables/{TABLE}/coups/{coup}", headers=auth(token),
                      timeout=10)  # fmt: skip
    assert reply.status_code == 200, reply.text
    found: dict[str, Any] = reply.json()
    return found


def reported(both: Pair, round_id: str, *states: str) -> dict[str, Any] | None:
    line = next((r for r in both.report() if r["round"] == round_id), None)
    return line if line is not None and line["state"] in states else None


def balance(both: Pair, player: str) -> int:
    players = both.admin("ledger", {})["players"]
    return int(next(b for name, b, *_ in players if name == player))


def transactions(both: Pair, round_id: str) -> list[dict[str, Any]]:
    return [t for t in both.admin("ledger", {})["transactions"] if t["round"] == round_id]


def applied(both: Pair, round_id: str, kind: str) -> list[dict[str, Any]]:
    return [t for t in transactions(both, round_id) if t["kind"] == kind and t["applied"]]


def test_a_bet_at_a_shared_table_is_debited_dealt_and_paid_on_the_operators_wallet(
    either: Pair,
) -> None:
    bet_dealt_and_paid(either)


def test_the_same_on_postgresql(on_postgres: Pair) -> None:
    bet_dealt_and_paid(on_postgres)


def test_a_placement_tried_twice_sends_the_calls_of_the_try_committed(
    on_postgres: Pair,
) -> None:
    # The server's first try of each placement of this player fails once it has written
    # its round and its wallet call, and runs again (first_try/sitecustomize.py).
    both = on_postgres
    token = both.session(TWICE, table=TABLE)
    before = balance(both, TWICE)
    coup = fresh_coup(both, token)
    placed = bet(both, token, coup, {"banker": 1500})
    assert placed.status_code == 200, placed.text
    assert placed.json()["operator_state"] == "placed"
    round_id = placed.json()["operator_round"]
    settled = until(lambda: reported(both, round_id, "settled"), "the win lands", timeout=FINISH_S)
    returned = coup_view(both, token, coup)["bets"]["real"]["returned"]
    # The wallet saw the round committed, once: no call of the try rolled back.
    rounds = {t["round"] for t in both.admin("ledger", {})["transactions"]
              if t["player"] == TWICE}  # fmt: skip
    assert rounds == {round_id}
    assert [t["amount"] for t in applied(both, round_id, "bet")] == [1500]
    assert [t["amount"] for t in applied(both, round_id, "win")] == [returned]
    assert settled["win"] == returned
    assert balance(both, TWICE) == before - 1500 + returned
    # The same for a house round on the operator's wallet.
    house = play(both.game.url, token, str(uuid.uuid4()), {"player": 700}, table="house")
    assert house.status_code == 201, house.text
    played = house.json()
    assert [t["amount"] for t in applied(both, played["id"], "bet")] == [700]
    rounds = {t["round"] for t in both.admin("ledger", {})["transactions"]
              if t["player"] == TWICE}  # fmt: skip
    assert rounds == {round_id, played["id"]}
    # Both were tried twice indeed.
    log = both.game.log_path.read_text()
    assert f"first try failed: placement of {TWICE}" in log
    assert f"first try failed: round of {TWICE}" in log
    check = both.admin_check()
    assert check.returncode == 0, check.stdout + check.stderr


def bet_dealt_and_paid(both: Pair) -> None:
    launched = both.launch("alice", table=TABLE)
    assert launched.status_code == 201, launched.text
    token = both.session("alice", table=TABLE)
    listed = http().get(f"{both.game.url}/api/tables", headers=auth(token), timeout=10).json()
    assert TABLE in {t["id"] for t in listed}  # offered in the session's currency
    before = balance(both, "alice")
    coup = fresh_coup(both, token)
    first = bet(both, token, coup, {"banker": 1000})
    assert first.status_code == 200, first.text
    assert first.json()["operator_state"] == "placed"
    assert first.json()["balance"] == before - 1000 == balance(both, "alice")
    # Replaced in the window: the first bet is rolled back, the new one is a bet of its own.
    second = bet(both, token, coup, {"player": 2000, "tie": 500})
    assert second.status_code == 200, second.text
    assert second.json()["balance"] == before - 2500
    one, two = first.json()["operator_round"], second.json()["operator_round"]
    assert one != two

    settled = until(lambda: reported(both, two, "settled"), "the win lands", timeout=FINISH_S)
    withdrawn = until(
        lambda: reported(both, one, "rolled_back"), "the first bet rolls back", timeout=FINISH_S
    )
    view = coup_view(both, token, coup)
    mine = view["bets"]["real"]
    assert view["phase"] == "dealt" and mine["round_id"] == two and mine["stake"] == 2500
    returned = mine["returned"]
    assert settled["stake"] == 2500 and settled["win"] == returned
    assert [(t["type"], t["state"]) for t in settled["transactions"]] == [
        ("bet", "ok"), ("win", "ok")]  # fmt: skip
    assert [(t["type"], t["state"]) for t in withdrawn["transactions"]] == [
        ("bet", "ok"), ("rollback", "ok")]  # fmt: skip
    # The operator's wallet: the debit, the win, the first bet given back; nothing twice.
    assert balance(both, "alice") == before - 2500 + returned
    assert [t["amount"] for t in applied(both, two, "bet")] == [2500]
    assert [t["amount"] for t in applied(both, two, "win")] == [returned]
    assert [t["rolled_back"] for t in applied(both, one, "bet")] == [1]
    # A coup's bet is dealt after it is placed: two calls each, whatever the contract (the
    # bet, then its win at the deal, or its rollback).
    requests = both.admin("ledger", {})["requests"]
    assert (requests[one], requests[two]) == (2, 2)
    # The balance the game shows that player is the operator's.
    wallet = http().get(f"{both.game.url}/api/wallet", headers=auth(token), timeout=10).json()
    assert wallet["real"] == balance(both, "alice") and wallet["currency"] == "USD"
    # The player's history: the played round, not the withdrawn one.
    history = http().get(f"{both.game.url}/api/history", headers=auth(token), timeout=10).json()
    shown = {r["id"] for r in history["items"]}
    assert two in shown and one not in shown
    check = both.admin_check()
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_multiplier_coup_bets_its_stakes_and_their_fee_on_the_operators_wallet(
    both: Pair,
) -> None:
    token = both.session("ivan", table=LIGHTNING)
    before = balance(both, "ivan")
    coup = fresh_coup(both, token, table=LIGHTNING)
    placed = bet(both, token, coup, {"player": 1000}, table=LIGHTNING)
    assert placed.status_code == 200, placed.text
    assert (placed.json()["stake"], placed.json()["fee"]) == (1000, 200)
    assert placed.json()["balance"] == before - 1200 == balance(both, "ivan")
    round_id = placed.json()["operator_round"]
    settled = until(lambda: reported(both, round_id, "settled"), "the win lands", timeout=FINISH_S)
    assert settled["stake"] == 1200  # the bet sent: the stake and its fee
    assert [t["amount"] for t in applied(both, round_id, "bet")] == [1200]
    history = http().get(f"{both.game.url}/api/history", headers=auth(token), timeout=10).json()
    (played,) = [r for r in history["items"] if r["id"] == round_id]
    assert played["fee"] == 200 and 1 <= len(played["lightning"]) <= 5
    assert balance(both, "ivan") == before - 1200 + played["win"]
    check = both.admin_check()
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_bet_the_wallet_does_not_confirm_is_rolled_back_and_not_played(both: Pair) -> None:
    token = both.session("bob", table=TABLE)
    before = balance(both, "bob")
    coup = fresh_coup(both, token)
    both.faults(fail=1)  # every call answered 500, nothing applied
    refused = bet(both, token, coup, {"banker": 1500})
    assert refused.status_code == 503, refused.text
    error = refused.json()["error"]
    assert error["code"] == "operator_unavailable" and error["details"]["state"] == "rollback"
    round_id = error["details"]["round"]
    until(
        lambda: coup_view(both, token, coup)["phase"] == "dealt",
        "the coup is dealt",
        timeout=FINISH_S,
    )
    both.faults(fail=0)
    line = until(
        lambda: reported(both, round_id, "rolled_back"), "the rollback lands", timeout=FINISH_S
    )
    assert [(t["type"], t["state"]) for t in line["transactions"]] == [
        ("bet", "no_answer"), ("rollback", "does_not_exist")]  # fmt: skip
    # Not played: no bets of bob's on the coup, no round; the wallet never moved.
    assert coup_view(both, token, coup)["bets"] == {}
    assert balance(both, "bob") == before
    assert applied(both, round_id, "bet") == [] and applied(both, round_id, "win") == []


def test_a_bet_answered_past_the_timeout_is_rolled_back_and_not_played(both: Pair) -> None:
    token = both.session("carol", table=TABLE)
    before = balance(both, "carol")
    coup = fresh_coup(both, token)
    watching = f"{both.game.url.replace('http', 'ws')}/api/tables/{TABLE}/ws?mode=real"
    with connect(watching, open_timeout=30) as watcher:
        both.faults(late=1, late_s=1.5)  # past the game's timeout; applied when handled
        late = bet(both, token, coup, {"player": 1000})
        assert late.status_code == 503, late.text
        # Everyone watching saw the bet in the totals, then saw it leave them before the
        # close (told by the transaction that rolled it back, not only by the next read).
        totals = []
        while (message := json.loads(watcher.recv(timeout=FINISH_S)))["type"] not in (
            "closed", "dealt"):  # fmt: skip
            if message["type"] == "totals" and message["coup"] == coup:
                totals.append(message["players"])
        assert message["coup"] == coup and 1 in totals and totals[-1] == 0, totals
    round_id = late.json()["error"]["details"]["round"]
    until(
        lambda: coup_view(both, token, coup)["phase"] == "dealt",
        "the coup is dealt",
        timeout=FINISH_S,
    )
    both.faults(late=0)
    until(lambda: reported(both, round_id, "rolled_back"), "the rollback lands", timeout=FINISH_S)
    assert coup_view(both, token, coup)["bets"] == {}
    # Whether the late bet was applied before its rollback or refused after it, the
    # player's balance at the operator is what it was.
    until(lambda: balance(both, "carol") == before, "the balance is whole again", timeout=FINISH_S)
    assert applied(both, round_id, "win") == []
    assert all(t["rolled_back"] for t in applied(both, round_id, "bet"))


def placed_then_failing(both: Pair, player: str, fault: str) -> tuple[str, int, int, str]:
    """A bet placed on a coup, then every call of the wallet failing (``fault``: ``fail``,
    answered 500 and not applied; ``drop``, applied and never answered) until the coup is
    dealt and its win has been tried twice: (token, balance before, coup, round)."""
    token = both.session(player, table=TABLE)
    before = balance(both, player)
    coup = fresh_coup(both, token)
    placed = bet(both, token, coup, {"banker": 2000})
    assert placed.status_code == 200, placed.text
    round_id = placed.json()["operator_round"]
    both.faults(**{fault: 1})

    def tried() -> bool:
        line = reported(both, round_id, "win")
        return line is not None and any(
            t["type"] == "win" and t["attempts"] >= 2 for t in line["transactions"]
        )

    until(tried, "the win is tried twice and fails", timeout=FINISH_S)
    return token, before, coup, round_id


def test_a_win_the_wallet_fails_is_retried_until_it_lands(both: Pair) -> None:
    token, before, coup, round_id = placed_then_failing(both, "dave", "fail")
    assert applied(both, round_id, "win") == []
    both.faults(fail=0)
    line = until(lambda: reported(both, round_id, "settled"), "the win lands", timeout=FINISH_S)
    returned = coup_view(both, token, coup)["bets"]["real"]["returned"]
    assert line["win"] == returned
    assert [t["amount"] for t in applied(both, round_id, "win")] == [returned]
    assert balance(both, "dave") == before - 2000 + returned


def test_a_game_server_killed_after_the_deal_pays_the_win_once(either: Pair) -> None:
    # The win applied by the wallet but never answered, tried again (the same transaction),
    # the player's sessions ended (at the operator, and ours), and the game server killed:
    # it comes back, its worker resumes the round, and the win lands once: a win is owed
    # whatever became of the session.
    both = either
    token, before, coup, round_id = placed_then_failing(both, "erin", "drop")
    returned = coup_view(both, token, coup)["bets"]["real"]["returned"]
    both.admin("expire", {"player": "erin"})  # the operator's token expired
    ended = http().delete(f"{both.game.url}/api/sessions", headers=auth(token), timeout=10)
    assert ended.status_code in (200, 204), ended.text
    both.game.kill()  # kill -9: the win written and sent, its answer never had
    both.faults(drop=0)
    both.game.start()
    line = until(lambda: reported(both, round_id, "settled"), "the win lands", timeout=FINISH_S)
    assert line["win"] == returned
    assert [t["amount"] for t in applied(both, round_id, "win")] == [returned]
    assert balance(both, "erin") == before - 2000 + returned
    check = both.admin_check()
    assert check.returncode == 0, check.stdout + check.stderr


def test_bets_withdrawn_in_the_window_are_rolled_back_and_not_played(both: Pair) -> None:
    token = both.session("frank", table=TABLE)
    before = balance(both, "frank")
    coup = fresh_coup(both, token)
    placed = bet(both, token, coup, {"banker": 1000})
    assert placed.status_code == 200, placed.text
    round_id = placed.json()["operator_round"]
    withdrawn = bet(both, token, coup, {})
    assert withdrawn.status_code == 200, withdrawn.text
    assert withdrawn.json()["stake"] == 0 and withdrawn.json()["operator_round"] is None
    line = until(
        lambda: reported(both, round_id, "rolled_back"), "the rollback lands", timeout=FINISH_S
    )
    assert [(t["type"], t["state"]) for t in line["transactions"]] == [
        ("bet", "ok"), ("rollback", "ok")]  # fmt: skip
    until(
        lambda: coup_view(both, token, coup)["phase"] == "dealt",
        "the coup is dealt",
        timeout=FINISH_S,
    )
    assert coup_view(both, token, coup)["bets"] == {}
    assert balance(both, "frank") == before
    wallet = http().get(f"{both.game.url}/api/wallet", headers=auth(token), timeout=10).json()
    assert wallet["real"] == before


def test_a_shared_table_retired_with_a_bet_placed_rolls_the_bet_back(both: Pair) -> None:
    token = both.session("heidi", table=TABLE)
    before = balance(both, "heidi")
    coup = fresh_coup(both, token)
    placed = bet(both, token, coup, {"banker": 1000})
    assert placed.status_code == 200, placed.text
    round_id = placed.json()["operator_round"]
    both.game.kill()  # before the close: the coup is never dealt
    argv = both.game.argv
    tables = Path(argv[argv.index("--tables") + 1])
    served = tables.read_text()
    tables.write_text(served.split(f'[[table]]\nid = "{TABLE}"')[0])  # the table is gone
    try:
        both.game.start()
        line = until(
            lambda: reported(both, round_id, "rolled_back"), "the rollback lands", timeout=FINISH_S
        )
        assert [(t["type"], t["state"]) for t in line["transactions"]] == [
            ("bet", "ok"), ("rollback", "ok")]  # fmt: skip
        assert balance(both, "heidi") == before
        check = both.admin_check()
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        both.game.stop()
        tables.write_text(served)
        both.game.start()
