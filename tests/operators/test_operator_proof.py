"""The proof: no fault of the network or of either side loses or invents a cent.

The real game server and the real demo operator run as processes on 127.0.0.1; players
play hundreds of rounds while the operator answers 20% of the wallet calls late (past the
game's timeout), 20% with a 500 and drops 20% (applied, never answered), and the game server
is killed with ``kill -9`` twice and started again. Once every round has finished, the two
ledgers are reconciled: each player's balance at the operator is the starting balance plus
(win - bet) over the rounds the game shows as settled; every applied bet has exactly one win
or one rollback; no transaction is applied twice; the game's report matches the operator's
ledger line by line; and ``baccarat admin check`` finds nothing off.
"""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from baccarat.operator_demo.wallet import START_BALANCE

from ..harness import until
from .support import BACCARAT, Pair, pair

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
ROUNDS = 320  # in all
KILLS_AT = (ROUNDS // 3, 2 * ROUNDS // 3)
FINISH_TIMEOUT_S = 90


async def _player(both: Pair, token: str, bets: dict[str, int], left: list[int],
                  kill: asyncio.Event) -> Counter[int]:  # fmt: skip
    """Play until the shared count runs out; each round asked again with its key until
    answered (the server may be down)."""
    seen: Counter[int] = Counter()
    async with httpx.AsyncClient(timeout=30) as client:
        while left[0] > 0:
            left[0] -= 1
            if left[0] in KILLS_AT:
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


async def _run(both: Pair, tokens: dict[str, str]) -> Counter[int]:
    left, kill = [ROUNDS], asyncio.Event()

    async def killer() -> int:
        kills = 0
        while kills < len(KILLS_AT):
            await kill.wait()
            kill.clear()
            both.game.kill()  # kill -9, mid-round
            await asyncio.to_thread(both.game.start)
            kills += 1
        return kills

    bets = [{"banker": 1000}, {"player": 500, "tie": 200}, {"player": 2000}]
    playing = [_player(both, token, bets[i % 3], left, kill)
               for i, token in enumerate(tokens.values())]  # fmt: skip
    killing = asyncio.create_task(killer())
    seen = sum(await asyncio.gather(*playing), Counter[int]())
    assert await asyncio.wait_for(killing, 120) == 2
    return seen


def _finished(both: Pair) -> list[dict[str, Any]]:
    def finished(report: list[dict[str, Any]]) -> bool:
        return not [r for r in report if r["state"] in ("bet", "win", "rollback")]

    return until(both.report, "every round finished", done=finished, timeout=FINISH_TIMEOUT_S,
                 every=0.5)  # fmt: skip


def test_no_fault_loses_or_invents_a_cent(tmp_path: Path) -> None:
    with pair(tmp_path, timeout_s=0.3, late=0.2, fail=0.2, drop=0.2, late_s=0.6) as both:
        tokens = {}
        for player in PLAYERS:  # launched before the faults matter: the launch is ours
            tokens[player] = both.session(player)
        seen = asyncio.run(_run(both, tokens))
        report = _finished(both)
        ledger = both.admin("ledger", {})
        histories = {
            player: httpx.get(f"{both.game.url}/api/history?limit=100", timeout=30,
                              headers={"Authorization": f"Bearer {token}"}).json()
            for player, token in tokens.items()
        }  # fmt: skip
        data_dir = both.game.argv[both.game.argv.index("--data-dir") + 1]
        check = subprocess.run([BACCARAT, "admin", "--data-dir", data_dir, "check"],
                               capture_output=True, text=True)  # fmt: skip

    # Every round asked for was answered, and the faults did happen.
    assert sum(seen.values()) == ROUNDS == len(report)
    states = Counter(r["state"] for r in report)
    assert states["settled"] > ROUNDS // 10 and states["rolled_back"] > ROUNDS // 10, states
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

    # Every applied bet has exactly one win or one rollback; nothing is applied twice.
    transactions = ledger["transactions"]
    applied = [t for t in transactions if t["applied"]]
    assert len({t["uuid"] for t in applied}) == len(applied)
    closing = Counter(t["reference"] for t in applied if t["kind"] in ("win", "rollback"))
    for bet in (t for t in applied if t["kind"] == "bet"):
        assert closing[bet["uuid"]] == 1, bet
    assert all(t["kind"] == "bet" or t["reference"] for t in applied)

    # The report matches the operator's ledger, line by line.
    by_round: dict[str, list[dict[str, Any]]] = {}
    for t in applied:
        by_round.setdefault(t["round"], []).append(t)
    assert set(by_round) <= {r["round"] for r in report}
    for line in report:
        kinds = {t["kind"]: t["amount"] for t in by_round.get(line["round"], [])}
        if line["state"] == "settled":
            assert kinds == {"bet": line["stake"], "win": line["win"]}, line
        elif line["state"] == "rolled_back":
            assert kinds in ({}, {"bet": line["stake"], "rollback": line["stake"]}), line
        else:
            assert kinds == {}, line

    assert check.returncode == 0, check.stdout + check.stderr
