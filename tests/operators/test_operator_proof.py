"""The proof: no fault of the network or of either side loses or invents a cent.

The real game server and the real demo operator run as processes on 127.0.0.1; players
play hundreds of rounds while the operator answers 20% of the wallet calls late (past the
game's timeout), 20% with a 500 and drops 20% (applied, never answered), and the game server
is killed with ``kill -9`` twice and started again. Once every round has finished, the two
ledgers are reconciled: each player's balance at the operator is the starting balance plus
(win - bet) over the rounds the game shows as settled; every applied bet has exactly one win
or one rollback; no transaction is applied twice; the game's report matches the operator's
ledger line by line; and ``baccarat admin check`` finds nothing off.

It runs for each wallet contract: API v1 on SQLite (a round is a bet and a win: 320 rounds),
and the actions contract on PostgreSQL (a house round is one request, its bet and its win,
undone whole by its rollback: 160 rounds, enough for both kills and every fault to strike).
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest

from baccarat.operator_demo.wallet import START_BALANCE

from ..harness import http, until
from .support import Pair, database, pair

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
KILLS = 2
FINISH_TIMEOUT_S = 90


async def _player(both: Pair, token: str, bets: dict[str, int], left: list[int],
                  kills_at: tuple[int, ...], kill: asyncio.Event) -> Counter[int]:  # fmt: skip
    """Play until the shared count runs out; each round asked again with its key until
    answered (the server may be down)."""
    seen: Counter[int] = Counter()
    async with httpx.AsyncClient(timeout=30) as client:
        while left[0] > 0:
            left[0] -= 1
            if left[0] in kills_at:
                kill.set()
            key = str(uuid.uuid4())
            while True:
                try:
                    reply = await client.post(
                        f"{both.game.url}/api/tables/table-i/rounds",
                        json={"mode": "real", "bets": bets},
                        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
                    )
                except httpx.HTTPError:
                    await asyncio.sleep(0.2)  # the server is down: ask again
                    continue
                if reply.status_code in (201, 402, 503):
                    seen[reply.status_code] += 1
                    break
                raise AssertionError(f"{reply.status_code}: {reply.text}")
    return seen


async def _run(both: Pair, tokens: dict[str, str], rounds: int) -> Counter[int]:
    left, kill = [rounds], asyncio.Event()
    kills_at = tuple(rounds * (k + 1) // (KILLS + 1) for k in range(KILLS))

    async def killer() -> int:
        kills = 0
        while kills < KILLS:
            await kill.wait()
            kill.clear()
            both.game.kill()  # kill -9, mid-round
            await asyncio.to_thread(both.game.start)
            kills += 1
        return kills

    bets = [{"banker": 1000}, {"player": 500, "tie": 200}, {"player": 2000}]
    playing = [_player(both, token, bets[i % 3], left, kills_at, kill)
               for i, token in enumerate(tokens.values())]  # fmt: skip
    killing = asyncio.create_task(killer())
    seen = sum(await asyncio.gather(*playing), Counter[int]())
    assert await asyncio.wait_for(killing, 120) == KILLS
    return seen


def _finished(both: Pair) -> list[dict[str, Any]]:
    def finished(report: list[dict[str, Any]]) -> bool:
        return not [r for r in report if r["state"] in ("bet", "win", "rollback")]

    return until(both.report, "every round finished", done=finished, timeout=FINISH_TIMEOUT_S,
                 every=0.5)  # fmt: skip


@pytest.mark.parametrize(("protocol", "store", "rounds"),
                         [("v1", "sqlite", 320), ("actions", "postgresql", 160)])  # fmt: skip
def test_no_fault_loses_or_invents_a_cent(
    tmp_path: Path, protocol: str, store: str, rounds: int
) -> None:
    with (
        database(store, "proof") as url,
        pair(tmp_path, timeout_s=0.3, late=0.2, fail=0.2, drop=0.2, late_s=0.6,
             protocol=protocol, database=url) as both,
    ):  # fmt: skip
        tokens = {}
        for player in PLAYERS:  # launched before the faults matter: the launch is ours
            tokens[player] = both.session(player)
        seen = asyncio.run(_run(both, tokens, rounds))
        report = _finished(both)
        ledger = both.admin("ledger", {})
        histories = {
            player: http().get(f"{both.game.url}/api/history?limit=100", timeout=30,
                              headers={"Authorization": f"Bearer {token}"}).json()
            for player, token in tokens.items()
        }  # fmt: skip
        check = both.admin_check()

    # Every round asked for was answered, and the faults did happen.
    assert sum(seen.values()) == rounds == len(report)
    states = Counter(r["state"] for r in report)
    assert states["settled"] > rounds // 10 and states["rolled_back"] > rounds // 10, states
    assert set(states) <= {"settled", "rolled_back", "refused"}, states

    # Each player's balance: the start plus (win - bet) over the rounds the game settled.
    balances = {name: balance for name, balance, *_ in ledger["players"]}
    for player in PLAYERS:
        settled = [r for r in report if r["player"] == player and r["state"] == "settled"]
        assert balances[player] == START_BALANCE + sum(r["win"] - r["stake"] for r in settled)

    # The player's history is the settled rounds, no more.
    for player, history in histories.items():
        ids = {r["round"] for r in report if r["player"] == player and r["state"] == "settled"}
        shown = {r["id"] for r in history["items"]}
        assert shown == ids or (history["next"] and shown <= ids)

    # Nothing is applied twice; every applied bet has exactly one win that stands or one
    # rollback (on the actions contract the rollback of a bet sent with its win undoes the
    # win too: a win rolled back closes nothing).
    transactions = ledger["transactions"]
    applied = [t for t in transactions if t["applied"]]
    assert len({t["uuid"] for t in applied}) == len(applied)
    kind = {t["uuid"]: t["kind"] for t in applied}

    def closes(t: dict[str, Any]) -> bool:
        if t["kind"] == "win":
            return not t["rolled_back"]
        return t["kind"] == "rollback" and kind.get(t["reference"]) == "bet"

    closing = Counter(t["reference"] for t in applied if closes(t))
    for bet in (t for t in applied if t["kind"] == "bet"):
        assert closing[bet["uuid"]] == 1, bet
    assert all(t["kind"] == "bet" or t["reference"] for t in applied)

    # The report matches the operator's ledger, line by line: what stands of each round
    # there, and what it moved.
    by_round: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in applied:
        by_round[t["round"]].append(t)
    assert set(by_round) <= {r["round"] for r in report}
    for line in report:
        mine = by_round[line["round"]]
        standing = {t["kind"]: t["amount"] for t in mine
                    if t["kind"] != "rollback" and not t["rolled_back"]}  # fmt: skip
        moved = sum(_moved(t, kind) for t in mine)
        if line["state"] == "settled":
            assert standing == {"bet": line["stake"], "win": line["win"]}, line
            assert moved == line["win"] - line["stake"], line
        else:
            assert (standing, moved) == ({}, 0), line

    assert check.returncode == 0, check.stdout + check.stderr


def _moved(t: dict[str, Any], kind: dict[str, str]) -> int:
    """What a transaction moved to the player (a bet, a win, or the rollback of one)."""
    sign = {"bet": -1, "win": 1}
    if t["kind"] == "rollback":
        return -sign[kind[t["reference"]]] * int(t["amount"])
    return sign[t["kind"]] * int(t["amount"])
