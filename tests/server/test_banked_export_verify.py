"""Player-banked seats and the verifier: the seat's own seed is committed to both when the
pair forms, before either client seed is known; both client seeds enter every shuffle
(the banker's first); the seed is revealed to both when the seat ends. Each participant's
export then verifies every round of the seat, nonces included, without anybody rotating;
a changed card or a round cut from either export is named."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import get_rules
from baccarat.fairness import commitment, shuffled_order
from baccarat.fairness.history import parse_history, seat_client_seed
from baccarat.fairness.signing import PublicKeys, parse_keys
from baccarat.fairness.verify import HistoryReport, Kind, Status, verify_history

from .banked import SeatServer, serving
from .conftest import BACKENDS

pytestmark = pytest.mark.anyio


@pytest.fixture
async def server(database_url: Any, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


def report_of(lines: list[str], keys: PublicKeys | None = None) -> HistoryReport:
    return verify_history(parse_history(lines), keys)


def seat_lines(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines if "banked" in json.loads(line)]


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_both_sides_of_a_seat_verify_its_rounds_once_the_seat_ends(
    server: SeatServer,
) -> None:
    banker, player = await server.player("bank"), await server.player("play")
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    joined = await player.join("banked-i", "player")
    await player.connect(seat)
    # The pair's seed is committed as it forms, before either client seed is known.
    fair = joined.json()["seat"]["fairness"]
    committed = fair["commitment"]
    assert fair["client_seeds"] == {"player": None, "banker": None} and not fair["fixed"]
    assert "client_seed" in joined.json()["allowed_actions"]
    for who, seed in ((banker, "banker's own: seed"), (player, 'player "own" seed')):
        answer = await who.call("PUT", f"/api/seats/{seat}/client-seed", {"client_seed": seed})
        assert answer.status_code == 200, answer.text
        assert answer.json()["seat"]["fairness"]["commitment"] == committed
        # Neither sees the other's seed before the first deal fixes them.
        others = answer.json()["seat"]["fairness"]["client_seeds"]
        assert all(c is None or c["seed"] is None for c in others.values())
    assert (await player.deal_rest(seat, player=500)).status_code == 201
    assert (await player.deal_rest(seat, banker=1_000)).status_code == 201
    assert (await player.deal_rest(seat, tie=300)).status_code == 201
    late = await banker.call("PUT", f"/api/seats/{seat}/client-seed", {"client_seed": "later"})
    assert late.status_code == 409 and late.json()["error"]["code"] == "client_seed_fixed"
    house = await player.call("POST", "/api/tables/table-i/rounds",
                              {"mode": "fun", "bets": {"player": 200}},
                              **{"Idempotency-Key": "house"})  # fmt: skip
    assert house.status_code == 201
    assert (await player.deal_rest(seat, banker=400)).status_code == 201

    # Before the seat ends its rounds cannot be verified yet, by either side.
    theirs = (await banker.export()).splitlines()
    assert report_of(theirs).counts[Status.UNVERIFIABLE] == 4
    # The player leaves: the seat's seed is revealed to both (nobody rotated anything).
    assert (await player.call("POST", f"/api/seats/{seat}/leave")).status_code == 200

    theirs = (await banker.export()).splitlines()
    # Checked with the casino's published keys: every line is what the casino signed.
    published = PublicKeys(parse_keys((await banker.call("GET", "/api/fairness")).json()))
    report = report_of(theirs, published)
    assert report.ok, [str(f) for f in report.findings]
    assert report.counts[Status.VERIFIED] == 4 and report.server_client_seeds == 0
    assert not [n for n in report.notes if n.kind is Kind.UNCHECKED]
    assert report.balance_breaks == 0
    lines = seat_lines(theirs)
    seed = lines[0]["fairness"]["server_seed"]
    assert commitment(seed) == committed
    both = seat_client_seed("banker's own: seed", 'player "own" seed')
    for nonce, line in enumerate(lines):
        fair = line["fairness"]
        assert fair["client_seeds"] == {"banker": "banker's own: seed",
                                        "player": 'player "own" seed'}  # fmt: skip
        assert (fair["client_seed"], fair["nonce"], fair["nonces_used"]) == (both, nonce, 4)
        assert fair["client_seed_source"] == "client"
        order = shuffled_order(seed, both, nonce, get_rules(line["rules"]).decks)
        assert line["player"]["cards"][0] == str(order[0])

    mine = (await player.export()).splitlines()
    report = report_of(mine)
    assert report.ok, [str(f) for f in report.findings]
    # The seat's four rounds verify; the house round waits for the player's own rotation.
    assert report.counts[Status.VERIFIED] == 4 and report.counts[Status.UNVERIFIABLE] == 1
    assert report.server_client_seeds == 1  # the house round: the player never set one

    # A changed card in the banker's export is named; so is a round cut from it.
    changed = copy.deepcopy(lines)
    card = changed[1]["banker"]["cards"][0]
    changed[1]["banker"]["cards"][0] = ("2" if card[0] != "2" else "3") + card[1]
    tampered = report_of([json.dumps(line) for line in changed])
    assert [r.status for r in tampered.rounds][1] is Status.DIFFERS
    assert "banker.cards" in [d.field for d in tampered.rounds[1].differences]
    cut = report_of([json.dumps(line) for i, line in enumerate(lines) if i != 1])
    assert [f.kind for f in cut.findings] == [Kind.NONCE_GAP]
    # A client seed that is not the two participants' is named.
    swapped = copy.deepcopy(lines)
    swapped[0]["fairness"]["client_seed"] = seat_client_seed('player "own" seed', "x")
    fields = [d.field for d in report_of([json.dumps(x) for x in swapped]).rounds[0].differences]
    assert "fairness.client_seed" in fields


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_seat_client_seed_never_set_is_the_servers_and_named(server: SeatServer) -> None:
    banker, player = await server.player("bank"), await server.player("play")
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    answer = await player.call("PUT", f"/api/seats/{seat}/client-seed", {"client_seed": "mine"})
    assert answer.status_code == 200
    assert (await player.deal_rest(seat, player=500)).status_code == 201
    assert (await player.call("POST", f"/api/seats/{seat}/leave")).status_code == 200
    theirs = report_of((await banker.export()).splitlines())
    assert theirs.ok and theirs.server_client_seeds == 1
    (note,) = [n for n in theirs.notes if n.kind is Kind.SERVER_CLIENT_SEED]
    assert "line(s) 1" in note.message
    mine = report_of((await player.export()).splitlines())
    assert mine.ok and mine.server_client_seeds == 0
