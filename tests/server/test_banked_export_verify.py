"""Player-banked seats and the nonce check: a player's rounds at a seat take their own
nonces beside their house rounds; the rounds a player banked were dealt from the other
player's seeds and are left out of the banker's check. A round cut from either export is
named."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.fairness.history import parse_history
from baccarat.fairness.signing import PublicKeys, parse_keys
from baccarat.fairness.verify import HistoryReport, Kind, verify_history

from .banked import SeatServer, serving
from .conftest import BACKENDS

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server(database_url: Any, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


def report_of(lines: list[str], keys: PublicKeys | None = None) -> HistoryReport:
    return verify_history(parse_history(lines), keys)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_banked_rounds_count_in_the_players_nonces_and_not_in_the_bankers(
    server: SeatServer,
) -> None:
    banker, player = await server.player("bank"), await server.player("play")
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    assert (await player.deal_rest(seat, player=500)).status_code == 201
    assert (await player.deal_rest(seat, banker=1_000)).status_code == 201
    assert (await player.deal_rest(seat, tie=300)).status_code == 201
    house = await player.call("POST", "/api/tables/table-i/rounds",
                              {"mode": "fun", "bets": {"player": 200}},
                              **{"Idempotency-Key": "house"})  # fmt: skip
    assert house.status_code == 201
    assert (await player.deal_rest(seat, banker=400)).status_code == 201
    rotated = await player.call("POST", "/api/fairness/rotate", {"mode": "fun"})
    assert rotated.json()["revealed"]["nonces_used"] == 5

    mine = (await player.export()).splitlines()
    published = PublicKeys(parse_keys((await player.call("GET", "/api/fairness")).json()))
    report = report_of(mine, published)
    assert report.ok, [str(f) for f in report.findings]
    assert {json.loads(line)["fairness"]["nonces_used"] for line in mine} == {5}
    assert not [n for n in report.notes if n.kind is Kind.UNCHECKED]
    assert report.balance_breaks == 0  # a seat's held stakes leave no trace between rounds

    theirs = (await banker.export()).splitlines()
    report = report_of(theirs, published)
    assert report.ok, [str(f) for f in report.findings]
    assert any("rounds you banked" in n.message for n in report.notes)
    assert report.balance_breaks == 0

    # The player's second banked round, left out of the player's export, is a gap.
    gone = json.loads(theirs[1])["id"]
    cut = report_of([line for line in mine if json.loads(line)["id"] != gone])
    assert [f.kind for f in cut.findings] == [Kind.NONCE_GAP]
