"""Shared tables with a public randomness beacon: each shoe's commitment is logged before the
beacon round it names is published, the table waits for that round (never dealing without
it), and the verifier checks the table's log, the round's signature and the client seed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.fairness import fair_shoe
from baccarat.fairness.beacon import QUICKNET, check_log, randomness, verify_signature
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Kind, Status, verify_history

from ..fairness.cheats import QUICKNET_ROUND, QUICKNET_SIGNATURE
from ..harness import Api, FakeClock, SwitchableShoes, http, in_process, server_settings
from .conftest import both_backends
from .sharedtables import TABLE, close_and_deal, state, tick

pytestmark = pytest.mark.anyio
SECRET = 0x5EED  # the stand-in's signing key
# A round of drand's quicknet, as its API serves it (QUICKNET_ROUND, QUICKNET_SIGNATURE, from
# the export vectors), and its randomness.
QUICKNET_RANDOMNESS = "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587"


@pytest.fixture
def beacon(clock: FakeClock) -> Iterator[dict[str, Any]]:
    """The stand-in beacon, its own process, its rounds of 1 s from 10 s before the clock."""
    genesis = clock.now // 1_000_000 - 10
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("drand_standin.py")), "0", str(SECRET),
         str(genesis), "1"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        started: dict[str, Any] = json.loads(process.stdout.readline())
        url = f"http://127.0.0.1:{started['port']}"
        http().post(f"{url}/control/now", json={"now": clock.now / 1e6})
        yield started | {"url": url}
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
async def beacon_api(
    tmp_path: Path, clock: FakeClock, beacon: dict[str, Any], database_url: Any
) -> AsyncIterator[Api]:
    settings = server_settings(
        database_url, tmp_path, clock, SwitchableShoes(), beacon_url=beacon["url"],
        beacon_chain=beacon["chain"], beacon_public_key=beacon["public_key"],
    )  # fmt: skip
    async with in_process(settings, Api) as api:
        yield api


def test_a_round_of_drands_quicknet_verifies_and_a_changed_one_does_not() -> None:
    assert verify_signature(QUICKNET.public_key, QUICKNET_ROUND, QUICKNET_SIGNATURE)
    assert randomness(QUICKNET_SIGNATURE) == QUICKNET_RANDOMNESS
    assert not verify_signature(QUICKNET.public_key, QUICKNET_ROUND + 1, QUICKNET_SIGNATURE)
    flipped = QUICKNET_SIGNATURE[:-1] + ("a" if QUICKNET_SIGNATURE[-1] != "a" else "b")
    assert not verify_signature(QUICKNET.public_key, QUICKNET_ROUND, flipped)


def test_the_documented_beacon_vector() -> None:
    from baccarat.core import deal_coup, format_cards, get_rules

    seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    shoe = fair_shoe(get_rules("classic-8deck"), seed, f"speed/1/{QUICKNET_RANDOMNESS}", 0, 0)
    rows = []
    for number in (1, 2):
        position = shoe.position
        coup = deal_coup(shoe)
        hands = [
            f"{side} `{format_cards(hand.cards)}` ({hand.scores[0]}:{hand.scores[1]})"
            for side, hand in (("player", coup.player), ("banker", coup.banker))
        ]
        rows.append(f"| coup {number} at position {position} | {', '.join(hands)}, "
                    f"{coup.winner.value} |")  # fmt: skip
    text = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text()
    vector = text[text.index("### Vector 7") :]
    for row in rows:
        assert row in vector, row
    assert f"`{QUICKNET_SIGNATURE}`" in vector and f"`{QUICKNET_RANDOMNESS}`" in vector


@both_backends
async def test_a_shoe_waits_for_its_beacon_round_and_the_verifier_checks_its_log(
    beacon_api: Api, beacon: dict[str, Any]
) -> None:
    api = beacon_api
    from baccarat.server.kinds.shared import clock as table_clock

    http().post(f"{beacon['url']}/control/hold")
    await state(api)
    await tick(api)
    waiting = (await state(api))["shoe"]
    assert waiting["beacon"]["entered"] is False and waiting["client_seed"] == f"{TABLE}/1"
    named = waiting["beacon"]["round"]
    # The beacon is late: the table waits, whatever the clock says; it deals nothing alone.
    api.clock.advance(20)
    http().post(f"{beacon['url']}/control/now", json={"now": api.clock.now / 1e6})
    for _ in range(3):
        await tick(api)
    now = await state(api)
    assert now["phase"] == "idle" and now["coup"] is None and not now["shoe"]["beacon"]["entered"]
    http().post(f"{beacon['url']}/control/release")
    for _ in range(3):
        await tick(api)
    now = await state(api)
    assert now["phase"] == "betting", now
    value = now["shoe"]["beacon"]["randomness"]
    assert now["shoe"]["client_seed"] == f"{TABLE}/1/{value}"
    assert now["shoe"]["commitment"] == waiting["commitment"]
    for _ in range(3):
        await close_and_deal(api)
        api.clock.advance(30)
        await tick(api)
    dealer, served = api.casino.dealer, [t for t in api.casino.tables if t != TABLE]
    api.casino.db.run_write(lambda uow: table_clock.retire(uow, dealer, served))  # revealed
    answer = await api.client.get(f"/api/tables/{TABLE}/shoes/{now['shoe']['id']}")
    lines = answer.text.splitlines()
    records = parse_history(lines)
    assert len(records) >= 3
    log = records[0].table_log
    assert log is not None and [e["type"] for e in log] == ["commit", "beacon", "reveal"]
    assert log[1]["round"] == named and log[0]["beacon"]["round"] == named
    # The table's whole log: a chain, its head shown in the state.
    for _ in range(3):  # read again if the next shoe's commit came between the two reads
        entries = (await api.client.get(f"/api/tables/{TABLE}/log")).json()["entries"]
        shown = (await state(api))["log"]
        if shown["seq"] == len(entries):
            break
    assert check_log(entries) == [] and [e["type"] for e in entries[:3]] == [
        "commit", "beacon", "reveal",
    ]  # fmt: skip
    # The table, still watched, may have committed its next shoe already (its beacon round
    # is not out yet): a commit of a later shoe, after the reveal.
    later = entries[3:]
    assert all(e["type"] == "commit" and e["shoe"] > now["shoe"]["id"] for e in later), later
    head = len(entries)
    assert shown == {"seq": head, "hash": entries[-1]["hash"]}
    # Only what came after the head (the next shoe's commit, if the clock made it since).
    after = (await api.client.get(f"/api/tables/{TABLE}/log?after={head}")).json()["entries"]
    assert all(e["seq"] > head and e["type"] == "commit" for e in after), after
    report = verify_history(records)
    assert report.ok, [d for r in report.rounds for d in r.differences]
    assert {r.status for r in report.rounds} == {Status.VERIFIED}
    # The stand-in is no known public chain: the report says what that means.
    assert any(n.kind is Kind.TABLE_LOG and "not a known public chain" in n.message
               for n in report.notes)  # fmt: skip
    # A signature changed in the log (its hash fixed up) is named; so is a client seed
    # that is not the one the beacon round makes.
    line = json.loads(lines[0])
    line["table_log"][1]["signature"] = line["table_log"][1]["signature"][:-2] + "00"
    broken = verify_history(parse_history([json.dumps(line)]))
    fields = {d.field for r in broken.rounds for d in r.differences}
    assert not broken.ok and {"table_log", "table_log.beacon.signature"} <= fields, fields
    line = json.loads(lines[0])
    line["fairness"]["client_seed"] = f"{TABLE}/1"
    fields = {d.field for r in verify_history(parse_history([json.dumps(line)])).rounds
              for d in r.differences}  # fmt: skip
    assert "fairness.client_seed" in fields
