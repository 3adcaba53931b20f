"""What covered what (issue 37): a shared table's clock and totals beside its felt, never on
the Player's hand, and a reload during its result showing the player's own; a phone on its
side shows every spot's words clear of the stake and the WIN/LOSE tags, and the history
without a sideways scroll; a pair's dot inside the bead plate; a dialog left open goes with
its page. Measured in Chromium at the sizes named, with screenshots."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import ROOT
from .webtools import (
    Player,
    boxes_of,
    device,
    open_table,
    overlapping,
    place,
    serving,
    within,
)

pytestmark = pytest.mark.browser

SHIPPED = ROOT / "src" / "baccarat" / "server" / "tables.toml"
LIVE = (".shared-live", ".shoe-box")
HANDS = (".hand-title", ".hand-marker", ".hands .score", ".hands .card")


@pytest.fixture(scope="module")
def quick_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The shipped tables, their shared ones on a quick clock (4 s to bet, 4 s of result;
    speed's result 10 s: a page reloads in it)."""
    data = tmp_path_factory.mktemp("quick-live")
    quick = re.sub(r"shared = \{[^}]*\}", "shared = { betting_s = 4, result_s = 4 }",
                   SHIPPED.read_text())  # fmt: skip
    quick = re.sub(r'(id = "speed"(?:(?!\[\[table).)*?)shared = \{[^}]*\}',
                   r"\1shared = { betting_s = 4, result_s = 10 }", quick, flags=re.S)  # fmt: skip
    assert quick.count("result_s = 10") == 1
    (data / "tables.toml").write_text(quick)
    with serving(data, BACCARAT_TABLES=str(data / "tables.toml")) as url:
        yield url


def covered(page: Any, over: tuple[str, ...], under: tuple[str, ...]) -> list[str]:
    """Which of ``over`` cover which of ``under`` (their boxes intersect)."""
    found = []
    for top in over:
        for a in boxes_of(page, top):
            for bottom in under:
                found += [f"{top} {a} over {bottom} {b}" for b in boxes_of(page, bottom)
                          if overlapping(a, b)]  # fmt: skip
    return found


@pytest.mark.parametrize("locale", ["en-US", "da-DK"])
def test_the_live_panel_leaves_the_players_hand_clear(
    make_player: Any, quick_live: str, screenshots: Path, locale: str
) -> None:
    player = make_player(at=quick_live, locale=locale, **device(1280, 720))
    page = player.page
    for table in ("live-deluxe", "speed", "live"):
        player.goto(f"table/{table}")
        sides = ("player_pair", "banker_dragon", "small") if table == "live-deluxe" else ()
        coup = bet_on_a_coup(player, ("player", "banker", *sides))
        page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]')
        page.wait_for_selector(".hand-player .card:not(.down) >> nth=1")
        page.screenshot(path=str(screenshots / f"live-panel-{table}-{locale}-1280x720.jpg"))
        assert covered(page, LIVE, HANDS) == [], f"{table} in {locale}"
    assert player.errors == []


def bet_on_a_coup(player: Player, spots: tuple[str, ...], windows: int = 3) -> str:
    """$5 on each spot in a betting window, until the table's totals show the banker's stake
    (a window that closes while a loaded machine places the chips takes none of them: the
    next one is tried); the coup bet on."""
    page = player.page
    for _ in range(windows):
        coup = betting_coup(page)
        for spot in spots:
            place(player, 500, spot)
        try:
            page.wait_for_selector('[data-total="banker"]', timeout=8_000)
            return coup
        except PlaywrightTimeout:
            page.wait_for_selector(f'.shared-view:not([data-coup="{coup}"])', timeout=20_000)
    raise AssertionError(f"no bet taken in {windows} betting windows")


def betting_coup(page: Any) -> str:
    """Wait for a betting window with time to bet; its coup."""
    page.wait_for_function(
        "() => { const v = document.querySelector('.shared-view');"
        " const s = parseInt(document.querySelector('[data-countdown]').textContent);"
        " return v && v.dataset.phase === 'betting' && s >= 2; }",
        timeout=30_000,
    )
    return str(page.get_attribute(".shared-view", "data-coup"))


def test_a_reload_during_the_result_shows_the_players_own_result(
    make_player: Any, quick_live: str, screenshots: Path
) -> None:
    player = make_player(at=quick_live, **device(1280, 720))
    page = player.page
    player.goto("table/speed")
    coup = betting_coup(page)
    place(player, 500, "banker")
    place(player, 500, "player")
    page.wait_for_selector("#table-message:has-text('Your bets are placed')")
    page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]')
    net = page.locator("[data-banner-net]:not(:empty)").text_content()
    seen = {name: player.meter(name) for name in ("bet", "win", "last")}
    page.reload()
    page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]')
    shown = page.locator("[data-banner-net]")
    page.wait_for_function("e => e.textContent !== ''", arg=shown.element_handle(),
                           timeout=5_000)  # fmt: skip
    page.screenshot(path=str(screenshots / "shared-reloaded-result-1280x720.jpg"))
    assert shown.text_content() == net
    assert {name: player.meter(name) for name in ("bet", "win", "last")} == seen
    assert seen["last"] != "\u2013"
    for spot in ("banker", "player"):  # the chips stay on the felt until the next window
        assert page.text_content(f'[data-spot="{spot}"] .stack-total') == "$5.00"
    assert player.errors == []


SPOT_WORDS = (".spot-name", ".spot-pays")
SPOT_TAGS = (".stack-total", ".mini-chip", ".bet-marker")


def crowded(page: Any) -> list[str]:
    """Each spot whose words are under its stake or tags, or squeezed below their height."""
    found = []
    for name in page.locator("[data-spot]").evaluate_all("els => els.map(e => e.dataset.spot)"):
        wrap = f'.spot-wrap:has(> [data-spot="{name}"])'
        found += covered(page, tuple(f"{wrap} {w}" for w in SPOT_WORDS),
                         tuple(f"{wrap} {t}" for t in SPOT_TAGS))  # fmt: skip
    squeezed = page.locator(".spot-name").evaluate_all(
        "els => els.filter(e => e.scrollHeight > e.clientHeight + 1).map(e => e.textContent)"
    )
    return found + [f"{text} squeezed" for text in squeezed]


def test_a_phone_on_its_side_shows_every_spots_words(make_player: Any, screenshots: Path) -> None:
    player: Player = make_player(**device(844, 390))
    page = player.page
    open_table(player, {"id": "deluxe"})
    for spot in ("player", "banker", "tie", "player_pair", "player_dragon", "banker_dragon",
                 "big", "small"):  # fmt: skip
        place(player, 500, spot)
    page.screenshot(path=str(screenshots / "spots-bets-844x390.jpg"))
    assert crowded(page) == []
    page.click('[data-action="deal"]')
    player.wait_round()
    page.screenshot(path=str(screenshots / "spots-result-844x390.jpg"))
    assert crowded(page) == []
    player.goto("history")
    page.wait_for_selector("[data-open]")
    page.screenshot(path=str(screenshots / "history-844x390.jpg"))
    scroll = page.locator(".scroll").evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert scroll[0] <= scroll[1], f"the history scrolls sideways: {scroll}"
    assert all(b[2] <= 844 for b in boxes_of(page, "[data-open]"))
    assert player.errors == []


def test_a_pairs_dot_stays_inside_the_scoreboard(make_player: Any, screenshots: Path) -> None:
    """Every bead and ring of the first column, with both pairs: the dots inside the grid
    (the road's grid scrolls and clips what passes its edge)."""
    player: Player = make_player(**device(1280, 720))
    for _ in range(3):
        player.api("POST", "/api/tables/table-i/rounds", {"mode": "fun", "bets": {"banker": 500}},
                   {"Idempotency-Key": uuid.uuid4().hex})  # fmt: skip

    def with_pairs(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        for cell in body["roads"]["bead"] + body["roads"]["big_road"]:
            cell["banker_pair"] = cell["player_pair"] = True
        route.fulfill(response=answer, json=body)

    page = player.page
    page.route("**/api/tables/table-i/roads*", with_pairs)
    open_table(player, {"id": "table-i"})
    page.wait_for_selector('[data-roads][data-rounds="3"] .panel-bead .pair-banker')
    page.locator("[data-roads]").screenshot(path=str(screenshots / "roads-pairs-1280x720.jpg"))
    pairs = page.locator(".road-grid .pair").evaluate_all(
        "els => els.map(e => [e.className, e.closest('.road-grid').getBoundingClientRect(),"
        " e.getBoundingClientRect()].map(r => r.left === undefined ? r"
        " : [r.left, r.top, r.right, r.bottom]))"
    )
    # Both dots on each of the three beads, and on each ring (a tie draws none of its own).
    assert len(pairs) == 2 * page.locator(".road-grid .bead, .road-grid .big").count() >= 6
    cut = [(cls, dot) for cls, grid, dot in pairs if not within(dot, grid)]
    assert cut == [], f"pair dots past their grid's edge: {cut}"


def test_a_dialog_left_open_goes_with_its_page(make_player: Any) -> None:
    """A time-out's confirmation left open (or closed with Esc) does not stay over the table
    after a navigation; the app's own dialog (the reality check's) stays."""
    player: Player = make_player(**device(1280, 720))
    page = player.page
    player.goto("responsible")
    page.click('[data-action="time-out"]')
    page.keyboard.press("Escape")  # closed, still in the page
    page.click('[data-action="time-out"]')
    assert page.locator("dialog[open]").count() == 1
    page.evaluate("location.hash = '#/table/table-i'")
    page.wait_for_selector('.table-view[data-table="table-i"]')
    assert page.locator("dialog").count() == 0
    place(player, 500, "banker")  # the table takes clicks
    assert page.text_content('[data-spot="banker"] .stack-total') == "$5.00"
    page.evaluate(
        "() => { const d = document.createElement('dialog'); d.dataset.app = '';"
        " d.id = 'kept'; document.body.append(d); d.showModal(); }"
    )
    page.evaluate("location.hash = '#/history'")
    page.wait_for_selector("table.history, .empty")
    assert page.locator("dialog#kept[open]").count() == 1
    assert player.errors == []
