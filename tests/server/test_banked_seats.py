"""Player-banked seats end to end: two clients on a real server over HTTP and WebSocket
(SPEC §7): matching, the help page's example, fees and points, the requirements, auto-
approve, idempotent deals, the lobby, voids, and sockets that are refused."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from baccarat.cli import main as cli
from baccarat.server import wallet
from baccarat.server.settings import DatabaseUrl

from .banked import SeatServer, bearer, pair, seat_of, serving
from .conftest import BACKENDS
from .support import BANKER_WINS, PLAYER_WINS, TIE, StackedShoes

pytestmark = pytest.mark.anyio
# Seed 000's example: player 10 3 (3), banker 10 K (0); the player draws a 10, the banker a
# Q: the player's hand wins 3 to 0, so a bet on the Banker loses.
HELP_PAGE = "Td Kh 3s Kd Tc Qh"


@pytest.fixture
async def server(database_url: DatabaseUrl, tmp_path: Path) -> AsyncIterator[SeatServer]:
    async with serving(database_url, tmp_path) as running:
        yield running


def phase(name: str) -> Any:
    return lambda m: seat_of(m)["phase"] == name


def verify(tmp_path: Path, name: str, text: str, capsys: pytest.CaptureFixture[str]) -> Any:
    path = tmp_path / f"{name}.jsonl"
    path.write_text(text)
    capsys.readouterr()
    # The seat's rounds are what is checked here, not the casino's signatures.
    status = cli(["verify", "--json", "--accept-unsigned", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert status == 0, report
    return report


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_help_pages_example_on_table_ii_between_two_websocket_clients(
    server: SeatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.shoes.current = StackedShoes(HELP_PAGE)
    banker, player = await server.player("dealer"), await server.player("punter")
    await banker.deposit(50_000)  # table II: 50 points and $500
    await banker.give_points(50, "real")
    await player.deposit(10_000)
    seat = await banker.sit("banked-ii", "banker", "real")
    assert await player.sit("banked-ii", "player", "real") == seat
    # Matched: each sees the other's nickname and points; the banker's 35 s are running.
    seen = seat_of(await banker.state(phase("approval")))
    assert seen["player"] == {"nickname": "punter", "points": 0}
    assert seen["timer"]["role"] == "banker" and seen["timer"]["remaining_ms"] == 35_000
    mine = await player.state(phase("approval"))
    assert mine["you"] == "player" and mine["private"] == {"balance": 10_000}
    assert seat_of(mine)["banker"]["nickname"] == "dealer"
    assert seat_of(mine)["banker"]["points"] == 50

    approved = await banker.send("approve")
    assert approved["ok"], approved
    exposure = seat_of(approved["result"])["terms"]["exposure"]
    assert exposure == 45_225 and await banker.balance("real") == 50_000 - exposure
    turn = await player.state(phase("betting"))
    assert seat_of(turn)["timer"]["role"] == "player"
    assert seat_of(turn)["timer"]["remaining_ms"] == 45_000

    placed = await player.send("bets", bets={"banker": 1_000})
    assert placed["ok"] and seat_of(placed["result"])["fee"] == 15
    shown = await banker.state(lambda m: seat_of(m)["stake"] == 1_000)
    assert seat_of(shown)["bets"] == {"banker": 1_000}
    assert await player.balance("real") == 9_000  # held until dealt

    dealt = await player.send("deal", key="deal-1")
    assert dealt["ok"], dealt
    assert dealt["result"]["banked"] | {"seat_id": seat} == {
        "role": "player", "seat_id": seat, "opponent": "dealer", "fee": 15, "net": -1_000,
        "points": 10, "balance_before": 10_000, "balance_after": 9_000,
    }  # fmt: skip
    for who, net, points in ((banker, 985, -10), (player, -1_000, 10)):
        event = await who.event("round")
        assert event["private"]["net"] == net and event["private"]["points"] == points
        assert event["round"]["player"]["cards"] == ["Td", "3s", "Tc"]
        assert event["round"]["banker"]["cards"] == ["Kh", "Kd", "Qh"]
        assert event["round"]["fee"] == 15 and event["round"]["winner"] == "player"
    # The banker won 10 - 0.15 = $9.85; the reserve came back; the casino has its fee.
    assert await banker.balance("real") == 50_985 and await player.balance("real") == 9_000
    assert (await banker.points("real"), await player.points("real")) == (40, 10)
    report = await server.check()
    assert report.totals["real"]["house"] == 15 and report.totals["real"]["escrow"] == 0
    # The next round waits for the banker's approval again.
    again = seat_of(await player.state(lambda m: seat_of(m)["last_round"] is not None))
    assert again["phase"] == "approval" and again["last_round"]["results"] == {
        "player": {"net": -1_000, "points": 10}, "banker": {"net": 985, "points": -10},
    }  # fmt: skip

    # Both find the round in their history, each with their role and side of it.
    (mine_h,) = await player.history("real")
    (theirs_h,) = await banker.history("real")
    assert mine_h["id"] == theirs_h["id"] == dealt["result"]["id"]
    assert (mine_h["role"], mine_h["balance_after"]) == ("player", 9_000)
    assert (theirs_h["role"], theirs_h["balance_before"], theirs_h["balance_after"]) == (
        "banker", 50_000, 50_985,
    )  # fmt: skip
    assert theirs_h["banked"]["net"] == 985 and theirs_h["banked"]["opponent"] == "punter"
    one = await banker.call("GET", f"/api/rounds/{theirs_h['id']}")
    assert one.status_code == 200 and one.json()["role"] == "banker"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_fees_points_and_returns_over_several_auto_approved_rounds(
    server: SeatServer,
) -> None:
    banker, player = await server.player("house"), await server.player("guest")
    seat = await banker.sit("banked-i", "banker", "fun", auto_approve=True)
    await player.sit("banked-i", "player", "fun")
    # Auto-approve: the player's turn comes at once, every round.
    await player.state(phase("betting"))
    await banker.give_points(7)
    cases: list[tuple[str, dict[str, Any], int, int]] = [
        # (cards, bets, returned to the player, fee)
        (PLAYER_WINS, {"player": 1_300}, 2_600, 20),
        (BANKER_WINS, {"banker": 1_000, "tie": 300}, 1_950, 20),
        (TIE, {"player": 500, "banker": 500, "tie": 200}, 500 + 500 + 2_000, 18),
        (BANKER_WINS, {"player": 2_000}, 0, 30),
    ]
    player_total = banker_total = house = 0
    for cards, bets, returned, fee in cases:
        server.shoes.current = StackedShoes(cards)
        answer = await player.deal_rest(seat, **bets)
        assert answer.status_code == 201, answer.text
        stake = sum(bets.values())
        body = answer.json()
        assert (body["win"], body["banked"]["fee"]) == (returned, fee)
        assert body["banked"]["net"] == returned - stake
        player_total += returned - stake
        banker_total += stake - returned - fee
        house += fee
        event = await banker.event("round")
        assert event["private"]["net"] == stake - returned - fee
    assert await player.balance() == 100_000 + player_total
    # The next round is approved already: its exposure is held from the banker's balance.
    assert await banker.balance() == 100_000 + banker_total - 18_090
    # Points: 13 + 13 + 12 + 20 for the player; the banker's 7 are gone after the first.
    assert (await player.points(), await banker.points()) == (58, 0)
    report = await server.check()
    assert report.totals["fun"]["house"] == house
    history = await banker.history()
    assert [h["banked"]["points"] for h in history] == [0, 0, 0, -7]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_both_sides_export_their_history_and_baccarat_verify_accepts_it(
    server: SeatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    banker, player = await server.player("bank"), await server.player("play")
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    stakes: list[dict[str, Any]] = [
        {"player": 500},
        {"banker": 1_000, "tie": 200},
        {"tie": 300},
        {"banker": 2_000},
    ]
    for bets in stakes:  # dealt from the seat's own seed
        assert (await player.deal_rest(seat, **bets)).status_code == 201
    casino = await player.call("POST", "/api/tables/table-i/rounds",
                               {"mode": "fun", "bets": {"player": 200}},
                               **{"Idempotency-Key": "casino"})  # fmt: skip
    assert casino.status_code == 201
    # Until the seat ends and reveals its seed, nothing can be verified, nothing differs.
    report = verify(tmp_path, "early", await banker.export(), capsys)
    assert report["summary"]["unverifiable"] == 4
    assert (await player.call("POST", f"/api/seats/{seat}/leave")).status_code == 200
    # The player's own seed (the casino round) is revealed by rotating it.
    rotated = await player.call("POST", "/api/fairness/rotate", {"mode": "fun"})
    assert rotated.status_code == 200, rotated.text
    for who, role, rounds in ((player, "player", 5), (banker, "banker", 4)):
        lines = (await who.export()).splitlines()
        assert len(lines) == rounds
        assert {json.loads(line).get("role", "player") for line in lines[:4]} == {role}
        report = verify(tmp_path, who.nickname, "\n".join(lines) + "\n", capsys)
        assert report["summary"]["verified"] == rounds, report
    # A banker's line that lies about the fee is caught.
    line = json.loads((await banker.export()).splitlines()[0])
    line["fee"] += 1
    path = tmp_path / "forged.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert cli(["verify", str(path)]) == 1


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_deal_is_idempotent_and_a_casino_round_is_refused_here(
    server: SeatServer,
) -> None:
    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player = await server.player(), await server.player()
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    first = await player.deal_rest(seat, key="same", player=500)
    assert first.status_code == 201
    balance = await player.balance()
    again = await player.deal_rest(seat, key="same", player=500)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and await player.balance() == balance
    other = await player.deal_rest(seat, key="same", player=600)
    assert other.json()["error"]["code"] == "idempotency_conflict"
    keyless = await player.call("POST", f"/api/seats/{seat}/deal", {"bets": {"player": 500}})
    assert keyless.json()["error"]["code"] == "idempotency_key_required"
    casino_round = await player.call(
        "POST", "/api/tables/banked-i/rounds", {"mode": "fun", "bets": {"player": 500}},
        **{"Idempotency-Key": "c1"},
    )  # fmt: skip
    assert casino_round.status_code == 409
    assert casino_round.json()["error"]["code"] == "player_banked_table"
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_socket_deal_without_a_key_is_recorded_under_a_key_the_server_derives(
    server: SeatServer,
) -> None:
    banker, player = await server.player(), await server.player()
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    version = seat_of(await player.state(phase("betting")))["version"]
    dealt = await player.send("deal", bets={"player": 500})
    assert dealt["ok"], dealt
    stored = await server.read(
        lambda uow: uow.all(
            "SELECT key, status, response FROM idempotency_keys WHERE player_id = :p",
            {"p": player.id},
        )
    )
    assert [(k, s) for k, s, _ in stored] == [(f"seat:{seat}:{version}", 201)]
    assert json.loads(stored[0][2])["id"] == dealt["result"]["id"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_banker_must_meet_points_and_balance_to_join_and_before_every_round(
    server: SeatServer,
) -> None:
    banker, player = await server.player(), await server.player()

    async def refused(answer: Any, code: str) -> dict[str, Any]:
        assert answer.status_code == 409, answer.text
        error: dict[str, Any] = answer.json()["error"]
        assert error["code"] == code
        return error

    error = await refused(await banker.join("banked-ii", "banker", "fun"), "banker_points_too_low")
    assert error["details"] | {"table": None} == {"points": 0, "required": 50, "table": None}
    await banker.give_points(50, "real")
    error = await refused(
        await banker.join("banked-ii", "banker", "real"), "banker_balance_too_low"
    )
    assert error["details"]["min_balance"] == 50_000 and error["details"]["balance"] == 0
    await banker.give_points(250)
    await refused(await banker.join("banked-iii", "banker", "fun"), "banker_balance_too_low")

    # Meets them at the join; then spends: the next approval is refused.
    await banker.deposit(50_000)
    seat = await banker.sit("banked-ii", "banker", "real")
    # Nobody plays against themselves.
    await refused(await banker.join("banked-ii", "player", "real", seat_id=seat),
                  "already_seated")  # fmt: skip
    await player.deposit(5_000)
    await player.sit("banked-ii", "player", "real")

    def spend(uow: Any) -> None:
        wallet.withdraw(uow, banker.id, 100, server.casino.system)

    await server.write(spend)
    reply = await banker.send("approve")
    assert not reply["ok"] and reply["error"]["code"] == "banker_balance_too_low"
    # Auto-approve cannot approve either: the refusal is noted, the 35 s keep running.
    reply = await banker.send("auto_approve", on=True)
    state = seat_of(reply["result"])
    assert state["phase"] == "approval" and state["notice"]["code"] == "banker_balance_too_low"
    await banker.deposit(100)
    reply = await banker.send("approve")
    assert reply["ok"] and seat_of(reply["result"])["phase"] == "betting"

    # The other refusals of a join.
    assert (await player.join("table-i")).json()["error"]["code"] == "not_a_banked_table"
    assert (await player.join("nowhere")).json()["error"]["code"] == "unknown_table"
    await refused(await player.join("banked-ii", "player", "real"), "already_seated")
    other = await server.player()
    await refused(await other.join("banked-ii", "player", "real", seat_id=seat), "seat_taken")
    await refused(
        await other.join("banked-ii", "player", "fun", seat_id="banked-ii.1"),
        "seat_taken" if seat == "banked-ii.1" else "seat_mode_mismatch",
    )
    bankers = [await server.player() for _ in range(4)]
    for extra in bankers[:3]:
        assert (await extra.join("banked-i", "banker")).status_code == 201
    fourth = await bankers[3].join("banked-i", "banker")
    assert fourth.status_code == 201
    late = await server.player()
    await refused(await late.join("banked-i", "banker"), "table_full")
    await server.check()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_lobby_lists_who_is_needed_and_follows_the_seats_live(
    server: SeatServer,
) -> None:
    banker, player = await server.player("lola"), await server.player("pete")
    await banker.give_points(3)
    lobby = await connect(server.url.replace("http", "ws") + "/api/seats/ws",
                          additional_headers=bearer(banker.token))  # fmt: skip
    first = json.loads(await lobby.recv())
    assert first["type"] == "seats" and len(first["seats"]) == 12
    assert all(s["needs"] == ["player", "banker"] for s in first["seats"])
    seat = await banker.sit("banked-i", "banker")
    change = json.loads(await lobby.recv())
    assert change["type"] == "seat" and change["seat"]["id"] == seat
    assert change["seat"]["needs"] == ["player"]
    assert change["seat"]["banker"] == {"nickname": "lola", "points": 3}
    listing = (await player.call("GET", "/api/seats")).json()
    assert listing["me"] == {"points": {"fun": 0, "real": 0}, "seats": []}
    (row,) = [s for s in listing["seats"] if s["id"] == seat]
    assert row["needs"] == ["player"] and row["mode"] == "fun"
    # The player is matched with the waiting banker, not sent to an empty seat.
    assert await player.sit("banked-i", "player") == seat
    change = json.loads(await lobby.recv())
    assert change["seat"]["needs"] == [] and change["seat"]["player"]["nickname"] == "pete"
    mine = (await player.call("GET", "/api/seats")).json()["me"]
    assert mine["seats"] == [{"seat": seat, "role": "player"}]
    await lobby.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_voided_banked_round_gives_everything_back(server: SeatServer) -> None:
    from baccarat.server import voids

    server.shoes.current = StackedShoes(PLAYER_WINS)
    banker, player = await server.player(), await server.player()
    await player.give_points(1)
    seat = await banker.sit("banked-i", "banker", auto_approve=True)
    await player.sit("banked-i", "player")
    dealt = (await player.deal_rest(seat, player=2_000)).json()
    assert await banker.balance() == 100_000 - 2_000 - 30 - 18_090  # reserved for the next
    dealer = server.casino.dealer
    await server.write(lambda uow: voids.void_round(uow, dealer, dealt["id"], "malfunction"))
    await player.send("leave")  # the round approved meanwhile ends undealt: reserve back
    assert await banker.balance() == 100_000 and await player.balance() == 100_000
    assert (await player.points(), await banker.points()) == (1, 0)
    report = await server.check()
    assert report.totals["fun"]["house"] == 0
    (mine,) = await player.history()
    (theirs,) = await banker.history()
    assert mine["void_reason"] == theirs["void_reason"] == "malfunction"
    assert theirs["balance_after"] == theirs["balance_before"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_socket_needs_a_session_and_a_seat_and_answers_every_message(
    server: SeatServer,
) -> None:
    banker, player = await server.player(), await server.player()
    seat = await banker.sit("banked-i", "banker")

    async def refused(url: str, code: str, **options: Any) -> None:
        async with connect(url, **options) as ws:
            message = json.loads(await ws.recv())
            assert message["type"] == "error" and message["error"]["code"] == code
            with pytest.raises(ConnectionClosed):
                await ws.recv()
            assert ws.close_code is not None and ws.close_code >= 4000

    await refused(player.ws_url(seat), "not_authenticated")
    await refused(player.ws_url(seat), "not_authenticated", additional_headers=bearer("forged"))
    await refused(player.ws_url(seat), "not_seated", additional_headers=bearer(player.token))
    await refused(player.ws_url("banked-i.99"), "unknown_seat",
                  additional_headers=bearer(player.token))  # fmt: skip
    # A token in the URL is refused, even a good one (URLs are logged).
    await refused(player.ws_url(seat) + f"?token={player.token}", "token_in_url")
    # A session cookie is accepted from this site's pages only.
    cookie = {"Cookie": f"baccarat_session={banker.token}"}
    await refused(banker.ws_url(seat), "csrf_failed",
                  additional_headers=cookie, origin="http://evil.example")  # fmt: skip
    async with connect(banker.ws_url(seat), additional_headers=cookie) as ws:
        assert json.loads(await ws.recv())["you"] == "banker"
    # Every message gets an answer; nonsense is refused with a code.
    for message, code in (("not json", "invalid_body"), ('{"action": "fly"}', "invalid_body"),
                          ('{"action": "deal"}', "not_your_turn"),
                          ('{"action": "bets", "bets": {"player": -5}}', "invalid_body"),
                          ('{"action": "approve"}', "not_your_turn")):  # fmt: skip
        assert banker.ws is not None
        await banker.ws.send(message)
        reply = await banker.event("reply")
        assert not reply["ok"] and reply["error"]["code"] == code, (message, reply)
    assert (await banker.send("ping"))["result"] == "pong"
    state = await banker.send("state")
    assert state["ok"] and state["result"]["you"] == "banker"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_socket_whose_session_ended_elsewhere_moves_nothing(server: SeatServer) -> None:
    """Each socket action checks its session in its own transaction (on PostgreSQL with the
    action's first reads): one ended by another worker, before this one's sweep has closed
    the socket, deals nothing, and the socket is closed then."""
    banker, player, _ = await pair(server, approve=True, bets={"player": 500})
    before = await player.balance("fun")
    await server.write(lambda uow: uow.run(
        "DELETE FROM sessions WHERE player_id = :p", {"p": player.id}
    ))  # fmt: skip
    reply = await player.send("deal")
    assert not reply["ok"] and reply["error"]["code"] == "not_authenticated", reply
    assert await player.closed_with() == 4401
    assert seat_of((await banker.send("state"))["result"])["phase"] == "betting"
    assert await server.read(lambda uow: uow.scalar("SELECT COUNT(*) FROM rounds")) == 0
    assert await player.balance("fun") == before
    await server.check()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_admin_check_finds_a_banked_round_without_its_round_or_of_another_player(
    database_url: DatabaseUrl, tmp_path: Path
) -> None:
    """PostgreSQL keeps no foreign keys on banked_rounds (migration 0019): the check finds
    what they would have refused."""
    from baccarat.server import check as audit

    async with serving(database_url, tmp_path) as server:
        banker, player, _ = await pair(server, approve=True)
        for _ in range(2):
            assert (await player.send("deal", bets={"player": 500}))["ok"]
            assert (await banker.send("approve"))["ok"]
        assert (await server.read(audit.check)).ok

        def corrupt(uow: Any) -> None:
            first, second = [row[0] for row in uow.all(
                "SELECT round_id FROM banked_rounds ORDER BY round_seq")]  # fmt: skip
            uow.run("UPDATE banked_rounds SET round_id = 'r_gone' WHERE round_id = :r",
                    {"r": first})  # fmt: skip
            uow.run("UPDATE banked_rounds SET player_id = banker_id WHERE round_id = :r",
                    {"r": second})  # fmt: skip

        await server.write(corrupt)
        problems = (await server.read(audit.check)).problems
    assert f"banked round r_gone (player {player.id}) has no round" in problems, problems
    other = f"is player {banker.id}'s, its round player {player.id}'s"
    assert any(p.endswith(other) for p in problems), problems
