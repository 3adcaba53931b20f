"""The browser table in a real chromium against a real server (issue 6's Tests paragraph)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest

from baccarat import __version__

from .webtools import (
    PASSWORD,
    cut_table,
    fresh_table,
    last_round,
    open_table,
    percent,
    place,
    signed,
    stack_total,
    usd,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("currency", "size", "locale"), [
    ("EUR", (1280, 720), "de-DE"), ("JPY", (1920, 1080), "en-US"), ("SEK", (390, 844), "sv-SE"),
    ("DKK", (844, 390), "da-DK"),
])  # fmt: skip
def test_a_player_in_another_currency_sees_the_tables_and_amounts_in_it(
    make_player: Any, screenshots: Path, currency: str, size: tuple[int, int], locale: str
) -> None:
    player = make_player(login=False, locale=locale,
                         viewport={"width": size[0], "height": size[1]})  # fmt: skip
    player.register_and_login(currency)
    player.goto("table/table-i")
    page = player.page
    page.wait_for_selector('.table-view[data-table="table-i"]')
    tables = player.api("GET", "/api/tables")
    assert {t["currency"] for t in tables} == {currency}
    chips = [c.get_attribute("data-chip") for c in page.query_selector_all("[data-chip]")]
    table_i = next(t for t in tables if t["id"] == "table-i")
    assert [int(c) for c in chips if c] == table_i["chips"]
    expected = page.evaluate(
        "([c, l]) => new Intl.NumberFormat(l, {style: 'currency', currency: c})"
        ".format(100000 / 10 ** new Intl.NumberFormat('en', {style: 'currency', currency: c})"
        ".resolvedOptions().maximumFractionDigits)", [currency, locale])  # fmt: skip
    page.wait_for_function(
        "v => document.querySelector('[data-meter=balance]').textContent === v", arg=expected
    )
    page.screenshot(path=str(screenshots / f"currency-{currency}-{size[0]}x{size[1]}.jpg"))
    assert not player.errors


def test_register_log_out_and_log_in_through_the_lobby(
    make_player: Any, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player(login=False)
    page = player.page
    player.goto()
    page.fill("#nickname", player.nickname)
    page.fill("#password", PASSWORD)
    page.click("#register-btn")
    page.wait_for_selector(".wallet")
    wallet = player.api("GET", "/api/wallet")
    # Fun mode by default, both balances shown.
    assert page.get_attribute('[data-wallet="fun"]', "aria-pressed") == "true"
    assert usd(wallet["fun"]) in str(page.text_content('[data-wallet="fun"]'))
    assert usd(wallet["real"]) in str(page.text_content('[data-wallet="real"]'))
    assert player.nickname in str(page.text_content("#who"))
    assert page.locator(".table-card").count() >= 3
    page.screenshot(path=str(screenshots / "lobby.jpg"), full_page=True)

    page.click("#logout")
    page.wait_for_selector("#login-btn")
    page.fill("#nickname", player.nickname)
    page.fill("#password", "wrong password!")
    page.click("#login-btn")
    page.wait_for_function(
        "text => document.querySelector('.auth .message').textContent === text",
        arg=catalogs["en"]["error.invalid_credentials"],
    )
    page.fill("#password", PASSWORD)
    page.click("#login-btn")
    page.wait_for_selector(".wallet")
    assert player.errors == []


def test_the_pages_for_players_ask_a_visitor_to_log_in_first(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player(login=False)
    page = player.page
    table = fresh_table(tables)
    banked = next(t for t in tables if t.get("banked"))
    routes = ("cashier", "responsible", "history", f"table/{table['id']}", f"seat/{banked['id']}.1")
    for route in routes:
        player.goto(route)
        panel = page.locator("#main section.panel.narrow")
        assert panel.count() == 1, route
        assert panel.locator("h1").text_content() == catalogs["en"]["table.login_first"], route
        assert panel.locator('a[href="#/"]').text_content() == catalogs["en"]["nav.lobby"], route
        assert page.locator(".table-view, [data-form], [data-panel]").count() == 0, route
    # The history page says it again in the language chosen.
    page.select_option("#lang", "de")
    page.wait_for_function(
        "text => document.querySelector('#main section.panel.narrow h1')?.textContent === text",
        arg=catalogs["de"]["table.login_first"],
    )
    assert page.locator("#main section.panel.narrow").count() == 1
    page.click('#main section.panel.narrow a[href="#/"]')
    page.wait_for_selector("#login-btn")
    assert player.errors == []


def test_the_lobby_and_the_rules_page_say_when_the_table_list_does_not_load(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player()
    page = player.page
    page.route(
        "**/api/tables",
        lambda route: route.fulfill(status=503, content_type="application/json", body="{}"),
    )
    for route, where in (("", ".lobby"), ("rules", ".rules-page")):
        player.goto(route)
        alert = page.locator(f"{where} .message[role=alert]")
        assert alert.text_content() == catalogs["en"]["error.server"], route
    assert page.locator(".table-card").count() == 0
    assert page.locator("#rules-table option").count() == 0
    page.unroute("**/api/tables")
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert page.locator(".rules-page .message[role=alert]").count() == 0
    assert page.locator("#rules-table option").count() >= 3


def test_fun_mode_plays_with_play_money_and_switches_to_real(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player = make_player()
    table = fresh_table(tables)
    open_table(player, table)
    wallet = player.api("GET", "/api/wallet")
    assert player.meter("balance") == usd(wallet["fun"])
    player.page.click('.topbar [data-mode="real"]')
    player.page.wait_for_function(
        "v => document.querySelector('[data-meter=balance]').textContent === v",
        arg=usd(wallet["real"]),
    )
    player.page.click('.topbar [data-mode="fun"]')
    place(player, 500, "player")
    assert player.meter("balance") == usd(wallet["fun"] - 500)
    player.page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    assert round_["mode"] == "fun"
    assert player.api("GET", "/api/wallet")["real"] == wallet["real"]


def test_chips_on_all_three_spots_undo_clear_double_and_rebet(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "player")
    place(player, 500, "banker")
    place(player, 500, "tie")
    place(player, 100, "player", times=2)
    assert [stack_total(player, s) for s in ("player", "banker", "tie")] == [
        usd(700),
        usd(500),
        usd(500),
    ]
    assert player.meter("bet") == usd(1700)

    page.click('[data-action="undo"]')
    assert stack_total(player, "player") == usd(600)
    # Right-click removes the top chip; the remove control does the same for touch/keyboard.
    page.click('[data-spot="player"]', button="right")
    assert stack_total(player, "player") == usd(500)
    page.click('[data-remove="banker"]')
    assert stack_total(player, "banker") == ""
    page.click('[data-action="undo"]')
    assert stack_total(player, "banker") == usd(500)

    page.click('[data-action="double"]')
    assert [stack_total(player, s) for s in ("player", "banker", "tie")] == [
        usd(1000),
        usd(1000),
        usd(1000),
    ]
    page.click('[data-action="clear"]')
    assert player.meter("bet") == usd(0)
    page.click('[data-action="undo"]')
    assert player.meter("bet") == usd(3000)
    page.click('[data-action="clear"]')

    place(player, 500, "player")
    place(player, 500, "tie")
    page.click('[data-action="deal"]')
    player.wait_round()
    page.click('[data-action="new"]')
    assert player.meter("bet") == usd(0)
    page.click('[data-action="rebet"]')
    assert [stack_total(player, s) for s in ("player", "banker", "tie")] == [usd(500), "", usd(500)]
    bets_before = player.api("GET", "/api/history?mode=fun&limit=5")["items"]
    page.click('[data-action="rebet-deal"]')
    player.wait_round()
    page.click('[data-action="double-deal"]')
    player.wait_round()
    rounds = player.api("GET", "/api/history?mode=fun&limit=5")["items"]
    assert len(rounds) == len(bets_before) + 2
    assert {k: v["stake"] for k, v in rounds[1]["bets"].items()} == {"player": 500, "tie": 500}
    assert {k: v["stake"] for k, v in rounds[0]["bets"].items()} == {"player": 1000, "tie": 1000}
    assert player.errors == []


def test_a_dealt_round_shows_what_the_history_records(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    player = make_player(reduced_motion="no-preference")
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "player")
    place(player, 500, "banker")
    place(player, 500, "tie")
    # Record the order in which cards appear on the felt.
    page.evaluate(
        """() => {
        window.__dealt = [];
        new MutationObserver((records) => {
          for (const r of records) for (const n of r.addedNodes)
            if (n.dataset && n.dataset.card) window.__dealt.push(n.dataset.card);
        }).observe(document.querySelector('.hands'), {childList: true, subtree: true});
    }"""
    )
    page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    p, b = round_["player"]["cards"], round_["banker"]["cards"]
    expected_order = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]
    assert page.evaluate("window.__dealt") == expected_order
    for side in ("player", "banker"):
        shown = page.eval_on_selector_all(
            f'[data-cards="{side}"] .card', "els => els.map(e => e.dataset.card)"
        )
        assert shown == round_[side]["cards"]
        x, y = round_[side]["scores"]
        assert page.text_content(f'[data-score="{side}"]') == f"{x}:{y}"
    assert page.get_attribute(".felt", "data-winner") == round_["winner"]
    if round_["winner"] != "tie":
        assert page.get_attribute(f'[data-marker="{round_["winner"]}"]', "data-result") == "win"
    for spot, bet in round_["bets"].items():
        assert page.get_attribute(f".wrap-{spot} .bet-marker", "data-result") == bet["result"]
    stake = sum(bet["stake"] for bet in round_["bets"].values())
    assert stake == 1500
    assert player.meter("win") == usd(round_["win"])
    assert player.meter("balance") == usd(round_["balance_after"])
    assert player.meter("last") == signed(round_["win"] - stake)
    assert usd(round_["balance_after"]) in str(page.text_content('.topbar [data-mode="fun"]'))
    page.screenshot(path=str(screenshots / "table-dealt.jpg"))

    player.goto("history")
    page.wait_for_selector(f'tr[data-round="{round_["id"]}"]')
    page.click(f'[data-open="{round_["id"]}"]')
    page.wait_for_selector("#round-detail")
    href = str(page.get_attribute(f'[data-verify="{round_["id"]}"]', "href"))
    assert href.startswith("verify.html?")
    assert "nonce=" in href and "commitment=" in href and "client_seed=" in href
    page.screenshot(path=str(screenshots / "history.jpg"), full_page=True)
    # The round's cards are drawn whole, side by side, not collapsed onto each other.
    boxes = page.locator("#round-detail .card").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.width, r.height]; })"
    )
    assert len(boxes) == len(round_["player"]["cards"]) + len(round_["banker"]["cards"])
    assert all(width >= 40 and height > width for _, width, height in boxes), boxes
    lefts = [left for left, _, _ in boxes]
    assert all(b - a >= 40 for a, b in itertools.pairwise(lefts)), lefts
    assert "server_seed=" not in href
    # Rotating the server seed reveals it: the round's link then carries it to the verifier.
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_response(lambda r: r.url.endswith("/api/fairness/rotate")) as rotated:
        page.click("[data-rotate]")
    revealed = rotated.value.json()["revealed"]["server_seed"]
    page.wait_for_function("document.querySelector('.revealed').textContent.length > 0")
    assert revealed in str(page.text_content(".revealed"))
    page.click(f'[data-open="{round_["id"]}"]')
    page.wait_for_selector(f'[data-verify="{round_["id"]}"][href*="server_seed={revealed}"]')
    assert player.errors == []


def test_the_browser_sets_a_fresh_client_seed_after_every_new_commitment(
    make_player: Any, screenshots: Path
) -> None:
    player = make_player()
    page = player.page
    # Registered: the server committed a seed and holds a placeholder client seed of its
    # own. A round dealt before any page replaced it is flagged as such.
    early = player.api("POST", "/api/tables/table-i/rounds",
                       {"mode": "fun", "bets": {"player": 500}},
                       {"Idempotency-Key": "before-any-page"})  # fmt: skip
    assert early["fairness"]["client_seed_source"] == "server"
    # The page replaces the placeholder at once, for both modes, without being asked.
    player.goto()
    page.wait_for_function(
        "() => fetch('/api/fairness').then(r => r.json()).then(d =>"
        " d.fun.client_seed_source === 'client' && d.real.client_seed_source === 'client')"
    )
    first = player.api("GET", "/api/fairness")["fun"]
    assert re.fullmatch(r"[0-9a-f]{32}", first["client_seed"])
    player.goto("history")
    page.wait_for_selector('[data-fair="source"][data-source="browser"]')
    assert page.input_value("#client-seed") == first["client_seed"]
    page.click(f'[data-open="{early["id"]}"]')
    page.wait_for_selector('#round-detail [data-fair="server-client-seed"]')
    # A rotation commits a new seed: the page gives it a fresh client seed, unasked.
    page.once("dialog", lambda dialog: dialog.accept())
    with (
        page.expect_response(
            lambda r: r.url.endswith("/api/fairness/client-seed") and r.request.method == "PUT"
        ) as given,
        page.expect_response(lambda r: r.url.endswith("/api/fairness/rotate")) as rotated,
    ):
        page.click("[data-rotate]")
    current = rotated.value.json()["current"]
    assert current["client_seed_source"] == "server"
    after = given.value.json()
    assert after["commitment"] == current["commitment"] != first["commitment"]
    assert after["client_seed_source"] == "client"
    assert after["client_seed"] not in (first["client_seed"], current["client_seed"])
    assert player.api("GET", "/api/fairness")["fun"] == after
    page.wait_for_function(
        "s => document.querySelector('#client-seed').value === s", arg=after["client_seed"]
    )
    assert page.get_attribute('[data-fair="source"]', "data-source") == "browser"
    # A seed the player types is theirs, and the page says so.
    page.fill("#client-seed", "my own lucky seed")
    page.click('.fairness button[type="submit"]')
    page.wait_for_selector('[data-fair="source"][data-source="you"]')
    assert player.api("GET", "/api/fairness")["fun"]["client_seed"] == "my own lucky seed"
    for width, height in ((1280, 720), (1920, 1080), (390, 844), (844, 390)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator(".fairness").screenshot(path=str(screenshots / f"fair-{width}.jpg"))
    assert player.errors == []


def test_the_cashier_takes_deposit_and_withdrawal_requests(make_player: Any) -> None:
    player = make_player()
    page = player.page
    player.goto("cashier")
    page.fill("#deposit-amount", "25.50")
    page.click('[data-form="deposit"] button[type="submit"]')
    page.wait_for_selector("[data-request] [data-status='pending']")
    assert usd(2550) in str(page.text_content("[data-request]"))
    requests = player.api("GET", "/api/wallet/deposits")
    assert [(r["amount"], r["status"]) for r in requests] == [(2550, "pending")]
    # A withdrawal above the real balance (0.00) is explained and not sent.
    page.fill("#withdrawal-amount", "10")
    page.click('[data-form="withdrawal"] button[type="submit"]')
    message = str(page.text_content('[data-message="withdrawal"]'))
    assert usd(1000) in message and usd(0) in message
    assert player.api("GET", "/api/wallet/withdrawals") == []


def test_a_bet_outside_the_limits_is_explained_and_nothing_is_sent(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player()
    page = player.page
    table = fresh_table(tables)
    limits = table["limits"]
    open_table(player, table)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)

    # Below the minimum: one chip smaller than the table's minimum.
    small = min(table["chips"])
    assert small < limits["min"], "the table's smallest chip is below its minimum"
    place(player, small, "player")
    assert page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(page.text_content("#table-message"))
    assert usd(limits["min"]) in message and "minimum" in message
    assert page.get_attribute("#table-message", "data-kind") == "warn"

    # Above the maximum: chips until the stack passes it.
    page.click('[data-action="clear"]')
    chip = max(c for c in table["chips"] if c <= limits["max"])
    place(player, chip, "banker", times=limits["max"] // chip + 1)
    assert page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(page.text_content("#table-message"))
    assert usd(limits["max"]) in message and "maximum" in message

    # Above the balance (real mode: 0.00).
    page.click('[data-action="clear"]')
    page.click('.topbar [data-mode="real"]')
    place(player, limits["min"] if limits["min"] in table["chips"] else 500, "player")
    assert page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(page.text_content("#table-message"))
    assert "balance" in message and usd(0) in message
    page.wait_for_timeout(200)
    assert not [url for url in sent if "/rounds" in url]
    assert player.api("GET", "/api/history?mode=fun&limit=1")["items"] == []


def test_a_refusal_from_the_server_is_shown_in_the_players_language(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player(locale="de-DE")
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    assert page.text_content('[data-action="deal"]') == catalogs["de"]["btn.deal"]
    place(player, 500, "player")
    # The session ends elsewhere (another tab logs out): the server refuses the deal.
    player.api("DELETE", "/api/sessions")
    with page.expect_response(lambda r: "/rounds" in r.url) as answer:
        page.click('[data-action="deal"]')
    assert answer.value.status == 401
    page.wait_for_function(
        "text => document.querySelector('#table-message').textContent === text",
        arg=catalogs["de"]["error.not_authenticated"],
    )
    assert page.get_attribute(".table-view", "data-phase") == "betting"
    assert stack_total(player, "player") == "5,00\xa0$"
    # The header now shows the player logged out, and the lobby offers the login form.
    page.wait_for_function("() => !document.body.classList.contains('logged-in')")
    player.goto("")
    page.wait_for_selector("#login-btn")


def test_language_switch_changes_the_texts_and_is_remembered(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    assert page.text_content('[data-action="deal"]') == catalogs["en"]["btn.deal"]
    for lang in ("de", "da", "sv"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        cat = catalogs[lang]
        assert page.text_content('[data-action="deal"]') == cat["btn.deal"]
        assert page.text_content('[data-action="clear"]') == cat["btn.clear"]
        assert page.text_content('[data-spot="tie"] .spot-name') == cat["spot.tie"]
        assert page.text_content(".meter-balance .meter-label") == cat["meter.balance"]
        assert page.text_content('.nav a[href="#/history"]') == cat["nav.history"]
    # Swedish money: "1 000,00 US$"-style grouping and a decimal comma.
    assert re.search(r"\d,\d\d", player.meter("balance"))
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert page.evaluate("document.documentElement.lang") == "sv"
    assert page.text_content('[data-action="deal"]') == catalogs["sv"]["btn.deal"]
    # Every catalog has every key of the English one, and no key is left empty.
    for lang, cat in catalogs.items():
        assert set(cat) == set(catalogs["en"]), lang
        assert all(value.strip() for value in cat.values()), lang


def test_the_mini_table_is_cut_before_the_first_coup(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player = make_player()
    page = player.page
    table = cut_table(tables)
    open_table(player, table)
    page.wait_for_selector(".cut-panel")
    # A bet before the cut is not dealt: the server allows the cut, not a deal.
    place(player, min(c for c in table["chips"] if c >= table["limits"]["min"]), "player")
    assert page.get_attribute(".table-view", "data-allowed") == "cut"
    assert page.is_disabled('[data-action="deal"]')
    bar = page.locator("[data-shoe-bar]")
    box = bar.bounding_box()
    assert box is not None
    bar.click(position={"x": box["width"] * 0.3, "y": box["height"] / 2})
    page.wait_for_selector(".cut-panel", state="detached")
    shoe = player.api("GET", f"/api/tables/{table['id']}/shoe?mode=fun")
    assert shoe["cut_due"] is False
    left = int(str(page.get_attribute(".shoe-left", "data-remaining")))
    assert left == shoe["cards_left"]
    page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    used = len(round_["player"]["cards"]) + len(round_["banker"]["cards"])
    page.wait_for_function(
        "n => document.querySelector('.shoe-left').dataset.remaining === String(n)",
        arg=left - used,
    )
    fairness = round_.get("fairness", round_)
    assert fairness["cut"] is not None


def test_a_round_can_be_played_with_the_keyboard_alone(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)

    def tab_to(selector: str, limit: int = 60) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
                assert outline != "none", f"{selector} has no visible focus"
                return
        raise AssertionError(f"Tab never reached {selector}")

    page.focus("body")
    tab_to("[data-chip]")
    target = table["chips"].index(500)
    current = table["chips"].index(int(page.evaluate("document.activeElement.dataset.chip")))
    for _ in range((target - current) % len(table["chips"])):
        page.keyboard.press("ArrowRight")
    assert page.get_attribute(f'[data-chip="{500}"]', "aria-checked") == "true"
    tab_to('[data-spot="player"]')
    page.keyboard.press("Enter")
    page.keyboard.press(" ")
    assert stack_total(player, "player") == usd(1000)
    page.keyboard.press("Delete")
    assert stack_total(player, "player") == usd(500)
    # The spot's name is what it shows (its words, then its stake).
    assert str(page.text_content('[data-spot="player"]')).startswith("PLAYER")
    tab_to('[data-action="deal"]')
    page.keyboard.press("Enter")
    player.wait_round()
    assert last_round(player)["bets"]["player"]["stake"] == 500


def test_the_table_fits_a_phone(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    player = make_player(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for selector in (
        '[data-spot="player"]',
        '[data-spot="tie"]',
        '[data-chip="500"]',
        '[data-action="deal"]',
        '[data-meter="balance"]',
    ):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, selector
    page.tap('[data-chip="500"]')
    page.tap('[data-spot="banker"]')
    page.tap('[data-remove="banker"]')
    assert stack_total(player, "banker") == ""
    page.tap('[data-spot="banker"]')
    page.tap('[data-action="deal"]')
    player.wait_round()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(screenshots / "table-phone.jpg"), full_page=True)


def test_rules_page_shows_tableau_payouts_rtp_and_version(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    player = make_player()
    page = player.page
    table = fresh_table(tables)
    player.goto(f"rules/{table['id']}")
    page.wait_for_selector("#banker-tableau")
    rows = page.eval_on_selector_all(
        "#banker-tableau tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))"
    )
    assert ["3", "0-1-2-3-4-5-6-7-9", "8"] in rows
    assert ["6", "6-7", "0-1-2-3-4-5-8-9"] in rows
    shown = page.eval_on_selector_all(
        "#payouts tbody tr", "rs => rs.map(r => r.lastElementChild.textContent)"
    )
    expected = [percent(table["rtp"][bet]) for bet in ("player", "banker", "tie")]
    assert [s.replace(",", "") for s in shown] == expected
    page.wait_for_function(
        "v => document.querySelector('#game-version').textContent.includes(v)", arg=__version__
    )
    page.screenshot(path=str(screenshots / "rules.jpg"), full_page=True)
