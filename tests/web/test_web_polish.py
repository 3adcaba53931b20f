"""What players see (issue 26): colours, boxes inside the screen and their spots, one
balance, localised pays, the rules' count of spots, fresh round details after a rotation,
and DEAL refused before it is pressed; each checked where the eye would find it wrong, at
1280x720, 1920x1080, 390x844 and 844x390, with screenshots."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .webtools import (
    Player,
    altered_tables,
    console_errors,
    device,
    fresh_table,
    is_state,
    last_round,
    open_table,
    place,
    seated,
    usd,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stand_up_after")]

SIZES = [(1280, 720), (1920, 1080), (390, 844), (844, 390)]
# The house table also on the smallest phones held sideways that it fits: 740x360 the
# lowest, 667x375 the narrowest (the message covered the buttons there, the felt and the
# statistics overflowed the scoreboard); a player-banked seat there, further below.
TABLE_SIZES = [*SIZES, (740, 360)]
PHONES = [(390, 844), (844, 390), (667, 375)]

BOX = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


def box(page: Any, selector: str) -> list[float]:
    found: list[float] = page.eval_on_selector(selector, BOX)
    return found


def boxes(page: Any, selector: str) -> list[list[float]]:
    found: list[list[float]] = page.locator(selector).evaluate_all(f"els => els.map({BOX})")
    return found


def inside(inner: list[float], outer: list[float], slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def outside_viewport(page: Any, selectors: tuple[str, ...]) -> list[tuple[str, list[int]]]:
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    screen = [0.0, 0.0, float(width), float(height)]
    return [
        (selector, [round(v) for v in found])
        for selector in selectors
        for found in boxes(page, selector)
        if not inside(found, screen)
    ]


def cut_texts(page: Any, selector: str) -> list[str]:
    """Elements whose text is wider than their box (cut, or with an ellipsis)."""
    found: list[str] = page.locator(selector).evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"
    )
    return found


# A word broken across two lines draws two boxes: every word of these elements has one.
BROKEN_WORDS = """sel => {
  const out = [];
  for (const el of document.querySelectorAll(sel)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\\s-]+/g;
      let m;
      while ((m = re.exec(node.textContent))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""


def rgb(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", text)[:3])


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    def lum(c: tuple[float, ...]) -> float:
        parts = [v / 255 for v in c]
        lin = [p / 12.92 if p <= 0.03928 else ((p + 0.055) / 1.055) ** 2.4 for p in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((lum(a), lum(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# Every visible button (the spots, chips and controls among them) and its name.
BUTTONS = """() => [...document.querySelectorAll('button, a.btn, select')]
  .filter((e) => e.checkVisibility({ visibilityProperty: true, opacityProperty: false }))
  .map((e) => { const r = e.getBoundingClientRect();
    return [e.dataset.action || e.dataset.spot || e.dataset.chip || e.id || e.textContent.trim(),
            [r.left, r.top, r.right, r.bottom]]; })
  .filter(([, b]) => b[2] > b[0] && b[3] > b[1])"""


def covered(page: Any) -> list[str]:
    """The visible buttons the table's message covers (it must show)."""
    message = box(page, "#table-message")
    assert message[3] > message[1], "no message shows"
    return [name for name, found in page.evaluate(BUTTONS) if overlap(message, found)]


PLACEHOLDER = r"\{(\w+)\}"


def says(template: str) -> re.Pattern[str]:
    """A catalog's text with any value in its {placeholders}."""
    return re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(template)))


def longest(catalog: dict[str, str], prefix: str) -> str:
    """The key of the catalog's longest text of ``prefix`` (a value as long as an amount,
    1.000,00 US$, in each placeholder)."""
    # A lost session (or one ended for inactivity), a reality check and a lost connection do
    # more than say it.
    special = ("error.not_authenticated", "error.session_inactive", "error.reality_check_due",
               "error.network_error")  # fmt: skip
    keys = [k for k in catalog if k.startswith(prefix) and k not in special]
    return max(keys, key=lambda k: len(re.sub(PLACEHOLDER, "1.000,00 US$", catalog[k])))


def refusing(code: str, details: dict[str, int]) -> Callable[[Any], None]:
    """A route handler: the server refuses with ``code``."""
    body = {"error": {"code": code, "message": "", "details": details}}
    return lambda route: route.fulfill(status=409, json=body)


def message(page: Any) -> str:
    return str(page.text_content("#table-message"))


SAYS = "text => document.querySelector('#table-message')?.textContent === text"


def header_balance(page: Any, mode: str = "fun") -> str:
    return str(page.text_content(f'.topbar [data-mode="{mode}"] .amount')).strip()


def table_of(tables: list[dict[str, Any]], table_id: str) -> dict[str, Any]:
    return next(t for t in tables if t["id"] == table_id)


def seat_problems(
    pages: dict[str, Any], sizes: list[tuple[int, int]], screenshots: Path
) -> list[str]:
    """Both sides of a seat at each size: the seat's name whole, its facts not cut off, the
    stakes inside their spots, everything on the screen. What is wrong."""
    problems: list[str] = []
    for width, height in sizes:
        for who, page in pages.items():
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(150)
            where = f"{who} at {width}x{height}"
            page.screenshot(path=str(screenshots / f"polish-seat-{who}-{width}x{height}.jpg"))
            if cut_texts(page, "#seat-title"):
                problems.append(f"{where}: the seat's name is cut")
            if page.eval_on_selector(".seat-info .kvs", "e => e.scrollHeight > e.clientHeight + 1"):
                problems.append(f"{where}: the seat's facts are cut off")
            banner = box(page, "[data-banner]")
            if page.is_visible("[data-banner]") and not inside(banner, box(page, ".felt")):
                problems.append(f"{where}: the result falls out of the felt")
            panel = box(page, ".seat-info")
            for fact in boxes(page, ".seat-info [data-info]"):
                if not inside(fact, panel):
                    problems.append(f"{where}: a fact falls out of the seat's panel")
            for name in ("player", "banker", "tie"):
                total = box(page, f'[data-spot="{name}"] .stack-total')
                if total[2] > total[0] and not inside(total, box(page, f'[data-spot="{name}"]')):
                    problems.append(f"{where}: the {name} stake spills out of its spot")
            selectors = (".topbar", ".table-head", "[data-spot]", "[data-meter]", "[data-timer]")
            problems += [
                f"{where}: {s} {b} off the screen" for s, b in outside_viewport(page, selectors)
            ]
    return problems


def test_a_player_banked_round_from_both_sides(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    """Items 1, 8, 9, 10 and 11: AUTO-APPROVE legible when on, one balance, the banker's
    reserve said as such, the banker's view in the spots' order and not covered, and the
    seat on a phone."""
    banker, player, _ = seated(make_player)
    bpage, ppage = banker.page, player.page
    logged = [console_errors(banker), console_errors(player)]
    reserve = table_of(tables, "banked-i")["banked"]["exposure"]
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    before = banker.api("GET", "/api/wallet")["fun"]
    bpage.click('[data-action="approve"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    # The reserve is out of the banker's balance, and the seat says where it went.
    bpage.wait_for_function(
        "t => document.querySelector('[data-info=balance]').textContent.includes(t)",
        arg=usd(reserve),
    )
    assert "reserved for this round" in str(bpage.text_content('[data-info="balance"]'))
    assert usd(reserve) in str(bpage.text_content("#table-message"))
    assert bpage.text_content('[data-meter="balance"]') == usd(before - reserve)
    assert header_balance(bpage) == usd(before - reserve)

    # The player's chips are out of the balance in the header as in the BALANCE display.
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="banker"]')
    ppage.click('[data-spot="banker"]')
    ppage.click('[data-spot="tie"]')
    ppage.wait_for_timeout(400)
    assert player.meter("balance") == header_balance(ppage) == usd(100_000 - 1500)
    ppage.click('[data-action="deal"]')
    for page in (bpage, ppage):
        page.wait_for_selector(".seat-view[data-round]")
        page.wait_for_selector("[data-banner]:not([hidden])")
    # The banker's view: each hand under its own spot; the banner covers no WIN/LOSE badge.
    for side in ("player", "banker"):
        hand, spot = box(bpage, f'[data-hand="{side}"]'), box(bpage, f'[data-spot="{side}"]')
        middle = (hand[0] + hand[2]) / 2
        assert spot[0] <= middle <= spot[2], f"the {side} hand is not under its spot"
    banner = box(bpage, "[data-banner]")
    for marker in boxes(bpage, ".bet-marker:not(:empty), .hand-marker:not(:empty)"):
        assert not overlap(banner, marker), "the result banner covers a WIN/LOSE badge"
    bpage.screenshot(path=str(screenshots / "polish-seat-banker-result.jpg"))

    # AUTO-APPROVE on, the pointer still on it: dark words on the gold.
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    bpage.click('[data-action="auto-approve"]')
    bpage.wait_for_selector('[data-action="auto-approve"][aria-pressed="true"]')
    colour, background = bpage.eval_on_selector(
        '[data-action="auto-approve"]',
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]",
    )
    assert contrast(rgb(colour), rgb(background)) >= 4.5, (colour, background)
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')

    # Both sides at every size: the seat's name whole, its facts not cut off, the stakes
    # inside their spots, everything on the screen.
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="banker"]')
    ppage.click('[data-spot="banker"]')
    ppage.wait_for_timeout(400)
    problems = seat_problems({"banker": bpage, "player": ppage}, SIZES, screenshots)
    assert problems == [], problems
    assert banker.errors == [] and player.errors == [] and logged == [[], []]


def test_a_player_banked_seat_fits_a_small_phone_held_sideways(
    make_player: Any, screenshots: Path
) -> None:
    # Touch screens (a coarse pointer): a desktop window as small is the page zoomed to 200%,
    # which scrolls (the test above).
    def touch(**options: Any) -> Player:
        found: Player = make_player(is_mobile=True, has_touch=True, **options)
        return found

    banker, player, _ = seated(touch)
    logged = [console_errors(banker), console_errors(player)]
    pages = {"banker": banker.page, "player": player.page}
    banker.page.wait_for_selector('.seat-view[data-phase="approval"]')
    banker.page.click('[data-action="approve"]')
    player.page.wait_for_selector('.seat-view[data-phase="betting"]')
    player.page.click('[data-chip="500"]')
    player.page.click('[data-spot="banker"]')
    player.page.click('[data-action="deal"]')
    for page in pages.values():  # the result on both sides
        page.wait_for_selector("[data-banner]:not([hidden])")
    assert seat_problems(pages, [(740, 360), (667, 375)], screenshots) == []
    assert banker.errors == [] and player.errors == [] and logged == [[], []]


def test_the_house_table_says_a_bet_outside_its_limits_before_deal(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    """Items 8 and 15: the header and BALANCE agree with chips on the felt; a lone tie
    below its minimum and a bet above its maximum are said as they are placed, and DEAL is
    off until the bets are right."""
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = table_of(tables, "tie-limits-5-500")
    open_table(player, table)
    deal = page.locator('[data-action="deal"]')
    place(player, 100, "tie", times=2)  # $2 alone: the lone tie's minimum is $5
    message = str(page.text_content("#table-message"))
    assert usd(table["limits"]["tie_min_alone"]) in message, message
    assert deal.is_disabled()
    assert player.meter("balance") == header_balance(page) == usd(100_000 - 200)
    place(player, 500, "player")  # beside a Player bet the tie's minimum is $1
    assert deal.is_enabled() and page.text_content("#table-message") == ""
    place(player, 10_000, "banker", times=6)  # $600 on a $500 maximum
    message = str(page.text_content("#table-message"))
    assert usd(table["limits"]["max"]) in message and "maximum" in message
    assert deal.is_disabled()
    assert player.meter("balance") == header_balance(page) == usd(100_000 - 200 - 500 - 60_000)
    page.click('[data-action="undo"]')
    assert deal.is_enabled() and page.text_content("#table-message") == ""
    page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    assert player.meter("balance") == header_balance(page) == usd(round_["balance_after"])
    # The help states the rule.
    player.goto("rules")
    assert catalogs["en"]["help.meter_balance"] in str(page.text_content(".controls-help"))
    assert errors == [] and player.errors == []


@pytest.mark.parametrize(("width", "height"), TABLE_SIZES, ids=[f"{w}x{h}" for w, h in TABLE_SIZES])
def test_no_message_covers_a_button_at_the_house_table(
    make_player: Any,
    tables: list[dict[str, Any]],
    catalogs: dict[str, dict[str, str]],
    screenshots: Path,
    width: int,
    height: int,
) -> None:
    """The message line never covers a button, whatever it says, in every language: a bet
    below the minimum and the longest thing said of a bet (DEAL off), the server's longest
    refusal of a deal (DEAL on again under it) and the closed table. On a phone on its side it
    covered the second row of buttons (DEAL, NEW GAME): their row gave way to the scoreboard
    beside the message."""
    player: Player = make_player(**device(width, height))
    page = player.page
    errors = console_errors(player)
    table = table_of(tables, "table-i")
    small = min(table["chips"])
    assert small < table["limits"]["min"] <= 500 + small <= table["limits"]["max"]

    def in_fives(tbl: dict[str, Any]) -> None:
        if tbl["id"] == table["id"]:
            tbl["bets"]["player"]["unit"] = 500  # as a table may say: its bets in 5.00s

    altered_tables(page, in_fives)
    open_table(player, table)
    deal = page.locator('[data-action="deal"]')
    screen = [0.0, 0.0, float(width), float(height)]

    def look(lang: str, what: str) -> None:
        if lang in ("en", "de") or what == "longest-refusal":
            page.screenshot(path=str(screenshots / f"message-{width}x{height}-{lang}-{what}.jpg"))
        where = f"{what} in {lang} at {width}x{height}"
        assert covered(page) == [], f"the message ({where}) covers these buttons"
        assert inside(box(page, "#table-message"), screen), f"the message ({where}) is cut"

    def closed(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "open": False})

    for lang, catalog in catalogs.items():
        assert longest(catalog, "check.") == "check.not_a_multiple"
        page.select_option("#lang", lang)  # remembered over the reloads
        page.wait_for_selector(f"html[lang={lang}]")
        page.reload()
        page.wait_for_selector(f'.table-view[data-table="{table["id"]}"]')
        # A bet below the table's minimum: said before DEAL, which is off.
        place(player, small, "player")
        assert says(catalog["check.below_min"]).fullmatch(message(page))
        assert deal.is_disabled()
        look(lang, "below-min")
        # The longest the page says of a bet: not a multiple of the table's unit.
        place(player, 500, "player")
        assert says(catalog["check.not_a_multiple"]).fullmatch(message(page))
        assert deal.is_disabled()
        look(lang, "not-a-multiple")
        # The server refuses the deal with its longest refusal: DEAL is on again under it.
        page.click('[data-action="clear"]')
        place(player, 500, "player")
        key = longest(catalog, "error.")
        details = {name: 100_000 for name in re.findall(PLACEHOLDER, catalog[key])}
        page.route("**/api/tables/*/rounds", refusing(key.removeprefix("error."), details))
        deal.click()
        page.wait_for_function(
            "() => document.querySelector('#table-message').dataset.kind === 'error'"
        )
        assert says(catalog[key]).fullmatch(message(page))
        assert deal.is_enabled()
        look(lang, "longest-refusal")
        page.unroute("**/api/tables/*/rounds")
        # The casino closes the table.
        page.route(is_state, closed)
        page.reload()
        page.wait_for_function(SAYS, arg=catalog["error.table_disabled"])
        look(lang, "closed")
        page.unroute(is_state)
    assert errors == [] and player.errors == []


@pytest.mark.parametrize(("width", "height"), PHONES, ids=[f"{w}x{h}" for w, h in PHONES])
@pytest.mark.parametrize("locale", ["de-DE", "sv-SE"])
def test_a_phone_shows_the_whole_head_spots_and_scoreboard(
    make_player: Any,
    tables: list[dict[str, Any]],
    screenshots: Path,
    width: int,
    height: int,
    locale: str,
) -> None:
    """Items 2, 3 and 4: the road statistics, the table's name, limits and History link,
    the main spots' pays, the side spots' names whole, the banner's amounts in the banner."""
    player: Player = make_player(locale=locale, **device(width, height))
    page = player.page
    errors = console_errors(player)
    open_table(player, table_of(tables, "deluxe"))
    place(player, 500, "player")
    place(player, 500, "either_pair")
    page.click('[data-action="deal"]')
    player.wait_round()
    page.wait_for_selector("[data-banner]:not([hidden])")
    page.screenshot(path=str(screenshots / f"polish-deluxe-{width}x{height}-{locale[:2]}.jpg"))
    problems: list[tuple[str, Any]] = list(
        outside_viewport(
            page, (".table-head", ".table-name h1", ".table-name p", ".road-stats", "[data-spot]")
        )
    )
    roads = box(page, "#roads")
    problems += [("stats out of the scoreboard", [round(v) for v in b])
                 for b in boxes(page, ".road-stats > li") if not inside(b, roads)]  # fmt: skip
    problems += [("cut", text) for text in cut_texts(page, ".table-name h1, .road-stats > li")]
    history = page.locator('.table-head a[href="#/history"]')
    if not history.is_visible():
        problems.append(("no way to the history", []))
    for name in ("player", "banker", "tie"):
        if not page.is_visible(f'[data-spot="{name}"] .spot-pays'):
            problems.append(("no pays", name))
    problems += [("broken word", w) for w in page.evaluate(BROKEN_WORDS, ".spot-name, .ctl")]
    banner = box(page, "[data-banner]")
    if not inside(banner, box(page, ".felt")):
        problems.append(("the banner out of the felt", banner))
    parts = [b for b in boxes(page, "[data-banner] > p:not(:empty)") if b[2] > b[0]]
    problems += [("out of the banner", b) for b in parts if not inside(b, banner)]
    assert problems == [], problems
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert player.errors == [] and errors == []


def test_the_scoreboard_grows_with_a_large_screen(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    """Item 14: at 1920x1080 the roads' words and cells are larger than at 1280x720."""
    sizes = {}
    player: Player = make_player(viewport={"width": 1280, "height": 720})
    page = player.page
    open_table(player, fresh_table(tables))
    page.wait_for_selector(".road-title")
    for width, height in ((1280, 720), (1920, 1080)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        sizes[width] = page.evaluate(
            """[parseFloat(getComputedStyle(document.querySelector('.road-title')).fontSize),
                parseFloat(getComputedStyle(document.querySelector('.road-stats')).fontSize),
                document.querySelector('.panel-bead .road-grid').getBoundingClientRect().height]"""
        )
    assert sizes[1280][0] >= 9 and sizes[1280][1] >= 10
    assert sizes[1920][0] >= 11 and sizes[1920][1] >= 12, sizes
    assert sizes[1920][2] > sizes[1280][2] * 1.15, sizes


def test_the_phone_history_fits_its_width(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    """Item 14: at 390x844 the winner, the bets and the win show without a sideways scroll."""
    player: Player = make_player(**device(390, 844))
    page = player.page
    open_table(player, fresh_table(tables))
    place(player, 500, "banker")
    page.click('[data-action="deal"]')
    player.wait_round()
    player.goto("history")
    page.wait_for_selector("table.history [data-open]")
    page.screenshot(path=str(screenshots / "polish-history-390x844.jpg"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.eval_on_selector(".scroll", "e => e.scrollWidth <= e.clientWidth + 1")
    row = "table.history tbody tr"
    for col in ("winner", "bets", "win", "balance"):
        cell = box(page, f'{row} [data-col="{col}"]')
        assert cell[0] >= 0 and cell[2] <= 390, (col, cell)
    assert player.errors == []


def test_pays_and_returns_are_written_in_the_players_language(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    """Item 5: German decimal commas on the felt; the lobby's RTP with one precision."""
    player: Player = make_player(locale="de-DE")
    page = player.page
    player.goto()
    page.wait_for_selector(".rtp dd")
    rtps = page.locator(".rtp dd").all_text_contents()
    assert rtps and all(re.fullmatch(r"\d{2},\d{2}\s%", text) for text in rtps), rtps
    open_table(player, table_of(tables, "deluxe"))
    assert page.text_content('[data-spot="big"] .spot-pays') == "zahlt 0,54:1"
    assert page.text_content('[data-spot="small"] .spot-pays') == "zahlt 1,5:1"
    assert player.errors == []


def test_the_rules_count_the_spots_the_table_offers(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    """Item 12: Deluxe offers eleven spots, table I three; the rules say so."""
    player: Player = make_player()
    for table_id in ("deluxe", "table-i"):
        player.goto(f"rules/{table_id}")
        count = len(table_of(tables, table_id)["bets"])
        goal = str(player.page.text_content("[data-goal]"))
        assert f"up to {count} spots" in goal, goal
    assert player.errors == []


def test_rotating_asks_first_and_refreshes_the_open_round(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    """Item 7: the rotation asks for a confirmation; after it, the open round's details show
    the revealed seed without a reload."""
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    open_table(player, fresh_table(tables))
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    player.goto("history")
    page.click(f'[data-open="{round_["id"]}"]')
    page.wait_for_selector("#round-detail")
    detail = page.locator("#round-detail")
    assert catalogs["en"]["fair.rotate_to_verify"] in str(detail.text_content())
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/rotate" in r.url else None)
    asked: list[str] = []

    def say_no(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", say_no)
    page.click("[data-rotate]")
    page.wait_for_timeout(200)
    assert asked == [catalogs["en"]["fair.rotate_confirm"]] and sent == []
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_response(lambda r: r.url.endswith("/api/fairness/rotate")) as answer:
        page.click("[data-rotate]")
    seed = answer.value.json()["revealed"]["server_seed"]
    page.wait_for_function(
        "seed => document.querySelector('#round-detail').textContent.includes(seed)", arg=seed
    )
    assert catalogs["en"]["fair.rotate_to_verify"] not in str(detail.text_content())
    assert page.locator(f'[data-verify="{round_["id"]}"][href*="server_seed={seed}"]').count() == 1
    assert player.errors == [] and errors == []
