"""Jurisdiction profiles (docs/jurisdictions.md): the profiles as data, the one in force told
by the API, an operator's launch naming its market, and GB's least time between two house
rounds on the test's clock."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.server import profiles
from baccarat.server.history import iso_time
from baccarat.server.profiles import ProfileError
from baccarat.server.settings import DatabaseUrl, Settings
from baccarat.server.wallets.operator import signing

from ..harness import Api, FakeClock, SwitchableShoes, in_process, server_settings
from .conftest import both_backends
from .support import funded

SECRET = "sixteen-chars-or-more"
OPERATORS = """
[[operator]]
id = "acme"
secret_env = "ACME_PROFILES_SECRET"
wallet_url = "http://127.0.0.1:9/wallet"
currencies = ["USD"]
"""


@pytest.fixture
async def gb(database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock) -> AsyncIterator[Api]:
    """A deployment that plays the GB profile."""
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(), profile="GB")
    async with in_process(settings, Api) as api:
        yield api


@pytest.fixture
async def ontario(
    database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Api]:
    """A deployment that plays the ON profile."""
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(), profile="ON")
    async with in_process(settings, Api) as api:
        yield api


@pytest.fixture
async def operated(
    database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Api]:
    """A default deployment with the operator ``acme`` (its launches may name a market)."""
    monkeypatch.setenv("ACME_PROFILES_SECRET", SECRET)
    (tmp_path / "operators.toml").write_text(OPERATORS)
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(),
                               operators_file=tmp_path / "operators.toml")  # fmt: skip
    async with in_process(settings, Api) as api:
        yield api


def test_the_package_has_the_default_and_the_three_markets_with_their_rules() -> None:
    known = profiles.load()
    assert list(known) == ["default", "GB", "MT", "ON"]
    assert known.deployment.name == "default"
    default, gb, mt, on = known.values()
    # Every feature on by default; GB: none of what speeds play up or multiplies it.
    assert (default.autoplay_rounds, default.fast_reveal, default.min_cycle_ms,
            default.tables_at_once, default.screen) == (100, True, 0, 4, ())  # fmt: skip
    assert (gb.autoplay_rounds, gb.fast_reveal, gb.min_cycle_ms, gb.tables_at_once,
            gb.celebrate_at_most_stake, gb.screen, gb.history_months) == (
        0, False, 5000, 1, False, ("net_position", "session_time"), 3,
    )  # fmt: skip
    assert (mt.autoplay_rounds, mt.autoplay_alert, mt.history_months,
            mt.rg_before_first_wager) == (100, True, 6, True)  # fmt: skip
    assert (on.autoplay_rounds, on.screen) == (0, ("net_position", "session_time"))
    assert {p.recall_rounds for p in known.values()} == {10}
    # Ontario ends a session after 30 minutes without the player's action; the others never.
    assert [p.inactivity_timeout_s for p in known.values()] == [0, 0, 0, 1800]


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "profiles.toml"
    path.write_text(text)
    return path


TEST_MARKET = """
[profile.SE]
title = "Sweden, a test"
autoplay_rounds = 0
autoplay_alert = false
fast_reveal = false
min_cycle_ms = 3000
tables_at_once = 2
celebrate_at_most_stake = false
screen = ["session_time"]
history_months = 12
rg_before_first_wager = true
recall_rounds = 10
favourites = false
latency_meter = true
inactivity_timeout_s = 0
"""


def test_a_deployment_adds_a_market_of_its_own_and_may_play_it(tmp_path: Path) -> None:
    known = profiles.load(_file(tmp_path, TEST_MARKET), "SE")
    assert list(known) == ["default", "GB", "MT", "ON", "SE"]
    assert (known.deployment.name, known.deployment.min_cycle_ms) == ("SE", 3000)
    env = {"BACCARAT_PROFILE": "SE", "BACCARAT_PROFILES": str(tmp_path / "profiles.toml")}
    settings = Settings.from_env(env)
    assert (settings.profile, settings.profiles_file) == ("SE", tmp_path / "profiles.toml")
    assert Settings.from_env(settings.to_env()).profile == "SE"  # and so in the workers


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (("favourites = false", "favourites = 0"), "favourites is true or false"),
        (("min_cycle_ms = 3000", "min_cycle_ms = 3000.5"), "min_cycle_ms is a whole number"),
        (("tables_at_once = 2", "tables_at_once = 0"), "tables_at_once is a whole number from 1"),
        (('["session_time"]', '["confetti"]'), "screen is a list of net_position"),
        (("latency_meter = true", "latency_meter = true\nturbo = true"), "unknown key turbo"),
        (("autoplay_alert = false\n", ""), "autoplay_alert is missing"),
        (("[profile.SE]", "[profile.Sweden]"), "two capital letters"),
        (("[profile.SE]", "[profile.SE"), "not valid TOML"),
    ],
)
def test_a_bad_profile_stops_the_server_with_its_reason(
    tmp_path: Path, change: tuple[str, str], says: str
) -> None:
    with pytest.raises(ProfileError, match=says):
        profiles.load(_file(tmp_path, TEST_MARKET.replace(*change)))


def test_a_deployment_cannot_play_a_profile_nobody_wrote() -> None:
    with pytest.raises(ProfileError, match="'XX' is none of default, GB, MT, ON"):
        profiles.load(None, "XX")


@pytest.mark.anyio
async def test_the_session_tells_the_page_the_profile_of_the_deployment(api: Api, gb: Api) -> None:
    visitor = (await api.client.get("/api/session")).json()
    assert visitor == {"logged_in": False, "profile": profiles.load()["default"].to_json()}
    token = await gb.player()
    told = (await gb.client.get("/api/session", headers=gb.auth(token, None))).json()
    assert (told["logged_in"], told["profile"]["name"], told["profile"]["fast_reveal"]) == (
        True, "GB", False,
    )  # fmt: skip
    listed = (await gb.client.get("/api/profiles")).json()
    assert listed["deployment"] == "GB"
    assert [p["name"] for p in listed["profiles"]] == ["default", "GB", "MT", "ON"]


async def _launch(api: Api, **fields: Any) -> Any:
    body = {"request_uuid": str(uuid.uuid4()), "timestamp": iso_time(api.clock()),
            "player": "u7", "token": "t", "currency": "USD", "language": "en", "demo": True,
            **fields}  # fmt: skip
    raw = json.dumps(body).encode()
    return await api.client.post(
        "/operator/v1/launch", content=raw, headers=signing.headers("acme", SECRET, raw)
    )


@pytest.mark.anyio
async def test_an_operator_launch_with_market_gb_plays_under_gb(operated: Api) -> None:
    api = operated
    launched = await _launch(api, market="GB")
    assert launched.status_code == 201, launched.text
    started = await api.client.post("/api/sessions/launch", json={"code": launched.json()["code"]})
    token = started.json()["token"]
    session = (await api.client.get("/api/session", headers=api.auth(token, None))).json()
    assert session["profile"]["name"] == "GB"
    assert (await api.play(token, player=500)).status_code == 201
    api.clock.advance(4.9)
    refused = await api.play(token, player=500)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "cycle_too_soon")
    # A session of the same deployment launched without a market plays its profile.
    other = await _launch(api, player="u8")
    code = other.json()["code"]
    plain = (await api.client.post("/api/sessions/launch", json={"code": code})).json()["token"]
    told = (await api.client.get("/api/session", headers=api.auth(plain, None))).json()
    assert told["profile"]["name"] == "default"
    assert (await api.play(plain, player=500)).status_code == 201
    assert (await api.play(plain, player=500)).status_code == 201  # no wait by default


@pytest.mark.anyio
async def test_a_launch_naming_no_known_market_is_refused(operated: Api) -> None:
    for market in ("XX", 44, "gb"):
        refused = await _launch(operated, market=market)
        assert refused.status_code == 422
        error = refused.json()["error"]
        assert (error["code"], error["details"]["field"]) == ("unknown_market", "market")
        assert error["details"]["markets"] == ["default", "GB", "MT", "ON"]


@pytest.mark.anyio
async def test_an_operators_market_applies_to_its_launches_that_name_none(
    database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_PROFILES_SECRET", SECRET)
    (tmp_path / "operators.toml").write_text(OPERATORS + 'market = "MT"\n')
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(),
                               operators_file=tmp_path / "operators.toml")  # fmt: skip
    async with in_process(settings, Api) as api:
        for named, plays in ((None, "MT"), ("GB", "GB"), ("default", "default")):
            fields = {} if named is None else {"market": named}
            code = (await _launch(api, **fields)).json()["code"]
            started = await api.client.post("/api/sessions/launch", json={"code": code})
            token = started.json()["token"]
            told = (await api.client.get("/api/session", headers=api.auth(token, None))).json()
            assert told["profile"]["name"] == plays, named  # the launch's own market wins


def test_an_unknown_market_in_the_operators_file_stops_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from baccarat.cli import main as cli
    from baccarat.server.casino import Casino
    from baccarat.server.wallets.operator.config import OperatorConfigError

    monkeypatch.setenv("ACME_PROFILES_SECRET", SECRET)
    operators = tmp_path / "operators.toml"
    operators.write_text(OPERATORS + 'market = "XX"\n')
    assert cli(["serve", "--data-dir", str(tmp_path), "--operators", str(operators)]) == 2
    err = capsys.readouterr().err
    assert "--operators: operator 'acme': market is one of default, GB, MT, ON, not 'XX'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "baccarat.db").exists()  # stopped before anything was opened
    # A server built otherwise (a worker, the tests' apps) stops alike.
    settings = Settings.from_env({"BACCARAT_DATA_DIR": str(tmp_path),
                                  "BACCARAT_OPERATORS": str(operators)})  # fmt: skip
    with pytest.raises(OperatorConfigError, match="market is one of"):
        Casino(settings)
    operators.write_text(OPERATORS + "market = 44\n")
    assert cli(["serve", "--data-dir", str(tmp_path), "--operators", str(operators)]) == 2
    assert 'market is the name of a profile ("GB", "ON")' in capsys.readouterr().err


@pytest.mark.anyio
async def test_gb_refuses_a_round_at_4_9_s_after_the_last_start_and_allows_it_at_5_s(
    gb: Api,
) -> None:
    token = await gb.player()
    opened = await gb.client.get("/api/session/position?mode=fun", headers=gb.auth(token, None))
    assert opened.json()["rounds"] == 0  # (the table opens: the page reads it)
    assert (await gb.play(token, banker=500)).status_code == 201
    gb.clock.advance(4.9)
    refused = await gb.play(token, banker=500)
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "cycle_too_soon"
    assert error["details"] == {"rule": "min_cycle", "profile": "GB", "min_cycle_ms": 5000,
                                "seconds": 5, "wait_ms": 100}  # fmt: skip
    gb.clock.advance(0.1)
    played = await gb.play(token, banker=500)
    assert played.status_code == 201
    # The answer carries the felt's position with the round in it (no second read).
    asked = await gb.client.get("/api/session/position?mode=fun", headers=gb.auth(token, None))
    assert played.json()["position"] == asked.json()
    assert played.json()["position"]["rounds"] == 2
    # The other mode's round counts too: a real round is no way round the wait.
    gb.clock.advance(2)
    again = await gb.play(token, mode="real", banker=500)
    assert again.json()["error"]["code"] == "cycle_too_soon"
    assert again.json()["error"]["details"]["wait_ms"] == 3000


@pytest.mark.anyio
async def test_the_net_position_and_session_time_are_counted_per_mode(api: Api) -> None:
    token = await funded(api, "alice")
    auth = api.auth(token, None)

    async def position(mode: str) -> Any:
        answer = await api.client.get(f"/api/session/position?mode={mode}", headers=auth)
        assert answer.status_code == 200, answer.text
        return answer.json()

    start = await position("fun")
    assert (start["rounds"], start["net"], start["currency"], start["mode"]) == (0, 0, "USD", "fun")
    fun = [(await api.play(token, banker=500, tie=200)).json() for _ in range(2)]
    assert "position" not in fun[0]  # the default's felt shows none
    api.clock.advance(65)
    real = (await api.play(token, mode="real", player=700)).json()
    in_fun, in_real = await position("fun"), await position("real")
    assert (in_fun["rounds"], in_fun["wagered"]) == (2, 1400)
    assert in_fun["net"] == sum(r["win"] - r["stake"] for r in fun)
    assert (in_real["rounds"], in_real["net"]) == (1, real["win"] - real["stake"])
    assert in_real["played_seconds"] == start["played_seconds"] + 65
    refused = await api.client.get("/api/session/position?mode=gold", headers=auth)
    assert refused.status_code == 422
    yen = await api.player("kenji", currency="JPY")
    answer = await api.client.get("/api/session/position", headers=api.auth(yen, None))
    assert (answer.json()["currency"], answer.json()["mode"]) == ("JPY", "fun")


@pytest.mark.anyio
async def test_favourite_bets_are_five_named_layouts_per_kind_of_table(api: Api) -> None:
    token = await api.player("alice")
    auth = api.auth(token, None)

    async def put(kind: str, name: str, bets: Any) -> Any:
        return await api.client.put(f"/api/favourites/{kind}/{name}", json={"bets": bets},
                                    headers=auth)  # fmt: skip

    for n in range(5):
        saved = await put("house", f"layout {n}", {"player": 500 * (n + 1)})
        assert saved.status_code == 200, saved.text
    assert [f["name"] for f in saved.json()["favourites"]] == [f"layout {n}" for n in range(5)]
    full = await put("house", "one more", {"banker": 500})
    assert (full.status_code, full.json()["error"]["code"]) == (409, "favourites_full")
    again = await put("house", "layout 2", {"banker": 700, "tie": 200})  # the same name
    assert again.json()["favourites"][2] == {"name": "layout 2",
                                             "bets": {"banker": 700, "tie": 200}}  # fmt: skip
    shared = await put("shared", "live", {"player": 500})  # another kind's are its own
    assert [f["name"] for f in shared.json()["favourites"]] == ["live"]
    listed = (await api.client.get("/api/favourites/house", headers=auth)).json()
    assert (len(listed["favourites"]), listed["most"], listed["kind"]) == (5, 5, "house")
    gone = await api.client.delete("/api/favourites/house/layout 0", headers=auth)
    assert [f["name"] for f in gone.json()["favourites"]] == [f"layout {n}" for n in (1, 2, 3, 4)]
    missing = await api.client.delete("/api/favourites/house/layout 0", headers=auth)
    assert missing.json()["error"]["code"] == "not_found"
    for kind, name, bets, code in (
        ("house", "x", {"dragon": 500}, "bet_not_offered"),
        ("house", "x", {}, "invalid_favourite"),
        ("house", "   ", {"player": 500}, "invalid_favourite"),
        ("house", "x", {"player": -5}, "invalid_body"),
        ("casino", "x", {"player": 500}, "invalid_request"),
    ):
        refused = await put(kind, name, bets)
        assert refused.json()["error"]["code"] == code, (kind, name, bets)
    # Another player sees none of them.
    bob = await api.player("bob")
    theirs = await api.client.get("/api/favourites/house", headers=api.auth(bob, None))
    assert theirs.json()["favourites"] == []


@pytest.mark.anyio
async def test_a_profile_without_favourites_refuses_them(
    database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock
) -> None:
    path = _file(tmp_path, TEST_MARKET)
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(), profile="SE",
                               profiles_file=path)  # fmt: skip
    async with in_process(settings, Api) as api:
        token = await api.player()
        refused = await api.client.get("/api/favourites/house", headers=api.auth(token, None))
        assert refused.status_code == 403
        error = refused.json()["error"]
        assert error["code"] == "favourites_not_allowed"
        assert error["details"] == {"rule": "favourites", "profile": "SE"}


@pytest.mark.anyio
async def test_gb_refuses_an_autoplay_and_the_default_plays_one_of_100_rounds_at_most(
    api: Api, gb: Api
) -> None:
    def body(number: int) -> dict[str, Any]:
        return {"mode": "fun", "bets": {"player": 500}, "autoplay": number}

    token = await gb.player("gbplayer")
    refused = await gb.client.post("/api/tables/table-i/rounds", json=body(1),
                                   headers=gb.auth(token))  # fmt: skip
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "autoplay_not_allowed"
    assert error["details"] == {"rule": "autoplay_rounds", "profile": "GB", "most": 0, "round": 1}
    on_coup = await gb.client.put("/api/tables/speed/coups/1/bets", json=body(1),
                                  headers=gb.auth(token))  # fmt: skip
    assert on_coup.json()["error"]["code"] == "autoplay_not_allowed"
    # The same round pressed by the player is played.
    pressed = await gb.client.post("/api/tables/table-i/rounds", json=body(1) | {"autoplay": None},
                                   headers=gb.auth(token))  # fmt: skip
    assert pressed.status_code == 201, pressed.text
    # The default plays an autoplay's rounds as any, up to its 100th.
    mine = await api.player()
    for number, status in ((1, 201), (100, 201), (101, 403)):
        answer = await api.client.post("/api/tables/table-i/rounds", json=body(number),
                                       headers=api.auth(mine))  # fmt: skip
        assert answer.status_code == status, answer.text


@pytest.mark.anyio
async def test_several_tables_at_once_are_refused_under_gb_and_four_allowed_by_default(
    api: Api, gb: Api
) -> None:
    async def ask(server: Api, token: str, tables: list[str]) -> Any:
        return await server.client.post("/api/tables-at-once", json={"tables": tables},
                                        headers=server.auth(token, None))  # fmt: skip

    token = await gb.player("gbplayer")
    refused = await ask(gb, token, ["table-i", "speed"])
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "multi_table_not_allowed"
    assert error["details"] == {"rule": "tables_at_once", "profile": "GB", "most": 1, "tables": 2}
    assert (await ask(gb, token, ["table-i"])).json() == {"tables": ["table-i"], "most": 1}
    mine = await api.player()
    four = ["table-i", "table-ii", "speed", "live"]
    assert (await ask(api, mine, four)).json() == {"tables": four, "most": 4}
    five = await ask(api, mine, [*four, "mini"])
    assert five.json()["error"]["details"]["most"] == 4
    banked = await ask(api, mine, ["table-i", "banked-i"])
    assert banked.json()["error"]["code"] == "player_banked_table"
    assert (await ask(api, mine, ["nowhere"])).json()["error"]["code"] == "unknown_table"


@pytest.mark.anyio
async def test_gb_history_reaches_back_past_its_three_months(gb: Api) -> None:
    token = await gb.player()
    first = (await gb.play(token, player=500)).json()
    gb.clock.advance(92 * 24 * 3600)  # past GB's 3 months (and nearer Malta's 6)
    assert gb.casino.profiles.deployment.history_months == 3
    again = {"nickname": "alice", "password": "a good password"}  # (the session has ended)
    token = (await gb.client.post("/api/sessions", json=again)).json()["token"]
    items = (await gb.client.get("/api/history", headers=gb.auth(token, None))).json()["items"]
    assert [r["id"] for r in items] == [first["id"]]
    recalled = await gb.client.get("/api/history/recall", headers=gb.auth(token, None))
    assert [r["id"] for r in recalled.json()["rounds"]] == [first["id"]]


ONTARIO_IDLE_S = 1800
INACTIVE = {"rule": "inactivity_timeout_s", "seconds": 1800, "minutes": 30}


def _code(answer: Any) -> str:
    code: str = answer.json()["error"]["code"]
    return code


@pytest.mark.anyio
@both_backends
async def test_ontario_ends_a_session_after_30_minutes_without_the_players_action(
    ontario: Api,
) -> None:
    api = ontario
    token = await api.player()
    auth = api.auth(token, None)

    async def wallet() -> Any:
        return await api.client.get("/api/wallet", headers=auth)

    assert (await api.play(token, player=500)).status_code == 201
    # Reads are the page's own (its wallet every 30 s, the position): they keep nothing alive.
    api.clock.advance(ONTARIO_IDLE_S / 2)
    assert (await wallet()).status_code == 200
    api.clock.advance(ONTARIO_IDLE_S / 2 - 1)
    assert (await wallet()).status_code == 200
    # An action a second before the limit: the idle time starts again from it.
    assert (await api.play(token, player=500)).status_code == 201
    api.clock.advance(ONTARIO_IDLE_S - 1)
    assert (await wallet()).status_code == 200
    api.clock.advance(1)  # the limit: ended
    ended = await wallet()
    assert ended.status_code == 401
    assert (_code(ended), ended.json()["error"]["details"]) == ("session_inactive", INACTIVE)
    # Every request of the session is refused alike: an action, the page's first read.
    assert _code(await api.play(token, player=500)) == "session_inactive"
    first = await api.client.get("/api/session", headers=auth)
    assert (first.status_code, _code(first)) == (401, "session_inactive")
    # Logged out (the page does so, and the cookies go), it is gone; a new login plays.
    assert (await api.client.delete("/api/sessions", headers=auth)).status_code == 204
    assert _code(await wallet()) == "not_authenticated"
    again = {"nickname": "alice", "password": "a good password"}
    token = (await api.client.post("/api/sessions", json=again)).json()["token"]
    assert (await api.client.get("/api/wallet", headers=api.auth(token, None))).status_code == 200
    # A session nobody acted in since its login ends alike.
    bob = await api.player("bob")
    api.clock.advance(ONTARIO_IDLE_S)
    assert _code(await api.client.get("/api/wallet", headers=api.auth(bob, None))) == (
        "session_inactive"
    )


@pytest.mark.anyio
async def test_an_ontario_launch_ends_idle_and_the_default_never(operated: Api) -> None:
    api = operated
    lobby = "https://casino.example/lobby"
    launched = await _launch(api, market="ON", lobby_url=lobby)
    code = launched.json()["code"]
    ontario = (await api.client.post("/api/sessions/launch", json={"code": code})).json()["token"]
    other = (await _launch(api, player="u8")).json()["code"]
    plain = (await api.client.post("/api/sessions/launch", json={"code": other})).json()["token"]
    mine = await api.player()
    assert (await api.play(ontario, player=500)).status_code == 201
    api.clock.advance(ONTARIO_IDLE_S)
    for token in (plain, mine):  # the default profile: no time-out
        alive = await api.client.get("/api/wallet", headers=api.auth(token, None))
        assert alive.status_code == 200
    ended = await api.client.get("/api/session", headers=api.auth(ontario, None))
    assert ended.status_code == 401
    # The page of an operator's session leads back to the operator's lobby.
    assert ended.json()["error"]["details"] == INACTIVE | {"lobby_url": lobby}
    assert _code(await api.play(ontario, player=500)) == "session_inactive"
