"""An honest export of every kind of round, played on a real server: the mixed vector.

``play()`` starts a game server (uvicorn in this event loop, on a migrated SQLite database,
the test's clock, the fair derivation, the casino's key of ``cheats.CASINO``) and plays, as a
player whose browser keeps its receipts (``Browser``: what ``web/js/receipts.js`` keeps):

1. fresh shuffles at table-i; a cut shoe at Mini dealt to its cut card; two coups bet on at
   the shared table speed, whose shoe then runs to its end; a player-banked seat's pair of
   three rounds, which ends; then a rotation: everything so far is revealed;
2. fresh shuffles; a second cut shoe, two coups into it; a rotation while that shoe is in
   play: the fresh shuffles' seed is revealed at once, the cut shoes' waits;
3. a fresh shuffle and the second shoe's next coup (neither revealed), a coup of the shared
   table's next shoe (in play), and a new pair's two rounds at the seat (in play).

What each line must verify as is known from what the server announced: a line is verified
when its commitment's seed was revealed (a rotation's answer, the shared shoe's end, the
pair's end), not verifiable yet otherwise; nothing differs. ``python -m tests.fairness.mixed``
writes it to ``tests/data/mixed_export.json`` (the export, the receipts, those statuses);
``cheats.py`` makes the export vectors of it, which both verifiers run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baccarat.server.db import migrate
from baccarat.server.history import iso_time
from baccarat.server.kinds.shared.terms import terms_of
from baccarat.server.settings import BankedSettings, DatabaseUrl

from ..harness import FakeClock, SwitchableShoes, in_loop, server_settings
from ..server.banked import Participant, SeatServer
from .cheats import CASINO_KEY, MIXED_EXPORT_PATH

SHARED = "speed"
SEAT_TABLE = "banked-i"


@dataclass
class Browser:
    """The receipts a browser keeps (``web/js/receipts.js``): every signed commitment it is
    shown before play, once per commitment and mode, seen at the server's clock."""

    clock: FakeClock
    signing_keys: list[dict[str, str]] = field(default_factory=list)
    receipts: list[dict[str, Any]] = field(default_factory=list)

    def keep(self, states: list[dict[str, Any] | None], table: str | None = None) -> None:
        seen = iso_time(self.clock.now)
        for state in [s for shown in states for s in (shown, (shown or {}).get("shoe"))]:
            if not state or any(r["commitment"] == state["commitment"]
                                and r["mode"] == state["mode"] for r in self.receipts):  # fmt: skip
                continue
            self.receipts.append({k: state[k] for k in ("commitment", "mode", "time",
                                                        "signature", "key_id")}
                                 | {"table": table, "seen": seen})  # fmt: skip

    def keep_fairness(self, answer: dict[str, Any], table: str | None = None) -> None:
        self.keep([answer["fun"], answer["real"]], table)
        for key in answer["signing_keys"]:
            if all(k["public_key"] != key["public_key"] for k in self.signing_keys):
                self.signing_keys.append({"key_id": key["key_id"], "public_key": key["public_key"]})

    def to_json(self) -> dict[str, Any]:
        return {"format": "baccarat-receipts/1", "signing_keys": self.signing_keys,
                "receipts": self.receipts}  # fmt: skip


async def ok(answer: Any, status: int = 200) -> Any:
    assert answer.status_code == status, answer.text
    return answer.json()


class Player:
    """The exporter: a participant whose browser keeps receipts and sets fresh client seeds."""

    def __init__(self, who: Participant, browser: Browser):
        self.who = who
        self.browser = browser
        self.seeds = 0
        self.keys = itertools.count(1)

    def fresh_seed(self) -> str:
        self.seeds += 1
        return f"{self.who.nickname}'s browser seed {self.seeds}"

    async def shown(self, table: str | None = None) -> None:
        """A page shows the commitments in force: kept, and a fresh client seed set."""
        self.browser.keep_fairness(await ok(await self.who.call("GET", "/api/fairness")), table)
        body = {"mode": "fun", "client_seed": self.fresh_seed()}
        self.browser.keep([await ok(await self.who.call("PUT", "/api/fairness/client-seed",
                                                       body))], table)  # fmt: skip

    async def receipt(self, commitment: str, table: str) -> None:
        """A seat's or a shared shoe's commitment shown: its signed receipt, kept."""
        query = f"/api/fairness/receipt?commitment={commitment}&mode=fun"
        self.browser.keep([await ok(await self.who.call("GET", query))], table)

    async def play(self, table: str, **bets: int) -> dict[str, Any]:
        answer = await self.who.call(
            "POST",
            f"/api/tables/{table}/rounds",
            {"mode": "fun", "bets": bets},
            **{"Idempotency-Key": f"{table}-{next(self.keys)}"},
        )
        return dict(await ok(answer, 201))

    async def rotate(self) -> dict[str, Any]:
        rotated = dict(await ok(await self.who.call("POST", "/api/fairness/rotate",
                                                    {"mode": "fun"})))  # fmt: skip
        self.browser.keep([rotated["current"]])
        await self.shown()
        return rotated


class Shared:
    """The shared table, on the server's clock (moved by hand) and its ticks."""

    def __init__(self, server: SeatServer, player: Player):
        self.server = server
        self.player = player

    async def state(self) -> dict[str, Any]:
        answer = await self.player.who.call("GET", f"/api/tables/{SHARED}/state?mode=fun")
        return dict(await ok(answer))

    async def tick(self) -> None:
        await self.server.app.state.shared.tick()

    async def open(self) -> dict[str, Any]:
        """The next betting window, its shoe's commitment kept as the page keeps it."""
        await self.tick()
        now = await self.state()
        while now["phase"] != "betting":
            self.server.clock.advance(30)
            await self.tick()
            now = await self.state()
        await self.player.receipt(now["shoe"]["commitment"], SHARED)
        return now

    async def bet(self, **bets: int) -> dict[str, Any]:
        now = await self.open()
        answer = await self.player.who.call(
            "PUT", f"/api/tables/{SHARED}/coups/{now['coup']}/bets",
            {"mode": "fun", "bets": bets}, **{"Idempotency-Key": f"coup-{now['coup']}"},
        )  # fmt: skip
        await ok(answer)
        self.server.clock.advance(terms_of(self.server.casino.tables[SHARED]).betting_s)
        await self.tick()
        return now

    async def finish_shoe(self) -> str:
        """Deal the shoe in play to its end (coups nobody bet on too); its revealed seed's
        commitment."""
        shoe = (await self.state())["shoe"]
        while True:
            now = (await self.state())["shoe"]
            if now["id"] != shoe["id"] or now["finished"]:
                break
            self.server.clock.advance(30)
            await self.tick()
            await self.tick()
        answer = await self.player.who.call("GET", f"/api/tables/{SHARED}/shoes/{shoe['id']}")
        assert answer.status_code == 200, answer.text
        first = json.loads(answer.text.splitlines()[0])["fairness"]
        assert first["server_seed"] is not None
        return str(first["commitment"])


async def pair(player: Player, banker: Participant, rounds: int, leave: bool) -> str:
    """The player joins the banker's seat, both set client seeds, the player bets
    ``rounds`` times; leaving reveals the pair's seed. Its commitment."""
    joined = await ok(await player.who.join(SEAT_TABLE, "player"), 201)
    seat = joined["seat"]["id"]
    await player.who.connect(seat)
    committed = str(joined["seat"]["fairness"]["commitment"])
    await player.receipt(committed, SEAT_TABLE)
    for who, seed in ((banker, "the banker's seed"), (player.who, player.fresh_seed())):
        await ok(await who.call("PUT", f"/api/seats/{seat}/client-seed", {"client_seed": seed}))
    for _ in range(rounds):
        await ok(await player.who.deal_rest(seat, player=500), 201)
    if leave:
        await ok(await player.who.call("POST", f"/api/seats/{seat}/leave"))
        await player.who.disconnect()
    return committed


def _revealed(rotated: dict[str, Any]) -> set[str]:
    return {seed["commitment"] for key in ("revealed", "revealed_shoe_seed")
            if (seed := rotated[key]) is not None}  # fmt: skip


async def play_mixed(server: SeatServer) -> dict[str, Any]:
    """The honest mixed export, as described above: its lines, the browser's receipts, and
    what each line must verify as."""
    ann, banker = await server.player("ann"), await server.player("bob")
    try:
        return await _play_mixed(server, ann, banker)
    finally:
        for who in (ann, banker):
            await who.disconnect()


async def _play_mixed(server: SeatServer, ann: Participant, banker: Participant
                      ) -> dict[str, Any]:  # fmt: skip
    browser = Browser(server.clock)
    player = Player(ann, browser)
    shared = Shared(server, player)
    await player.shown("table-i")
    revealed: set[str] = set()

    # 1. Everything dealt to its end, then a rotation.
    for _ in range(3):
        await player.play("table-i", player=500)
    await ok(await ann.call("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 123}))
    while not (await player.play("mini", banker=200))["shoe"]["cut_due"]:
        pass
    for _ in range(2):
        await shared.bet(banker=500)
    revealed.add(await shared.finish_shoe())
    await banker.sit(SEAT_TABLE, "banker", auto_approve=True)
    revealed.add(await pair(player, banker, 3, leave=True))
    rotated = await player.rotate()
    assert rotated["revealed_shoe_seed"] is not None and rotated["pending"] == []
    revealed |= _revealed(rotated)

    # 2. A rotation while a cut shoe is in play: the fresh shuffles' seed alone is revealed.
    for _ in range(2):
        await player.play("table-i", tie=200)
    await ok(await ann.call("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 7}))
    for _ in range(2):
        await player.play("mini", player=200)
    rotated = await player.rotate()
    assert rotated["revealed_shoe_seed"] is None and rotated["pending"][0]["tables"] == ["mini"]
    revealed |= _revealed(rotated)

    # 3. Rounds whose seeds are not revealed yet.
    await player.play("table-i", banker=500)
    await player.play("mini", banker=200)
    await shared.bet(player=500)
    await pair(player, banker, 2, leave=False)

    export = await ann.call("GET", "/api/history/export")
    assert export.status_code == 200, export.text
    lines = [json.loads(line) for line in export.text.splitlines()]
    statuses = ["verified" if line["fairness"]["commitment"] in revealed else "unverifiable"
                for line in lines]  # fmt: skip
    return {"lines": lines, "receipts": browser.to_json(), "statuses": statuses}


async def play(folder: Path) -> dict[str, Any]:
    """``play_mixed`` on a fresh server whose data lives in ``folder``."""
    url = DatabaseUrl.sqlite_in(folder)
    migrate.upgrade(url)
    settings = server_settings(url, folder, FakeClock(), SwitchableShoes(),
                               signing_key=CASINO_KEY,
                               banked=BankedSettings(poll_s=0.02))  # fmt: skip
    async with in_loop(settings, SeatServer) as server:
        return await play_mixed(server)


def build() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        played = asyncio.run(play(Path(folder)))
    return {
        "about": "An honest export of house, cut-shoe, shared and player-banked rounds, "
        "rotated and not, played on a server, with the receipts its browser kept and what "
        "each line must verify as. Built by tests/fairness/mixed.py.",
        **played,
    }


if __name__ == "__main__":
    MIXED_EXPORT_PATH.write_text(
        json.dumps(build(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
