"""Autoplay and the latency meter in the browser (docs/jurisdictions.md). Autoplay: N rounds
of the same bets, each sent and shown as any round, stopping at its last round, on the
player's loss and single-win limits, a balance changed by anything else, a refusal, the page
losing the focus or the connection; Malta's alert at intervals (the house tables of a Malta
server whose every shoe deals the banker a natural 9 against the player's 0); one placement
per coup at a shared table. The latency meter of a shared table: good here, and poor with a
warning when the socket's pongs never come back."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli

from ..harness import free_port, live, uvicorn_argv
from ..server.support import BANKER_WINS
from .audits import audit
from .webtools import Player, console_errors, fresh_table, open_table, place, serving

STOPPED = "#table-message[data-kind=warn]"


MALTA_DATA: list[Path] = []  # the data folder of the module's Malta server (its CLI's)


@pytest.fixture(scope="module")
def malta(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Malta server (autoplay with a loss limit and an alert) dealing BANKER_WINS."""
    data, port = tmp_path_factory.mktemp("malta"), free_port()
    env = {"BACCARAT_DATA_DIR": str(data), "BACCARAT_TEST_STACK": BANKER_WINS,
           "BACCARAT_PROFILE": "MT"}  # fmt: skip
    MALTA_DATA[:] = [data]
    with live(uvicorn_argv("tests.server.apps:stacked", port), env, data / "server.log", port,
              cwd=data) as server:  # fmt: skip
        yield server.url


def _settings(page: Any) -> None:
    """Open the autoplay's settings (from the favourites' star, beside the layouts)."""
    page.click("[data-favourites] > summary")
    page.click("[data-autoplay]")


def _start(page: Any, rounds: int, loss: str = "1000", win: str = "", alert: int = 10) -> None:
    _settings(page)
    page.fill("#autoplay-rounds", str(rounds))
    page.fill("#autoplay-loss", loss)
    page.fill("#autoplay-win", win)
    page.fill("#autoplay-alert", str(alert))
    page.click("[data-autoplay-start]")


def _stopped(player: Player, reason: str) -> str:
    """The message the autoplay stopped with for ``reason`` (once its last round is shown)."""
    player.page.wait_for_selector(
        f'[data-autoplay-stop][data-stopped="{reason}"]', state="attached"
    )
    player.page.wait_for_selector('.table-view[data-busy="false"]')
    return str(player.page.text_content("#table-message"))


def _rounds(player: Player) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = player.api("GET", "/api/history?mode=fun&limit=50")["items"]
    return items


def _ready(make_player: Any, malta: str, tables: list[dict[str, Any]], spot: str) -> Player:
    player: Player = make_player(at=malta)
    open_table(player, fresh_table(tables))
    place(player, 500, spot)
    return player


def test_an_autoplay_plays_its_rounds_with_the_alert_malta_asks_for(
    make_player: Any, malta: str, tables: list[dict[str, Any]], axe_source: Path
) -> None:
    player = _ready(make_player, malta, tables, "banker")
    page = player.page
    _settings(page)
    found: list[str] = []
    audit(page, axe_source, "the autoplay's settings", found, sizes=[(1280, 720)])
    assert not found, found
    page.click("[data-autoplay-settings] button[type=button]")  # cancelled
    _start(page, 4, alert=2)
    page.wait_for_selector("[data-autoplay-alert]")
    assert "2 of 4 rounds played, net +$9.50" in str(page.text_content("[data-autoplay-alert]"))
    assert len(_rounds(player)) == 2  # nothing more is played while the alert waits
    page.click('[data-autoplay-go="on"]')
    assert _stopped(player, "done").startswith(
        "Autoplay stopped (all rounds played) after 4 rounds, net +$19.00"
    )
    rounds = _rounds(player)
    assert [r["bets"] for r in rounds] == [{"banker": {"stake": 500, "result": "win",
                                                      "returned": 975}}] * 4  # fmt: skip
    assert not player.errors


@pytest.mark.parametrize(
    ("spot", "loss", "win", "played", "why"),
    [("player", "10", "", 2, "loss"), ("banker", "1000", "4", 1, "win")],
)
def test_an_autoplay_stops_at_the_players_limits(
    make_player: Any, malta: str, tables: list[dict[str, Any]], spot: str, loss: str, win: str,
    played: int, why: str,
) -> None:  # fmt: skip
    player = _ready(make_player, malta, tables, spot)
    _start(player.page, 10, loss=loss, win=win)
    said = {"loss": "your loss limit", "win": "your win limit"}[why]
    assert _stopped(player, why).startswith(f"Autoplay stopped ({said}) after {played} rounds")
    assert len(_rounds(player)) == played


def test_an_autoplay_stops_on_a_refusal_a_balance_change_the_focus_and_the_connection(
    make_player: Any, malta: str, tables: list[dict[str, Any]]
) -> None:
    # A refusal: the second round is refused (as a reality check due would refuse it).
    player = _ready(make_player, malta, tables, "banker")
    sent: list[str] = []

    def refuse_second(route: Any) -> None:
        sent.append(route.request.post_data or "")
        if len(sent) == 2:
            error = {"code": "reality_check_due", "message": "a reality check", "details": {}}
            route.fulfill(status=409, json={"error": error})
        else:
            route.continue_()

    player.page.route("**/api/tables/*/rounds", refuse_second)
    _start(player.page, 10)
    assert _stopped(player, "refused").startswith(
        "Autoplay stopped (a round was refused) after 1 rounds"
    )
    assert [json.loads(body)["autoplay"] for body in sent] == [1, 2]
    # A balance changed by anything else: a round at another table before the second.
    other = _ready(make_player, malta, tables, "banker")

    def elsewhere(route: Any) -> None:
        if json.loads(route.request.post_data or "{}").get("autoplay") == 2:
            body = {"mode": "fun", "bets": {"banker": 500}}
            other.api("POST", "/api/tables/table-ii/rounds", body,
                      {"Idempotency-Key": uuid.uuid4().hex})  # fmt: skip
        route.continue_()

    other.page.route("**/api/tables/table-i/rounds", elsewhere)
    _start(other.page, 10)
    assert _stopped(other, "balance").startswith(
        "Autoplay stopped (your balance changed) after 2 rounds"
    )
    # The page losing the focus, then the connection.
    blur = "document.hasFocus = () => false; window.dispatchEvent(new Event('blur'))"
    for leave, why in (
        (lambda p: p.page.evaluate(blur), "focus"),
        (lambda p: p.context.set_offline(True), "offline"),
    ):
        away = _ready(make_player, malta, tables, "banker")
        _start(away.page, 50)
        away.page.wait_for_function(
            "document.querySelector('[data-autoplay-stop]').textContent.startsWith('\u25a0 1/')"
        )
        leave(away)
        away.page.wait_for_selector(f'[data-autoplay-stop][data-stopped="{why}"]', state="attached")
        away.context.set_offline(False)
        assert len(_rounds(away)) < 50


SHARED = """
[[table]]
id = "auto"
name = "Auto Live"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = { betting_s = 3, result_s = 1 }
"""


@pytest.fixture(scope="module")
def shared_auto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("shared-auto")
    (data / "tables.toml").write_text(SHARED)
    with serving(data, BACCARAT_TABLES=str(data / "tables.toml")) as url:
        yield url


def test_an_autoplay_at_a_shared_table_bets_once_on_each_coup(
    make_player: Any, shared_auto: str
) -> None:
    player: Player = make_player(at=shared_auto)
    page = player.page
    player.goto("table/auto")
    page.wait_for_selector('.shared-view[data-table="auto"]')
    page.click('[data-chip="500"]')
    _settings(page)  # nothing on the felt yet
    page.wait_for_function(
        "document.querySelector('#table-message').textContent.startsWith('Place the bets')"
    )
    page.wait_for_selector('.shared-view[data-phase="betting"]')
    page.click('[data-spot="player"]')
    _settings(page)
    page.fill("#autoplay-rounds", "2")
    page.click("[data-autoplay-start]")
    page.wait_for_function(
        "document.querySelector('#table-message').textContent.startsWith('Autoplay stopped')",
        timeout=40_000,
    )
    assert "(all rounds played) after 2 rounds" in str(page.text_content("#table-message"))
    rounds = player.api("GET", "/api/history?mode=fun")["items"]
    assert len(rounds) == 2
    assert [r["bets"]["player"]["stake"] for r in rounds] == [500, 500]
    coups = sorted(r["shared"]["coup"] for r in rounds)
    assert coups[1] == coups[0] + 1  # one placement on each of two coups in a row
    assert not player.errors


def test_the_latency_meter_says_good_and_warns_when_a_bet_may_come_too_late(
    make_player: Any, shared_auto: str, screenshots: Path
) -> None:
    player: Player = make_player(at=shared_auto)
    page = player.page
    player.goto("table/auto")
    page.wait_for_selector('[data-latency][data-quality="good"]')
    assert str(page.text_content("[data-latency]")).startswith("Connection: good (")
    # A connection whose pongs never come back: poor, and a warning in every window.
    slow: Player = make_player(at=shared_auto)

    def no_pongs(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: None if '"pong"' in str(message) else ws.send(message))

    slow.page.route_web_socket(re.compile(r"/api/tables/[^/]+/ws"), no_pongs)
    slow.goto("table/auto")
    slow.page.wait_for_selector('[data-latency][data-quality="poor"][data-risky="true"]')
    text = str(slow.page.text_content("[data-latency]"))
    assert text == ("Connection: poor (2000 ms) Your connection is slow: a bet placed now may not "
                    "arrive before the window closes.")  # fmt: skip
    slow.page.screenshot(path=str(screenshots / "latency-poor-1366x900.jpg"))
    assert not player.errors and not slow.errors


def test_malta_shows_the_responsible_gaming_tools_before_the_first_real_money_wager(
    make_player: Any, malta: str, tables: list[dict[str, Any]]
) -> None:
    player = _ready(make_player, malta, tables, "banker")
    page = player.page
    page.click('[data-action="deal"]')  # play money: no notice
    player.wait_round()
    (data,) = MALTA_DATA
    assert cli(["admin", "--data-dir", str(data), "deposit", player.nickname, "100.00"]) == 0
    page.click('.topbar [data-mode="real"]')
    page.wait_for_selector('.table-view[data-phase="betting"]')
    place(player, 500, "banker")
    page.click('[data-action="deal"]')
    notice = page.locator("[data-rg-first]")
    notice.wait_for()
    assert "deposit, loss and wager limits" in str(notice.text_content())
    assert notice.locator('a[href="#/responsible"]').count() == 1
    assert len(_rounds(player)) == 1  # nothing is dealt while the notice shows
    page.click("[data-rg-first-ok]")
    # The deal goes on once read, and the notice is not shown again.
    player.wait_round()
    page.click('[data-action="rebet-deal"]')
    player.wait_round()
    assert page.locator("[data-rg-first]").count() == 0
    real = player.api("GET", "/api/history?mode=real")["items"]
    assert len(real) == 2


def test_malta_shows_the_tools_before_the_first_real_money_bets_on_a_shared_coup(
    make_player: Any, malta: str, screenshots: Path
) -> None:
    player: Player = make_player(at=malta)
    (data,) = MALTA_DATA
    assert cli(["admin", "--data-dir", str(data), "deposit", player.nickname, "100.00"]) == 0
    page = player.page
    errors = console_errors(player)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/coups/" in r.url else None)
    player.goto()
    page.click('.topbar [data-mode="real"]')  # (before the table: its socket is real money's)
    player.goto("table/speed")  # nobody watched it: its first window opens whole
    page.wait_for_selector('.shared-view[data-table="speed"][data-phase="betting"]')
    page.click('[data-chip="500"]')
    page.click('[data-spot="player"]')
    notice = page.locator("[data-rg-first]")
    notice.wait_for()
    assert "deposit, loss and wager limits" in str(notice.text_content())
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(screenshots / f"rg-first-shared-{width}x{height}.jpg"))
    page.wait_for_timeout(500)  # twice the page's gathering of chips: still nothing sent
    assert sent == []  # nothing is bet while the notice shows
    page.click("[data-rg-first-ok]")
    page.wait_for_function(
        "document.querySelector('#table-message').textContent.startsWith('Your bets are placed')"
    )
    assert len(sent) == 1
    page.click('[data-spot="player"]')  # read: the next bets go at once
    page.wait_for_function("document.querySelector('#table-message').textContent.includes('$10')")
    assert page.locator("[data-rg-first]").count() == 0
    assert not player.errors and not errors
