"""Jurisdiction profiles in the browser (docs/jurisdictions.md): a server playing the GB
profile beside the default one; the page reads the profile from GET /api/session and shows
what it allows. Screenshots of both at a desktop and a phone size; axe on the GB table."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .audits import audit
from .webtools import (
    Player,
    Shifted,
    console_errors,
    device,
    fresh_table,
    last_round,
    open_table,
    place,
    serving,
    shifted_server,
    signed,
    stack_total,
    usd,
)


def expect_text(locator: Any, text: str) -> None:
    """The element comes to show ``text`` (Playwright's wait, then the check)."""
    locator.page.wait_for_function("([el, text]) => el.textContent.trim() === text",
                                   arg=[locator.element_handle(), text])  # fmt: skip


@pytest.fixture(scope="module")
def gb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A game server whose deployment plays the GB profile."""
    with serving(tmp_path_factory.mktemp("gb-server"), BACCARAT_PROFILE="GB") as url:
        yield url


def _both_spots(player: Player, table: dict[str, Any]) -> None:
    """The same stake on Player and Banker: whatever the cards, the round returns at most
    its stake (one bet pays even money or 0.95, the other loses; a tie returns both)."""
    place(player, 500, "player")
    place(player, 500, "banker")


def test_gb_counts_down_on_deal_and_offers_no_fast_reveal(
    make_player: Any, gb_url: str, tables: list[dict[str, Any]], axe_source: Path
) -> None:
    player: Player = make_player(at=gb_url)
    page = player.page
    # FAST chosen before in this browser is not used where the profile forbids it.
    page.add_init_script("localStorage.setItem('baccarat.fast', 'on');"
                         "localStorage.setItem('baccarat.squeeze', 'on')")  # fmt: skip
    table = fresh_table(tables)
    open_table(player, table)
    assert page.locator('[data-option="squeeze"]').count() == 1
    assert page.locator('[data-option="fast"]').count() == 0
    assert page.locator("[data-autoplay]").count() == 0  # each round a press of its own
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    page.wait_for_selector("[data-squeeze]")
    # The squeeze turns card by card: no REVEAL ALL.
    assert page.locator('[data-action="reveal-all"]').count() == 0
    # (A third card comes face down once the first four are turned.)
    while not page.locator('.table-view[data-phase="result"]').count():
        down = page.locator(".card.squeeze.down")
        if down.count():
            down.first.press("Enter")
        else:
            page.wait_for_timeout(50)
    player.wait_round()
    deal = page.locator('[data-action="deal"]')
    place(player, 500, "player")
    # DEAL counts the 5 seconds down from the round's start, and is off meanwhile.
    assert deal.get_attribute("data-wait") != ""
    assert deal.is_disabled()
    page.wait_for_function(
        "document.querySelector('[data-action=\"deal\"]').dataset.wait === ''", timeout=8000
    )
    assert deal.is_enabled()
    found: list[str] = []
    audit(page, axe_source, "the GB table", found)
    assert not found, found
    assert not player.errors


@pytest.mark.parametrize(("where", "quiet"), [("gb", True), ("default", False)])
def test_gb_does_not_celebrate_a_return_at_most_the_stake(
    make_player: Any, gb_url: str, base_url: str, tables: list[dict[str, Any]], where: str,
    quiet: bool,
) -> None:  # fmt: skip
    player: Player = make_player(at=gb_url if where == "gb" else base_url)
    table = fresh_table(tables)
    open_table(player, table)
    _both_spots(player, table)
    player.page.click('[data-action="deal"]')
    player.wait_round()
    assert player.page.locator(".felt[data-quiet]").count() == (1 if quiet else 0)


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)])
def test_the_table_in_both_profiles_at_a_desktop_and_a_phone_size(
    make_player: Any, gb_url: str, base_url: str, tables: list[dict[str, Any]],
    screenshots: Path, size: tuple[int, int],
) -> None:  # fmt: skip
    width, height = size
    for name, url in (("default", base_url), ("gb", gb_url)):
        player: Player = make_player(at=url, **device(width, height))
        table = fresh_table(tables)
        open_table(player, table)
        place(player, 500, "player")
        player.page.click('[data-action="deal"]')
        player.wait_round()
        player.page.screenshot(path=str(screenshots / f"profile-{name}-{width}x{height}.jpg"))
        assert not player.errors


def test_the_recall_steps_through_the_last_rounds_as_the_export_has_them(
    make_player: Any, tables: list[dict[str, Any]], axe_source: Path, screenshots: Path
) -> None:
    player: Player = make_player()
    table = fresh_table(tables)
    for stake in (500, 1000, 1500):
        key = {"Idempotency-Key": uuid.uuid4().hex}
        body = {"mode": "fun", "bets": {"player": stake}}
        player.api("POST", f"/api/tables/{table['id']}/rounds", body, key)
    response = player.context.request.get(f"{player.base_url}/api/history/export")
    lines = [json.loads(line) for line in response.text().splitlines()]
    page = player.page
    errors = console_errors(player)
    player.goto("history")
    page.click('[data-recall="open"]')
    page.wait_for_selector(".recall-round")
    assert page.text_content('[data-recall="which"]') == "Round 1 of 3, newest first"
    page.click('[data-round-go="older"]')
    shown = lines[1]  # the second newest of three
    assert page.get_attribute(".recall-round", "data-round") == shown["id"]
    assert page.text_content('[data-recall="table"] dd') == table["name"]  # not its id
    assert page.text_content('[data-recall="before"] dd') == usd(shown["balance_before"])
    assert page.locator('[data-recall="after"]').count() == 0  # not before the last card
    dealt = [*shown["player"]["cards"][:1], *shown["banker"]["cards"][:1],
             *shown["player"]["cards"][1:2], *shown["banker"]["cards"][1:2],
             *shown["player"]["cards"][2:], *shown["banker"]["cards"][2:]]  # fmt: skip
    for n in range(1, len(dealt) + 1):
        page.click('[data-step-go="next"]')
        page.wait_for_selector(f'.recall-round[data-at="{n}"]')
        hands = [page.get_attribute(f'[data-hand="{side}"] .card >> nth={i}', "data-card")
                 for side in ("player", "banker")
                 for i in range(page.locator(f'[data-hand="{side}"] .card').count())]  # fmt: skip
        assert sorted(hands) == sorted(dealt[:n])
    assert page.text_content('[data-recall="after"] dd') == usd(shown["balance_after"])
    assert page.locator("[data-step]").count() == len(dealt)
    found: list[str] = []
    audit(page, axe_source, "the recall", found)
    assert not found, found
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator('[data-hand="banker"]').scroll_into_view_if_needed()
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(screenshots / f"recall-{width}x{height}.jpg"))
    assert not player.errors and not errors


def test_gb_shows_the_net_position_and_session_time_after_every_round_and_a_reload(
    make_player: Any, gb_url: str, base_url: str, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player(at=gb_url)
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    open_table(player, table)
    line = page.locator("[data-position]")
    page.wait_for_selector('[data-position][data-net="0"]')
    assert line.text_content().startswith("Session 0:0")
    assert line.text_content().endswith("Net position $0.00")
    place(player, 500, "player")
    place(player, 500, "tie")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/session/position" in r.url else None)
    page.click('[data-action="deal"]')
    player.wait_round()
    # Right as the result shows (not a moment later): the round's answer carried it.
    shown, text = line.get_attribute("data-net"), str(line.text_content())
    played = last_round(player)
    net = played["win"] - played["stake"]
    assert (shown, text.endswith(f"Net position {signed(net)}")) == (str(net), True), text
    assert asked == []  # and nothing asked again
    page.reload()
    page.wait_for_selector(f'[data-position][data-net="{net}"][data-position-mode="fun"]')
    # The default profile shows neither.
    other: Player = make_player(at=base_url)
    open_table(other, table)
    assert other.page.locator("[data-position]").count() == 0
    assert not player.errors and not other.errors and not errors


def test_a_favourite_layout_is_saved_with_the_account_and_placed_with_a_click(
    make_player: Any, tables: list[dict[str, Any]], axe_source: Path, screenshots: Path
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "player")
    place(player, 500, "tie")
    page.click("[data-favourites] > summary")
    page.wait_for_selector("[data-favourite-list] li.muted")  # none yet
    page.fill("[data-favourite-name]", "safe one")
    page.click("[data-favourite-save]")
    page.wait_for_selector('[data-favourite-place="safe one"]')
    assert page.text_content('[data-favourite-place="safe one"]') == "safe one \u00b7 $10.00"
    found: list[str] = []
    audit(page, axe_source, "the favourites", found)
    assert not found, found
    page.set_viewport_size({"width": 390, "height": 844})
    page.click("[data-favourites] > summary")  # closed, and opened again at this size
    page.click("[data-favourites] > summary")
    page.wait_for_selector("[data-favourites][open] [data-favourite-place]")
    box = page.locator(".favourites-panel").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.screenshot(path=str(screenshots / "favourites-390x844.jpg"))
    # Kept with the account: another page finds it, and one click puts it on the felt.
    page.reload()
    page.wait_for_selector(f'.table-view[data-table="{table["id"]}"]')
    assert stack_total(player, "player") == ""
    page.click("[data-favourites] > summary")
    page.click('[data-favourite-place="safe one"]')
    assert (stack_total(player, "player"), stack_total(player, "tie")) == ("$5.00", "$5.00")
    page.click('[data-action="deal"]')
    player.wait_round()
    assert last_round(player)["stake"] == 1000
    assert not player.errors


def test_several_tables_play_on_one_screen_with_one_exact_balance(
    make_player: Any, base_url: str, gb_url: str, screenshots: Path, axe_source: Path
) -> None:
    player: Player = make_player(viewport={"width": 1280, "height": 720})
    page = player.page
    player.goto()
    page.click("[data-multi]")
    for table_id in ("table-i", "table-ii", "table-iii", "speed"):
        page.check(f'[data-pick="{table_id}"]')
    page.click("[data-multi-open]")
    page.wait_for_selector('iframe[data-frame="speed"]')
    for table_id in ("table-i", "table-ii"):
        frame = page.frame_locator(f'[data-frame="{table_id}"]')
        frame.locator('[data-chip="500"]').click()
        frame.locator('[data-spot="player"]').click()
        frame.locator('[data-action="deal"]').click()
        frame.locator('.table-view[data-phase="result"][data-busy="false"]').wait_for()
    wallet = player.api("GET", "/api/wallet")
    balance = usd(wallet["fun"]["balance"] if isinstance(wallet["fun"], dict) else wallet["fun"])
    # Each table's BALANCE and the screen's header: the one balance, as the server has it.
    for table_id in ("table-i", "table-ii", "table-iii"):
        meter = page.frame_locator(f'[data-frame="{table_id}"]').locator('[data-meter="balance"]')
        expect_text(meter, balance)
    expect_text(page.locator('.topbar [data-mode="fun"] .amount'), balance)
    found: list[str] = []
    audit(page, axe_source, "several tables", found)
    assert not found, found
    for width, height in ((1280, 720), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(screenshots / f"multi-{width}x{height}.jpg"))
    assert not player.errors
    # GB: one table at a time, refused with the rule's reason.
    briton: Player = make_player(at=gb_url)
    briton.goto()
    assert briton.page.locator("[data-multi]").count() == 0
    briton.goto("multi/table-i,table-ii")
    refused = briton.page.locator('[data-multi-refused="multi_table_not_allowed"]')
    assert refused.text_content() == (
        "Playing several tables at once is not offered in this market (1 at a time at most): "
        "play them one after the other."
    )
    assert briton.page.locator("iframe").count() == 0


@pytest.fixture(scope="module")
def ontario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shifted]:
    """A game server whose deployment plays the ON profile, on a clock the test moves."""
    data = tmp_path_factory.mktemp("on-server")
    with shifted_server(data, BACCARAT_PROFILE="ON") as server:
        yield server


def test_ontario_says_why_the_session_ended_and_offers_to_log_in_again(
    make_player: Any, ontario: Shifted, tables: list[dict[str, Any]], screenshots: Path,
    axe_source: Path,
) -> None:  # fmt: skip
    # Said on the next request of an open page (a deal), and on the first of a page opened
    # again after the time-out (its first read of the session).
    for width, height, then in ((1280, 720, "deal"), (390, 844, "reload")):
        player: Player = make_player(at=ontario.url, **device(width, height))
        page = player.page
        errors = console_errors(player)
        open_table(player, fresh_table(tables))
        place(player, 500, "player")
        ontario.advance(30 * 60)  # 30 minutes without an action: the server ended the session
        if then == "deal":
            page.click('[data-action="deal"]')
        else:
            page.reload()
        notice = page.locator("#session-inactive[open]")
        notice.wait_for()
        assert notice.locator("h2").text_content() == "You were logged out"
        assert notice.locator("p").text_content() == (
            "Your session ended after 30 minutes without play, as the rules of this market "
            "ask. Bets not dealt were not taken."
        )
        page.wait_for_selector("body:not(.logged-in)")  # ended here too
        page.screenshot(path=str(screenshots / f"inactive-{width}x{height}.jpg"))
        found: list[str] = []
        audit(page, axe_source, "the session's end", found)
        assert not found, found
        page.click('[data-inactive="login"]')
        page.wait_for_selector("#login-btn")  # the lobby's login form
        assert page.locator("#session-inactive").count() == 0
        # Said once: the ended session's cookies are gone, a reload is a visitor's page.
        page.reload()
        page.wait_for_selector("html[data-ready=true] #login-btn")
        assert page.locator("#session-inactive").count() == 0
        assert not player.errors and not errors


def test_the_several_tables_screen_says_the_sessions_end_once_for_all_its_tables(
    make_player: Any, ontario: Shifted, screenshots: Path
) -> None:
    """A table's frame refused with session_inactive (its deal) hands it to the screen, which
    says it once, over all its tables; no frame says it inside."""

    def screens(route: Any) -> bool:
        return bool(route.request.frame == page.main_frame and route.request.method == "GET")

    player: Player = make_player(at=ontario.url, **device(1280, 720))
    page = player.page
    errors = console_errors(player)
    player.goto("multi/table-i,table-ii")
    page.locator("iframe").nth(1).wait_for()
    tables = page.frames[1:]
    assert len(tables) == 2
    for frame in tables:
        frame.wait_for_selector("html[data-ready=true] .table-view")
    first = tables[0]
    first.click('[data-chip="500"]')
    first.click('[data-spot="player"]')
    ontario.advance(30 * 60)  # 30 minutes without an action: the server ended the session
    # The screen's own reads are held: it learns the session ended from the frame alone (its
    # wallet's next read would be refused too, 30 seconds on).
    held: list[Any] = []
    page.route(
        "**/api/**", lambda route: held.append(route) if screens(route) else route.fallback()
    )
    first.click('[data-action="deal"]')
    notice = page.locator("#session-inactive[open]")
    notice.wait_for()
    assert notice.locator("h2").text_content() == "You were logged out"
    assert [frame.locator("#session-inactive").count() for frame in tables] == [0, 0]
    page.wait_for_selector("body:not(.logged-in)")  # the screen ended the session
    page.screenshot(path=str(screenshots / "inactive-several-tables-1280x720.jpg"))
    assert not player.errors and not errors
