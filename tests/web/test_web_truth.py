"""The page always shows the server's truth (issue 11, section 4): a reload mid-reveal, a
reload at a seat with bets held, a lost DEAL answer, offline and back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..harness import until
from .webtools import (
    Player,
    fresh_table,
    last_round,
    new_nickname,
    open_table,
    place,
    seated,
    serving,
    signed,
    usd,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stand_up_after")]


def shown_cards(player: Player, side: str) -> list[str]:
    cards: list[str] = player.page.locator(f'[data-cards="{side}"] [data-card]').evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    return cards


def test_a_reload_mid_reveal_shows_the_round_again(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player(reduced_motion="no-preference")
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "banker")
    place(player, 500, "tie")
    page.click('[data-action="deal"]')
    page.wait_for_selector(".hands [data-card]")
    assert page.get_attribute(".table-view", "data-phase") == "dealing"
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    round_ = last_round(player)
    page.wait_for_selector(f'.table-view[data-round="{round_["id"]}"][data-phase="result"]')
    for side in ("player", "banker"):
        assert shown_cards(player, side) == round_[side]["cards"]
    assert page.get_attribute(".felt", "data-winner") == round_["winner"]
    assert player.meter("last") == signed(round_["win"] - 1000)
    assert player.meter("win") == usd(round_["win"])
    assert player.meter("balance") == usd(round_["balance_after"])
    assert page.is_visible("[data-banner]")
    assert page.is_enabled('[data-action="rebet"]')
    page.click('[data-action="rebet"]')
    assert player.meter("bet") == usd(1000)
    assert player.errors == []


def test_a_lost_deal_answer_is_asked_again_and_plays_one_round(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    keys: list[str] = []

    def lose_first_answer(route: Any) -> None:
        keys.append(route.request.headers["idempotency-key"])
        if len(keys) == 1:
            route.fetch()  # the server plays the round ...
            route.abort("connectionreset")  # ... and its answer is lost
        else:
            route.continue_()

    page.route("**/api/tables/*/rounds", lose_first_answer)
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    assert len(keys) == 2 and keys[0] == keys[1], keys
    rounds = player.api("GET", "/api/history?mode=fun&limit=5")["items"]
    assert len(rounds) == 1, "the retry played a second round"
    assert page.get_attribute(".table-view", "data-round") == rounds[0]["id"]
    assert player.meter("win") == usd(rounds[0]["win"])
    assert player.meter("balance") == usd(rounds[0]["balance_after"])
    # The chips are the round's now: DEAL again needs new bets.
    assert page.is_disabled('[data-action="deal"]')
    assert player.errors == []


def test_offline_and_back_shows_a_clear_state_and_recovers_by_itself(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "banker")
    player.context.set_offline(True)
    page.wait_for_selector("#net-state:not([hidden])")
    page.wait_for_selector('#table-message[data-kind="offline"]')
    assert page.text_content("#table-message") == catalogs["en"]["table.offline"]
    # DEAL while offline: the page keeps asking with the same key, and says so.
    page.click('[data-action="deal"]')
    page.wait_for_function(
        "t => document.querySelector('#table-message').textContent === t",
        arg=catalogs["en"]["table.deal_retrying"],
    )
    assert player.api("GET", "/api/history?mode=fun&limit=1")["items"] == []
    player.context.set_offline(False)
    player.wait_round()
    page.wait_for_selector("#net-state[hidden]", state="attached")
    round_ = last_round(player)
    assert page.get_attribute(".table-view", "data-round") == round_["id"]
    assert player.meter("balance") == usd(round_["balance_after"])
    assert page.get_attribute("#table-message", "data-kind") != "offline"
    assert len(player.api("GET", "/api/history?mode=fun&limit=5")["items"]) == 1


def test_the_header_balance_follows_the_server_when_the_page_regains_focus(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    before = player.api("GET", "/api/wallet")["fun"]
    # Another tab plays a round: this page learns it when it is looked at again. Banker and
    # Tie together change the balance whatever the coup (a lone Banker bet pushes on a tie).
    body = {"mode": "fun", "bets": {"banker": 500, "tie": 500}}
    response = player.context.request.post(
        f"{player.base_url}/api/tables/{table['id']}/rounds",
        data=body,
        headers={"Idempotency-Key": "other-tab-1", **player.csrf()},
    )
    assert response.ok, response.text()
    after = response.json()["balance_after"]
    assert after != before
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    page.wait_for_function(
        "v => document.querySelector('.topbar [data-mode=fun]').textContent.includes(v)",
        arg=usd(after),
    )
    assert player.meter("balance") == usd(after)


def test_a_closed_seat_socket_says_so_and_reconnects_by_itself(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    sockets: list[Any] = []

    def through(ws: Any) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    banker, player, seat = seated(make_player, through)
    ppage = player.page
    ppage.wait_for_selector('.seat-view[data-phase="approval"]')
    assert len(sockets) == 1
    sockets[0].close(code=1011)  # the connection drops (not a leave: no 4xxx code)
    ppage.wait_for_function(
        "t => document.querySelector('#table-message').textContent === t",
        arg=catalogs["en"]["banked.connection_lost"],
    )
    # The page reconnects by itself and is back at its seat; the banker saw nobody leave.
    ppage.wait_for_function("document.querySelector('#table-message').textContent === ''")
    assert len(sockets) == 2
    banker.page.click('[data-action="approve"]')
    ppage.wait_for_selector(f'.seat-view[data-seat="{seat}"][data-phase="betting"]')
    assert ppage.text_content('[data-info="opponent"]') == banker.nickname
    assert player.errors == [] and banker.errors == []


def test_a_reload_at_a_seat_shows_the_bets_the_server_holds(make_player: Any) -> None:
    banker, player, seat = seated(make_player)
    ppage, bpage = player.page, banker.page
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    bpage.click('[data-action="approve"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="banker"]')
    ppage.click('[data-spot="banker"]')
    # The banker sees them: the server holds them, out of the player's balance.
    bpage.wait_for_function(
        "document.querySelector('[data-spot=banker] .stack-total').textContent === '$10.00'"
    )
    held = player.api("GET", "/api/wallet")["fun"]
    ppage.reload()
    ppage.wait_for_selector(
        f'.seat-view[data-seat="{seat}"][data-phase="betting"][data-role="player"]'
    )
    ppage.wait_for_function(
        "document.querySelector('[data-spot=banker] .stack-total').textContent === '$10.00'"
    )
    assert player.meter("balance") == usd(held)
    assert player.meter("bet") == usd(1000)
    # The header shows the server's balance too (the bets held are out of it).
    assert usd(held) in str(ppage.text_content('.topbar [data-mode="fun"]'))
    # The next chip adds to them; it does not replace them.
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="banker"]')
    bpage.wait_for_function(
        "document.querySelector('[data-spot=banker] .stack-total').textContent === '$15.00'"
    )
    assert player.meter("balance") == usd(held - 500)
    assert player.errors == [] and banker.errors == []


@pytest.mark.parametrize(("width", "height"), [(390, 844), (844, 390), (1280, 720)])
def test_a_seat_fits_one_screen(
    make_player: Any, screenshots: Path, width: int, height: int
) -> None:
    phone = width < 900
    banker, player, _ = seated(
        make_player,
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
    )
    ppage = player.page
    ppage.wait_for_selector('.seat-view[data-phase="approval"]')
    banker.page.click('[data-action="approve"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    outside = []
    for selector in (".topbar", "[data-spot]", "[data-chip]", ".player-controls [data-action]",
                     "[data-meter]", "[data-timer]", "[data-hand]"):  # fmt: skip
        for left, top, right, bottom in ppage.locator(selector).evaluate_all(
            "els => els.map(e => { const r = e.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; })"
        ):
            if left < 0 or top < 0 or right > width + 0.5 or bottom > height + 0.5:
                outside.append((selector, [round(v) for v in (left, top, right, bottom)]))
    # Every display shows its whole value ($1,000.00 of play money), not "$1,000.…".
    cut = ppage.locator(".meter-value").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)"
    )
    ppage.screenshot(path=str(screenshots / f"seat-{width}x{height}.jpg"))
    assert outside == [], f"outside the {width}x{height} viewport: {outside}"
    assert cut == [], f"displays cut off at {width}x{height}: {cut}"


@pytest.fixture(scope="module")
def switched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server of its own (its tables get closed here), and its database."""
    data = tmp_path_factory.mktemp("switched")
    with serving(data) as url:
        yield url, data / "web.db"


def _switch(database: Path, table: str, enabled: bool, limits: dict[str, int] | None) -> None:
    """A table's switch as the back office leaves it, written on another connection (as
    another worker or the CLI would)."""
    with sqlite3.connect(database, timeout=10) as conn:
        conn.execute("DELETE FROM table_switches WHERE table_id = ?", (table,))
        conn.execute(
            "INSERT INTO table_switches (table_id, enabled, limits, updated_us) "
            "VALUES (?, ?, ?, 0)",
            (table, int(enabled), None if limits is None else json.dumps(limits)),
        )


def test_a_table_closed_or_its_limits_changed_elsewhere_shows_so_in_the_lobby_and_at_it(
    make_player: Any, switched: tuple[str, Path], catalogs: dict[str, dict[str, str]],
    screenshots: Path,
) -> None:  # fmt: skip
    """The back office closes table II and raises table I's minimum while the player looks:
    the lobby shows it when the player comes back to it (no Play for the closed table, the
    new limits), and at the tables the message and DEAL follow, until it reopens."""
    url, database = switched
    en = catalogs["en"]
    player = make_player(at=url, locale="en-US", viewport={"width": 1280, "height": 720})
    page = player.page
    player.goto()
    card = '.table-card[data-table="table-ii"][data-open="{}"]'
    page.wait_for_selector(card.format("true") + ' [href="#/table/table-ii"]')
    before = str(page.text_content('.table-card[data-table="table-i"] .limits'))
    limits = {
        "min": 1_000,
        "max": 2_000,
        "tie_min": 1_000,
        "tie_min_alone": 1_000,
        "tie_max": 2_000,
    }
    _switch(database, "table-ii", False, None)
    _switch(database, "table-i", True, limits)
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    closed = page.wait_for_selector(card.format("false"))
    assert closed.query_selector('[href="#/table/table-ii"]') is None
    note = closed.query_selector("[data-closed]")
    assert note is not None and note.text_content() == en["lobby.closed"]
    after = str(page.text_content('.table-card[data-table="table-i"] .limits'))
    assert after != before and "$10.00" in after and "$20.00" in after
    page.locator(".tables").screenshot(path=str(screenshots / "lobby-table-closed-1280x720.jpg"))
    player.goto("table/table-i")
    page.wait_for_selector('.table-view[data-open="true"] .table-name >> text=$10.00')
    place(player, 500, "player")
    assert page.get_attribute("#table-message", "data-kind") == "warn"
    assert page.is_disabled('[data-action="deal"]')  # 5.00 is below the new 10.00
    player.goto("table/table-ii")
    page.wait_for_selector('.table-view[data-open="false"]')
    assert str(page.text_content("#table-message")) == en["error.table_disabled"]
    place(player, 500, "player")
    assert str(page.text_content("#table-message")) == en["error.table_disabled"]
    assert page.is_disabled('[data-action="deal"]')
    page.screenshot(path=str(screenshots / "table-closed-1280x720.jpg"))
    _switch(database, "table-ii", True, None)
    page.evaluate("window.dispatchEvent(new Event('focus'))")
    page.wait_for_selector('.table-view[data-open="true"]')
    page.wait_for_selector('[data-action="deal"]:not([disabled])')
    assert str(page.text_content("#table-message")) == ""
    page.click('[data-action="deal"]')
    player.wait_round()
    assert player.errors == []


class _RawStatuses:
    """The statuses the server answered the page's reads of a path with, as Chromium's
    network saw them (a read the browser revalidated is a 200 to the page and to Playwright:
    the body it kept)."""

    def __init__(self, context: Any, page: Any, path: str):
        self.cdp = context.new_cdp_session(page)
        self.page = page
        self.path = path
        self.sent: list[str] = []
        self.statuses: dict[str, int] = {}
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.responseReceivedExtraInfo", self._answered)
        self.cdp.send("Network.enable")

    def _sent(self, event: dict[str, Any]) -> None:
        if event["request"]["url"].endswith(self.path):
            self.sent.append(event["requestId"])

    def _answered(self, event: dict[str, Any]) -> None:
        self.statuses[event["requestId"]] = event["statusCode"]

    def last(self) -> int:
        """The status of the last read sent. Chromium's network service reports the raw
        answer on its own, after or before the page has its response: wait for it."""
        until(lambda: self.sent and self.sent[-1] in self.statuses,
              f"a raw answer to the last read of {self.path}", timeout=5, every=0.025,
              pause=lambda s: self.page.wait_for_timeout(s * 1000))  # fmt: skip
        return self.statuses[self.sent[-1]]


def test_the_lobby_reads_the_tables_again_with_their_etag_and_still_shows_a_change(
    browser: Any, switched: tuple[str, Path]
) -> None:  # fmt: skip
    """The lobby reads the tables again (on focus, once a minute) with If-None-Match: the
    server answers 304 with no body while they are the same, and the tables as they are now
    once a table was closed elsewhere (another worker, the back office)."""
    url, database = switched
    context = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion="reduce")
    try:
        player = Player(context, url, new_nickname())
        player.register_and_login()
        page = player.page
        raw = _RawStatuses(context, page, "/api/tables")
        card = '.table-card[data-table="table-ii"][data-open="{}"]'

        def read_again() -> Any:
            with page.expect_response(lambda r: r.url.endswith("/api/tables")) as answer:
                page.evaluate("window.dispatchEvent(new Event('focus'))")
            answer.value.finished()
            return answer.value

        with page.expect_response(lambda r: r.url.endswith("/api/tables")) as first:
            player.goto()
        page.wait_for_selector(card.format("true"))
        etag = first.value.all_headers()["etag"]
        assert raw.last() == 200 and first.value.request.sizes()["responseBodySize"] > 1_000
        again = read_again()
        assert again.request.all_headers().get("if-none-match") == etag
        assert raw.last() == 304 and again.request.sizes()["responseBodySize"] == 0
        assert page.is_visible(card.format("true"))
        _switch(database, "table-ii", False, None)
        changed = read_again()
        assert changed.request.all_headers().get("if-none-match") == etag
        assert raw.last() == 200 and changed.all_headers()["etag"] != etag
        page.wait_for_selector(card.format("false"))
        still = read_again()
        assert raw.last() == 304 and still.request.sizes()["responseBodySize"] == 0
        assert page.is_visible(card.format("false")) and player.errors == []
    finally:
        _switch(database, "table-ii", True, None)
        context.close()
