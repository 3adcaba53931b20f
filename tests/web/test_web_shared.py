"""A shared table in the browser: two players see one coup, the countdown, totals, roads and
the reveal on one screen at every size, and the console stays clean."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .webtools import Player, console_errors, device, new_nickname, serving

pytestmark = pytest.mark.browser

# A quick shared table (4 s to bet, 3 s of result) beside a house table.
TABLES = """
[[table]]
id = "quick"
name = "Quick Live"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = { betting_s = 4, result_s = 3 }

[[table]]
id = "table-i"
name = "Table I"
rules = "online-6deck-tie9"
chips = ["1", "5", "25", "100"]
min = "1"
max = "100"
"""
SIZES = [(1280, 720), (1920, 1080), (390, 844), (844, 390)]
ON_SCREEN = ("[data-countdown]", "[data-spot]", "[data-chip]", ".controls [data-action]",
             "[data-meter]", "#roads", ".hands", "[data-fair]")  # fmt: skip


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("shared-web")
    (data / "tables.toml").write_text(TABLES)
    with serving(data, BACCARAT_TABLES=str(data / "tables.toml")) as url:
        yield url


def at_table(new_page: Any, url: str, width: int = 1366, height: int = 900) -> Player:
    page = new_page(locale="en-US", reduced_motion="reduce", **device(width, height))
    player = Player(page.context, url, new_nickname(), page)
    player.register_and_login()
    player.goto("table/quick")
    player.page.wait_for_selector(".shared-view")
    return player


def betting(player: Player) -> str:
    """Wait for a betting window with time to bet; its coup."""
    page = player.page
    page.wait_for_function(
        "() => { const v = document.querySelector('.shared-view');"
        " const s = parseInt(document.querySelector('[data-countdown]').textContent);"
        " return v.dataset.phase === 'betting' && s >= 2; }",
        timeout=20_000,
    )
    return str(page.get_attribute(".shared-view", "data-coup"))


def betting_together(first: Player, second: Player) -> str:
    """The coup both players see in one betting window with time to bet. The second is read
    between two reads of the first, so one coup means one coup at one moment; a window that
    closed between the reads (a loaded machine) is waited out, three at most."""
    seen = []
    for _ in range(3):
        coup = betting(first)
        other = betting(second)
        if other == coup and betting(first) == coup:
            return coup
        seen.append((coup, other))
    raise AssertionError(f"the two players never saw one coup: {seen}")


def banker_bet_together(first: Player, second: Player, windows: int = 3) -> str:
    """The first player's $5 on the banker, taken in a betting window both players see;
    that window's coup. A window that closes while a loaded machine places the chip takes
    none of it: the next one is tried."""
    for _ in range(windows):
        coup = betting_together(first, second)
        first.page.click('[data-chip="500"]')
        first.page.click('[data-spot="banker"]')
        try:
            first.page.wait_for_selector(
                "#table-message:has-text('Your bets are placed')", timeout=8_000
            )
            return coup
        except PlaywrightTimeout:
            first.page.wait_for_selector(f'.shared-view:not([data-coup="{coup}"])', timeout=20_000)
    raise AssertionError(f"no bet taken in {windows} betting windows")


def test_two_players_see_one_coup_its_totals_and_the_same_cards(
    new_page: Any, live_url: str, screenshots: Path
) -> None:
    alice, bob = at_table(new_page, live_url), at_table(new_page, live_url)
    errors = [console_errors(p) for p in (alice, bob)]
    try:
        coup = banker_bet_together(alice, bob)
        # Bob sees Alice's stake in the totals, not on his own felt.
        bob.page.wait_for_selector('[data-total="banker"]:has-text("5.00")')
        assert bob.meter("bet") == "$0.00"
        for player in (alice, bob):
            player.page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]')
        cards = [
            p.page.locator(".hands [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
            for p in (alice, bob)
        ]
        assert cards[0] and cards[0] == cards[1]
        alice.page.wait_for_selector("[data-banner]:not([hidden]) [data-banner-net]:not(:empty)")
        history = alice.api("GET", "/api/history")["items"]
        assert history[0]["shared"]["coup"] == int(coup)
        for player in (alice, bob):
            player.page.wait_for_selector("#roads .bead")
        assert alice.errors == [] and bob.errors == []
        assert errors == [[], []]
    finally:
        alice.context.close()
        bob.context.close()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_shared_table_fits_one_screen(
    new_page: Any, live_url: str, screenshots: Path, width: int, height: int
) -> None:
    player = at_table(new_page, live_url, width, height)
    try:
        betting(player)
        player.page.click('[data-chip="500"]')
        player.page.click('[data-spot="player"]')
        player.page.wait_for_selector('[data-total="player"]')
        player.page.screenshot(path=str(screenshots / f"shared-{width}x{height}-betting.jpg"))
        # The message of the bets placed never covers a button (it did on a phone on its side).
        covered = player.page.evaluate(
            """() => {
                const m = document.querySelector('#table-message').getBoundingClientRect();
                return [...document.querySelectorAll('.controls .ctl')].some((c) => {
                    const r = c.getBoundingClientRect();
                    return m.height > 0 && r.left < m.right && m.left < r.right
                        && r.top < m.bottom && m.top < r.bottom;
                });
            }"""
        )
        assert not covered, f"the message covers a button at {width}x{height}"
        # No beacon configured: the shoe box says what fixes the order (and, in its title,
        # what that does not prove).
        assert player.page.text_content("[data-fair]") == "Order: committed seed"
        assert "does not prove" in (player.page.get_attribute(".shoe-box", "title") or "")
        player.page.wait_for_selector("[data-banner]:not([hidden])", timeout=20_000)
        outside = []
        for selector in ON_SCREEN:
            boxes = player.page.locator(selector).evaluate_all(
                "els => els.map(e => { const r = e.getBoundingClientRect();"
                " return [r.left, r.top, r.right, r.bottom]; })"
            )
            assert boxes, f"nothing matches {selector}"
            for left, top, right, bottom in boxes:
                if left < 0 or top < 0 or right > width + 0.5 or bottom > height + 0.5:
                    outside.append((selector, [round(v) for v in (left, top, right, bottom)]))
        player.page.screenshot(path=str(screenshots / f"shared-{width}x{height}-result.jpg"))
        assert outside == [], f"outside the {width}x{height} viewport: {outside}"
        assert player.errors == []
    finally:
        player.context.close()


def test_the_lobby_shows_the_shared_tables_phase_and_last_results(
    new_page: Any, live_url: str
) -> None:
    player = at_table(new_page, live_url)
    try:
        player.goto("")
        line = player.page.wait_for_selector('[data-live="quick"]:not(:empty)')
        assert "Players:" in str(line.text_content())
        player.page.wait_for_selector('[data-last="quick"] .last-result', timeout=20_000)
    finally:
        player.context.close()
