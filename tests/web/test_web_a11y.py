"""A table everyone can play (WCAG 2.1 A and AA): axe-core on every page and state at a
desktop and a phone size, the keyboard alone through a round, a squeeze and a seat's round
(with where the focus is after each step), one announcement per round, the contrast of the
felt's texts, the table at 200% zoom, and the warning before a seat's time runs out.

axe and what it checks: tests/web/audits.py (the back office's pages: test_web_office.py)."""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..fairness.samples import history, jsonl
from .audits import SIZES, audit
from .webtools import (
    ANNOUNCED,
    TAKEN,
    HeldSocket,
    Player,
    announced,
    fresh_table,
    last_round,
    open_table,
    place,
    usd,
)

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stand_up_after")]


def focused(page: Any) -> str:
    """The focused element as a short selector-like text."""
    text: str = page.evaluate(
        """() => { const e = document.activeElement;
            if (!e || e === document.body) return 'body';
            const data = Object.entries(e.dataset).map(([k, v]) => `[${k}=${v}]`).join('');
            return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + data; }"""
    )
    return text


def ring(page: Any) -> bool:
    """Whether the focused element shows a focus ring (:focus-visible and an outline)."""
    shown: bool = page.evaluate(
        """() => { const e = document.activeElement;
            return Boolean(e) && e !== document.body && e.matches(':focus-visible')
                && getComputedStyle(e).outlineStyle !== 'none'
                && parseFloat(getComputedStyle(e).outlineWidth) >= 2; }"""
    )
    return shown


def wait_focus(page: Any, selector: str) -> None:
    try:
        page.wait_for_function(
            "s => document.activeElement && document.activeElement.matches(s)",
            arg=selector,
            timeout=5000,
        )
    except Exception as error:
        raise AssertionError(f"focus is on {focused(page)}, not {selector}") from error
    assert ring(page), f"{selector} has the focus but shows no ring"


# Counts the frames in which nothing has the focus (it fell to the page's body).
WATCH_FOCUS = """() => { window.__lost = 0; const until = performance.now() + 8000;
  const look = () => { if (document.activeElement === document.body) window.__lost++;
                       if (performance.now() < until) requestAnimationFrame(look); };
  look(); }"""


def tab_to(page: Any, selector: str, limit: int = 60) -> int:
    """Press Tab until selector has the focus; the number of presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return presses
    raise AssertionError(f"Tab never reached {selector}")


# The live regions' announcements: a region's text after each batch of changes, when it is
# new and not empty (what a screen reader says). aria-live, the roles that imply it and
# <output> make a region; aria-live="off" and hidden regions say nothing.
LISTEN = """() => {
  window.__said = [];
  if (window.__listening) return;
  window.__listening = true;
  const region = (node) => {
    for (let e = node; e && e.nodeType === 1; e = e.parentElement) {
      const live = e.getAttribute('aria-live');
      if (live) return live === 'off' ? null : e;
      const role = e.getAttribute('role') || '';
      if (/^(status|alert|log)$/.test(role) || e.tagName === 'OUTPUT') return e;
    }
    return null;
  };
  const last = new WeakMap();
  new MutationObserver((records) => {
    const touched = new Set();
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const found = node && region(node);
      if (found) touched.add(found);
    }
    for (const e of touched) {
      const text = e.textContent.replace(/\\s+/g, ' ').trim();
      const shown = e.isConnected && !e.closest('[hidden]')
        && getComputedStyle(e).visibility !== 'hidden';
      if (text && shown && text !== last.get(e)) window.__said.push(text);
      last.set(e, text);
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def said(page: Any) -> list[str]:
    texts: list[str] = page.evaluate("window.__said.splice(0)")
    return texts


def natural(cards: list[str]) -> int:
    """The score of a hand's first two cards ("Ah", "Td", "9s")."""

    def value(card: str) -> int:
        rank = card[:-1].upper()
        return 1 if rank == "A" else 0 if rank in ("T", "10", "J", "Q", "K") else int(rank)

    return sum(value(card) for card in cards[:2]) % 10


def expected_announcement(round_: dict[str, Any], cat: dict[str, str], money: Any) -> str:
    """The sentence a round's end says, built from the catalog as the page builds it."""

    def fill(key: str, **params: Any) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: str(params[m[1]]), cat[key])

    parts = []
    best = max(natural(round_["player"]["cards"]), natural(round_["banker"]["cards"]))
    if best >= 8:
        parts.append(fill("result.natural", n=best) + ".")
    py, by = round_["player"]["scores"][1], round_["banker"]["scores"][1]
    if round_["winner"] == "tie":
        parts.append(fill("announce.tie", score=py))
    else:
        a, b = (py, by) if round_["winner"] == "player" else (by, py)
        parts.append(fill("announce.wins", winner=cat[f"bet.{round_['winner']}"], a=a, b=b))
    for name, bet in round_["bets"].items():
        net = bet["returned"] - bet["stake"]
        key = {"win": "announce.bet_won", "lose": "announce.bet_lost"}.get(
            bet["result"], f"announce.bet_{bet['result']}"
        )
        parts.append(fill(key, bet=cat[f"bet.{name}"], net=money(net)))
    return " ".join(parts)


def signed_usd(cents: int) -> str:
    if cents > 0:
        return f"+{usd(cents)}"
    if cents < 0:
        return f"\u2212{usd(-cents)}"
    return usd(0)


# ---- axe on every page and state ---------------------------------------------------------


def test_axe_finds_nothing_on_the_pages_and_the_tables(
    make_player: Any, tables: list[dict[str, Any]], axe_source: Path, base_url: str
) -> None:
    player: Player = make_player(bypass_csp=True, viewport={"width": 1280, "height": 720})
    page = player.page
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    found: list[str] = []
    player.goto()
    audit(page, axe_source, "lobby", found)
    table = fresh_table(tables)
    open_table(player, table)
    audit(page, axe_source, "table before a round", found)
    place(player, 500, "player")
    audit(page, axe_source, "table with bets", found)
    page.click('[data-action="deal"]')
    player.wait_round()
    audit(page, axe_source, "table after a round", found)
    audit(page, axe_source, "table after a round, 200% zoom", found, [(640, 360)])
    # Squeeze on: the face-down cards are buttons.
    page.click('[data-action="new"]')
    page.click('[data-option="squeeze"]')
    place(player, 500, "banker")
    page.click('[data-action="deal"]')
    page.wait_for_function("document.querySelectorAll('.card.squeeze.down').length === 4")
    audit(page, axe_source, "squeeze", found)
    page.click('[data-action="reveal-all"]')
    page.wait_for_timeout(400)
    if page.locator("[data-squeeze]").count():
        page.click('[data-action="reveal-all"]')
    player.wait_round()
    page.click('[data-option="squeeze"]')
    deluxe = next(t for t in tables if t["id"] == "deluxe")
    open_table(player, deluxe)
    audit(page, axe_source, "Deluxe", found)
    cut = next(t for t in tables if t["rules"]["shuffle"] == "cut-shoe")
    open_table(player, cut)
    page.wait_for_selector(".cut-panel")
    audit(page, axe_source, "the cut", found)
    player.goto("history")
    rid = last_round(player)["id"]
    page.click(f'[data-open="{rid}"]')
    page.wait_for_selector("#round-detail")
    audit(page, axe_source, "history", found)
    for route, ready in (
        (f"rules/{table['id']}", "#banker-tableau"),
        ("rules/banked-i", "[data-banked-help]"),
        ("cashier", "[data-form=deposit]"),
        ("responsible", "main h1"),
    ):
        player.goto(route)
        page.wait_for_selector(ready)
        audit(page, axe_source, route, found)
    page.goto(f"{base_url}/verify.html")
    page.wait_for_load_state("networkidle")
    audit(page, axe_source, "verifier", found)
    assert found == [], "\n".join(found)
    assert player.errors == [] and console == []


def test_axe_finds_nothing_at_a_player_banked_seat_in_any_phase(
    make_player: Any, axe_source: Path
) -> None:
    banker: Player = make_player(bypass_csp=True)
    player: Player = make_player(bypass_csp=True)
    found: list[str] = []
    bpage, ppage = banker.page, player.page
    banker.goto()
    bpage.click('[data-join-table="banked-i:banker"]')
    bpage.wait_for_selector('.seat-view[data-role="banker"][data-phase="waiting"]')
    seat = str(bpage.get_attribute(".seat-view", "data-seat"))
    TAKEN.append((banker, seat))
    audit(bpage, axe_source, "banker waiting", found)
    player.goto()
    ppage.wait_for_selector(f'[data-seat-row="{seat}"][data-needs="player"]')
    audit(ppage, axe_source, "lobby with seats", found)
    ppage.click(f'[data-seat-row="{seat}"] [data-join="player"]')
    TAKEN.append((player, seat))
    for page, who in ((bpage, "banker"), (ppage, "player")):
        page.wait_for_selector('.seat-view[data-phase="approval"]')
        audit(page, axe_source, f"{who} at approval", found)
    bpage.click('[data-action="approve"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="player"]')
    bpage.wait_for_function(
        "document.querySelector('[data-spot=player] .stack-total').textContent !== ''"
    )
    for page, who in ((bpage, "banker"), (ppage, "player")):
        audit(page, axe_source, f"{who} at betting", found)
    ppage.click('[data-action="deal"]')
    for page, who in ((bpage, "banker"), (ppage, "player")):
        page.wait_for_selector(".seat-view[data-round]")
        page.wait_for_selector("[data-banner]:not([hidden])")
        audit(page, axe_source, f"{who} after the round", found)
    assert found == [], "\n".join(found)
    assert banker.errors == [] and player.errors == []


def test_axe_finds_nothing_on_the_verifier_empty_and_with_a_long_export(
    make_player: Any, axe_source: Path, base_url: str, tmp_path: Path
) -> None:
    # Unsigned, so that every round differs (a signature missing): the report's lines are
    # wider than its box, and the verdict, the findings and the rounds all show.
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(history("mini", 30)))
    found: list[str] = []
    for locale, lang in (("en-US", "en"), ("de-DE", "de")):
        player: Player = make_player(login=False, locale=locale, bypass_csp=True,
                                     viewport={"width": 1280, "height": 720})  # fmt: skip
        page = player.page
        page.goto(f"{base_url}/verify.html")
        page.wait_for_selector("body[data-ready='true'][data-keys='fetched']")
        assert page.evaluate("document.documentElement.lang") == lang
        audit(page, axe_source, f"verifier ({lang})", found)
        page.set_viewport_size({"width": 1280, "height": 720})
        page.set_input_files("#export-file", str(path))
        page.wait_for_selector("body[data-export-verified='true']")
        report = page.locator("#export-text")
        assert report.evaluate("e => e.scrollWidth > e.clientWidth"), "the report fits its box"
        audit(page, axe_source, f"verifier with an export ({lang})", found)
        # The report scrolls from the keyboard: it takes the focus, and the arrows move it.
        report.focus()
        assert ring(page)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("document.getElementById('export-text').scrollLeft > 0")
        assert player.errors == []
    assert found == [], "\n".join(found)


def test_the_verifier_says_its_verdict_and_counts_and_leaves_the_report_to_be_read(
    make_player: Any, base_url: str, tmp_path: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(history("mini", 30)))
    player: Player = make_player(login=False)
    page = player.page
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true'][data-keys='fetched']")
    page.evaluate(LISTEN)
    page.set_input_files("#export-file", str(path))
    page.wait_for_selector("body[data-export-verified='true']")
    page.wait_for_function("window.__said.length > 0")
    verdict = catalogs["en"]["verify.export_bad"]
    counts = str(page.text_content("#export-summary"))
    assert counts.startswith("30 rounds: 0 verified") and "30 differ" in counts
    assert said(page) == [f"{verdict} {counts}"]
    # The report, the findings and the rounds are read where they are: not live.
    live = "[aria-live]:not([aria-live='off']), [role=status], [role=alert], [role=log]"
    for part in ("#export-text", "#export-rounds", "#export-findings", "#export-verdict"):
        assert page.locator(part).evaluate("(e, s) => e.closest(s) === null", live), part
    # One shuffle: its commitment's check and the coup's winner, not the shoe.
    page.fill("#server_seed", "00" * 32)
    page.fill("#client_seed", "tie")
    page.fill("#decks", "1")
    page.click("#verify-button")
    page.wait_for_selector("body[data-verified='true']")
    page.wait_for_function("window.__said.length > 0")
    shown = f"{page.text_content('#commitment-check')} {page.text_content('#coup-winner')}"
    assert said(page) == [shown]
    assert player.errors == []


# ---- the keyboard ------------------------------------------------------------------------


def test_the_skip_link_focuses_the_game_and_keeps_the_table(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    page.focus("body")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.skip')"), focused(page)
    assert ring(page)
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert page.evaluate("location.hash") == f"#/table/{table['id']}"
    assert page.locator(f'.table-view[data-table="{table["id"]}"]').count() == 1
    assert page.evaluate("document.activeElement.id") == "main"
    # The next Tab goes on into the game, not back to the header.
    page.keyboard.press("Tab")
    assert page.evaluate("document.querySelector('#main').contains(document.activeElement)")


def test_a_round_is_played_with_keys_only_and_the_focus_stays_on_the_next_action(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    # The chip rack comes before the spots, and DEAL (on with a bet) after them.
    place(player, 500, "banker")
    page.focus(".skip")
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        stops.append(focused(page))
        if "[action=deal]" in stops[-1]:
            break
    assert any("[chip=" in s for s in stops), stops
    chip = next(i for i, s in enumerate(stops) if "[chip=" in s)
    spots = [i for i, s in enumerate(stops) if "[spot=" in s]
    deal = next(i for i, s in enumerate(stops) if "[action=deal]" in s)
    assert chip < min(spots) and max(spots) < deal, stops
    page.click('[data-action="clear"]')
    # Choose the $5 chip with the arrows, a chip on PLAYER, DEAL.
    page.focus(f'[data-chip="{table["chips"][0]}"]')
    for _ in range(table["chips"].index(500)):
        page.keyboard.press("ArrowRight")
    wait_focus(page, '[data-chip="500"][aria-checked="true"]')
    page.keyboard.press("Tab")
    wait_focus(page, "[data-spot]")
    while not page.evaluate("document.activeElement.dataset.spot === 'player'"):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert player.meter("bet") == usd(500)
    wait_focus(page, '[data-spot="player"]')
    tab_to(page, '[data-action="deal"]')
    assert ring(page)
    page.evaluate(WATCH_FOCUS)
    page.keyboard.press("Enter")
    player.wait_round()
    assert page.evaluate("window.__lost") == 0, "the focus fell to the page during the deal"
    # The round is shown: the focus is on NEW GAME, with its ring.
    wait_focus(page, '[data-action="new"]')
    page.keyboard.press("Enter")
    page.wait_for_selector('.table-view[data-phase="betting"]')
    # NEW GAME is off now: the focus goes to the chip chosen, the next thing to do.
    wait_focus(page, '[data-chip="500"]')

    # Shortcuts: each button says its key (aria-keyshortcuts), and the keys do it.
    keys = {
        a: str(page.get_attribute(f'[data-action="{a}"]', "aria-keyshortcuts")).split()[0]
        for a in ("deal", "rebet", "undo", "clear", "double", "new")
    }
    assert all(key != "None" for key in keys.values()), keys
    assert page.get_attribute('[data-spot="banker"]', "aria-keyshortcuts") == "B"
    page.keyboard.press("2")  # the rack's second chip
    assert page.get_attribute(f'[data-chip="{table["chips"][1]}"]', "aria-checked") == "true"
    page.keyboard.press(str(table["chips"].index(500) + 1))
    page.keyboard.press("b")
    page.keyboard.press("b")
    assert player.meter("bet") == usd(1000)
    page.keyboard.press(str(keys["undo"]).lower())
    assert player.meter("bet") == usd(500)
    page.keyboard.press(str(keys["deal"]).lower())
    player.wait_round()
    page.keyboard.press(str(keys["new"]).lower())
    page.wait_for_selector('.table-view[data-phase="betting"]')
    page.keyboard.press(str(keys["rebet"]).lower())
    assert player.meter("bet") == usd(500)
    # Focus on DEAL, DEAL by Enter: the focus is never lost to the page through the deal.
    page.focus('[data-action="deal"]')
    page.evaluate(WATCH_FOCUS)
    page.keyboard.press("Enter")
    player.wait_round()
    wait_focus(page, '[data-action="new"]')
    assert page.evaluate("window.__lost") == 0, "the focus fell to the page during the deal"

    # The help page lists the keys in the page's language, and turns them off (WCAG 2.1.4).
    player.goto(f"rules/{table['id']}")
    help_text = str(page.text_content("[data-shortcuts]"))
    assert catalogs["en"]["btn.deal"] in help_text and str(keys["deal"]) in help_text
    page.click("#shortcuts-off")
    open_table(player, table)
    page.wait_for_selector('.table-view[data-phase="result"]')  # the last round, shown again
    page.focus("body")
    page.keyboard.press("b")
    page.wait_for_timeout(100)
    assert page.get_attribute(".table-view", "data-phase") == "result"
    assert page.get_attribute('[data-spot="banker"]', "aria-keyshortcuts") is None
    player.goto(f"rules/{table['id']}")
    page.click("#shortcuts-off")
    assert player.errors == []


def test_a_squeeze_is_turned_card_by_card_with_the_keyboard(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player(reduced_motion="no-preference")
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    page.click('[data-option="squeeze"]')
    place(player, 500, "player")
    page.focus('[data-action="deal"]')
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.card.squeeze.down').length === 4")
    round_ = last_round(player)
    cards = len(round_["player"]["cards"]) + len(round_["banker"]["cards"])
    for turned in range(cards):
        # The focus is on a face-down card; Enter turns it and the focus goes on.
        wait_focus(page, ".card.squeeze.down")
        page.keyboard.press("Enter")
        page.wait_for_function(
            "n => document.querySelectorAll('.hands .card:not(.down)').length === n",
            arg=turned + 1,
        )
    player.wait_round()
    assert page.locator(".card.down").count() == 0
    wait_focus(page, '[data-action="new"]')
    assert player.errors == []


def seat_up(make_banker: Any, make_player: Any) -> tuple[Player, Player, str]:
    """A banker and a player at a seat of banked-i, at approval."""
    banker: Player = make_banker()
    player: Player = make_player()
    banker.goto()
    banker.page.click('[data-join-table="banked-i:banker"]')
    banker.page.wait_for_selector('.seat-view[data-role="banker"]')
    seat = str(banker.page.get_attribute(".seat-view", "data-seat"))
    TAKEN.append((banker, seat))
    player.goto()
    player.page.wait_for_selector(f'[data-seat-row="{seat}"][data-needs="player"]')
    player.page.click(f'[data-seat-row="{seat}"] [data-join="player"]')
    TAKEN.append((player, seat))
    for who in (banker, player):
        who.page.wait_for_selector('.seat-view[data-phase="approval"]')
    return banker, player, seat


def test_a_seat_round_is_played_with_keys_only(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    banker, player, _ = seat_up(make_player, make_player)
    bpage, ppage = banker.page, player.page
    # The banker: Tab to APPROVE, Enter; the focus stays on it (off until the next round).
    bpage.focus("body")
    tab_to(bpage, '[data-action="approve"]')
    assert ring(bpage)
    bpage.keyboard.press("Enter")
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    wait_focus(bpage, '[data-action="approve"]')
    # The player: the rack before the spots; $5 on BANKER; DEAL after the spots.
    ppage.focus("body")
    tab_to(ppage, "[data-chip]")
    ppage.keyboard.press("ArrowRight")
    wait_focus(ppage, '[data-chip="500"][aria-checked="true"]')
    ppage.keyboard.press("Tab")
    wait_focus(ppage, "[data-spot]")
    while not ppage.evaluate("document.activeElement.dataset.spot === 'banker'"):
        ppage.keyboard.press("Tab")
    ppage.keyboard.press("Enter")
    wait_focus(ppage, '[data-spot="banker"]')
    tab_to(ppage, '[data-action="deal"]')
    for page in (bpage, ppage):
        page.evaluate(LISTEN)
    ppage.keyboard.press("Enter")
    for page in (bpage, ppage):
        page.wait_for_selector(".seat-view[data-round]")
        page.wait_for_selector("[data-banner]:not([hidden])")
    # One announcement each, the banner's; the player's focus on the chip, the next step.
    ppage.wait_for_timeout(300)
    round_ = player.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    theirs = banker.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    assert said(ppage) == [expected_announcement(round_, catalogs["en"], signed_usd)]
    head = expected_announcement({**round_, "bets": {}}, catalogs["en"], signed_usd)
    mine = catalogs["en"]["announce.banker_net"].replace(
        "{net}", signed_usd(theirs["banked"]["net"])
    )
    assert said(bpage) == [f"{head} {mine}"]
    wait_focus(ppage, '[data-chip="500"]')
    # The next round: the banker's APPROVE is on again, with the focus; A approves too.
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    wait_focus(bpage, '[data-action="approve"]')
    assert bpage.get_attribute('[data-action="approve"]', "aria-keyshortcuts") == "A"
    bpage.keyboard.press("a")
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    assert banker.errors == [] and player.errors == []


# ---- what is announced -------------------------------------------------------------------


def test_a_round_makes_one_announcement_the_banners_in_the_pages_language(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    page.evaluate(LISTEN)
    place(player, 500, "player")
    assert said(page) == []
    page.click('[data-action="deal"]')
    player.wait_round()
    page.wait_for_timeout(300)
    round_ = last_round(player)
    assert said(page) == [expected_announcement(round_, catalogs["en"], signed_usd)]
    # In German: the same sentence from the German catalog.
    page.select_option("#lang", "de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    page.click('[data-action="new"]')
    said(page)
    page.click('[data-action="rebet-deal"]')
    player.wait_round()
    page.wait_for_timeout(300)
    round_ = last_round(player)

    def euro(cents: int) -> str:
        text = f"{abs(cents) / 100:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".")
        sign = "+" if cents > 0 else "\u2212" if cents < 0 else ""
        return f"{sign}{text}\xa0$"

    assert said(page) == [" ".join(expected_announcement(round_, catalogs["de"], euro).split())]
    # A bet the table refuses is announced too (and shown), as it is placed.
    page.click('[data-action="new"]')
    page.evaluate(LISTEN)
    place(player, min(table["chips"]), "player")
    message = " ".join(str(page.text_content("#table-message")).split())
    assert message and said(page) == [message]
    assert player.errors == []


def test_the_catalogs_have_the_announcements_and_the_bets_names(
    catalogs: dict[str, dict[str, str]], tables: list[dict[str, Any]]
) -> None:
    bets = {name for table in tables for name in table.get("bets", {})}
    keys = {f"bet.{name}" for name in bets} | {
        "announce.wins", "announce.tie", "announce.bet_won", "announce.bet_lost",
        "announce.bet_push", "announce.banker_net", "announce.time_left_player",
        "announce.time_left_banker", "banked.help_time_why", "help.shortcuts",
    }  # fmt: skip
    for lang, cat in catalogs.items():
        assert keys <= set(cat), (lang, keys - set(cat))


# ---- contrast, zoom ----------------------------------------------------------------------


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB rows of a PNG (8-bit RGB or RGBA, as Chromium writes them)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, head = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            head = body
        elif kind == b"IDAT":
            chunks += body
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", head[:10])
    assert depth == 8 and colour in (2, 6)
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(chunks)
    rows: list[bytes] = []
    previous = bytearray(width * step)
    stride = width * step
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + best) & 255
        previous = line
        rows.append(bytes(line[j] for i in range(0, stride, step) for j in range(i, i + 3)))
    return width, height, rows


def luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def worst_contrast(page: Any, selector: str) -> list[tuple[str, float, float]]:
    """For each element: its text, the lowest contrast of its text colour against the
    pixels behind its text (screenshot with the text made transparent), and the ratio it
    needs (3 for large text, else 4.5)."""
    out: list[tuple[str, float, float]] = []
    for index in range(page.locator(selector).count()):
        element = page.locator(selector).nth(index)
        info = element.evaluate(
            """e => { const s = getComputedStyle(e); const range = document.createRange();
                range.selectNodeContents(e); const r = range.getBoundingClientRect();
                let opacity = 1; for (let a = e; a; a = a.parentElement)
                  opacity *= parseFloat(getComputedStyle(a).opacity);
                return {text: e.textContent.trim(), color: s.color, size: parseFloat(s.fontSize),
                        weight: parseInt(s.fontWeight), opacity,
                        box: [r.left, r.top, r.width, r.height],
                        shown: s.visibility !== 'hidden' && r.width > 0 && r.height > 0}; }"""
        )
        if not info["shown"] or not info["text"]:
            continue
        numbers = [float(v) for v in re.findall(r"[\d.]+", info["color"])]
        rgb, alpha = numbers[:3], (numbers[3] if len(numbers) > 3 else 1.0) * info["opacity"]
        element.evaluate("e => e.setAttribute('data-contrast-probe', '')")
        page.add_style_tag(
            content="[data-contrast-probe], [data-contrast-probe] * "
            "{ color: transparent !important; text-shadow: none !important; }"
        )
        left, top, width, height = info["box"]
        shot = page.screenshot(
            clip={"x": max(0, left), "y": max(0, top), "width": width, "height": height},
            animations="disabled",
        )
        page.evaluate(
            """() => { const probe = document.querySelector('[data-contrast-probe]');
                probe.removeAttribute('data-contrast-probe');
                document.head.lastElementChild.remove(); }"""
        )
        _, _, rows = png_pixels(shot)
        worst = 21.0
        for row in rows:
            for i in range(0, len(row), 3):
                behind = (row[i], row[i + 1], row[i + 2])
                text = tuple(alpha * c + (1 - alpha) * b for c, b in zip(rgb, behind, strict=True))
                lighter, darker = sorted((luminance(text), luminance(behind)), reverse=True)
                worst = min(worst, (lighter + 0.05) / (darker + 0.05))
        large = info["size"] >= 24 or (info["size"] >= 18.66 and info["weight"] >= 700)
        out.append((info["text"], round(worst, 2), 3.0 if large else 4.5))
    return out


def test_the_texts_on_the_felt_and_a_disabled_deal_have_enough_contrast(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player(viewport={"width": 1280, "height": 720})
    page = player.page
    open_table(player, fresh_table(tables))
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    low = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        for selector in (
            ".hand-title", ".score", ".spot-name", ".spot-pays", ".stack-total", ".bet-marker",
            ".hand-marker", ".banner-head", ".banner-net", ".banner-detail", ".felt-rule",
            ".ctl:disabled", ".meter-label",
        ):  # fmt: skip
            for text, ratio, needed in worst_contrast(page, selector):
                if ratio < needed:
                    low.append(f"{selector} {text!r} {ratio}:1 at {width}x{height}")
    assert low == [], "\n".join(low)


def test_the_table_at_200_percent_zoom_scrolls_rather_than_shrinks(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    # 1280x720 at 200%: 640x360 CSS pixels, two device pixels each.
    player: Player = make_player(viewport={"width": 1280, "height": 720}, device_scale_factor=2)
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    texts = (
        ".table-name h1", ".spot-name", ".spot-pays", ".ctl", ".meter-label", ".meter-value",
        ".hand-title", "#table-message",
    )  # fmt: skip

    def sizes() -> dict[str, float]:
        return {
            s: float(page.eval_on_selector(s, "e => parseFloat(getComputedStyle(e).fontSize)"))
            for s in texts
        }

    # A chip below the minimum: said in the message line (DEAL is off until it is right).
    place(player, min(table["chips"]), "player")
    desktop = sizes()
    page.set_viewport_size({"width": 640, "height": 360})
    page.wait_for_timeout(100)
    # Said again at 200%: the message line comes into view.
    page.click('[data-action="clear"]')
    place(player, min(table["chips"]), "player")
    zoomed = sizes()
    smaller = {s: (zoomed[s], desktop[s]) for s in texts if zoomed[s] < desktop[s] - 0.5}
    assert smaller == {}, f"texts smaller at 200% than at 100% (px): {smaller}"
    page.screenshot(path=str(screenshots / "table-zoom-200-refusal.jpg"))
    # The refusal is in view, whole; the page scrolls down, never sideways.
    box = page.locator("#table-message").bounding_box()
    assert box is not None and box["height"] >= zoomed["#table-message"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= 360.5, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 640
    name = page.locator(".table-name h1")
    assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), "the table's name is cut"
    for link in ('.table-head a[href="#/"]', '.table-head a[href="#/history"]'):
        link_box = page.locator(link).bounding_box()
        assert link_box is not None and link_box["width"] >= 24, link
    page.click('[data-action="clear"]')
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    banner = page.locator("[data-banner]").bounding_box()
    assert banner is not None
    # The roads are drawn again after the round (read from the server): their names once
    # they are on the page, measured together.
    shown = "[...document.querySelectorAll('.road-title')]"
    page.wait_for_function(f"{shown}.length > 0 && {shown}.every(e => e.getClientRects().length)")
    titles = page.evaluate(
        f"{shown}.map(e => e.getBoundingClientRect())"
        ".map(r => ({x: r.x, y: r.y, width: r.width, height: r.height}))"
    )
    for t in titles:
        apart = (
            banner["x"] >= t["x"] + t["width"]
            or t["x"] >= banner["x"] + banner["width"]
            or banner["y"] >= t["y"] + t["height"]
            or t["y"] >= banner["y"] + banner["height"]
        )
        assert apart, "the banner covers a road's name"
    assert page.evaluate("document.documentElement.scrollWidth") <= 640
    page.screenshot(path=str(screenshots / "table-zoom-200.jpg"), full_page=True)
    assert player.errors == []


# ---- the seat's time ---------------------------------------------------------------------


@pytest.fixture
def clocked(make_player: Any) -> Iterator[Any]:
    """make_player whose page's clock the test moves (Playwright's clock)."""

    def make(**options: Any) -> Player:
        who: Player = make_player(own_context=True, **options)
        who.page.clock.install()
        return who

    yield make


def test_a_seat_warns_before_the_time_runs_out_and_the_help_says_why_it_cannot_wait(
    make_player: Any, clocked: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    banker, player, _ = seat_up(clocked, make_player)
    bpage, ppage = banker.page, player.page
    for page in (bpage, ppage):
        page.evaluate(LISTEN)
    # The seat's state with the approval's deadline has reached the banker's page (its timer
    # shows) before the page's clock moves: a state still on its way would set the deadline
    # after the move, and the warning would be 25 s of real time away.
    bpage.wait_for_function(
        "() => { const box = document.querySelector('[data-timer]');"
        " return box && !box.hidden && Number(box.dataset.seconds) > 26; }"
    )
    # 35 s to approve: 26 s later (the page's clock), at most 9 s are left; the page's timer
    # ticks through the tenth second on the way.
    bpage.clock.run_for(26_000)
    warning = catalogs["en"]["announce.time_left_banker"].replace("{seconds}", "10")
    bpage.wait_for_function("t => window.__said.includes(t)", arg=warning, timeout=5000)
    assert said(bpage).count(warning) == 1
    bpage.clock.run_for(2_000)
    assert warning not in said(bpage)
    # The player, whose turn it is not, hears nothing of it.
    assert said(ppage) == []
    player.goto("rules/banked-i")
    help_text = str(ppage.text_content("[data-banked-help]"))
    assert catalogs["en"]["banked.help_time_why"] in help_text


# ---- a shared table: what it says, its keys, axe ------------------------------------------


def fill_in(text: str, **params: Any) -> str:
    """A catalog's text with its {placeholders} filled in."""
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m[1]]), text)


def press(page: Any, key: str, pressed: set[str]) -> None:
    """Press a key as aria-keyshortcuts names it ("B", "3", "Shift+R", "Escape")."""
    page.keyboard.press(key.lower() if len(key) == 1 else key)
    pressed.add(key)


def advertised(page: Any, view: str) -> set[str]:
    """Every key the controls of a view that show promise (aria-keyshortcuts)."""
    keys: list[str] = page.eval_on_selector_all(
        f"{view} [aria-keyshortcuts]",
        "els => els.filter(e => !e.closest('[hidden]'))"
        ".flatMap(e => e.getAttribute('aria-keyshortcuts').split(' '))",
    )
    return set(keys)


def bet_is(page: Any, cents: int) -> None:
    """Wait until the BET display shows this amount."""
    page.wait_for_function(
        "t => document.querySelector('[data-meter=bet]').textContent.trim() === t", arg=usd(cents)
    )


def chip_is(page: Any, chip: int) -> None:
    assert page.get_attribute(f'[data-chip="{chip}"]', "aria-checked") == "true", chip


def new_window(page: Any, after: str | None = None) -> str:
    """Wait for a shared table's betting window (another coup than ``after``); its coup."""
    page.wait_for_function(
        "c => { const v = document.querySelector('.shared-view');"
        " return v.dataset.phase === 'betting' && v.dataset.coup !== c; }",
        arg=after or "",
        timeout=20_000,
    )
    return str(page.get_attribute(".shared-view", "data-coup"))


def test_a_shared_coup_played_by_keys_says_each_event_once_and_every_key_does_its_action(
    make_player: Any, shared_url: str, catalogs: dict[str, dict[str, str]]
) -> None:
    en = catalogs["en"]
    player: Player = make_player(at=shared_url)
    page = player.page
    page.add_init_script(ANNOUNCED)
    player.goto("table/keys")
    # A table nobody watched: its first window opens, whole, for this page.
    coup = new_window(page)
    pressed: set[str] = set()
    # The keys alone: the $5 chip on BANKER, taken; the $1 chip on TIE, refused (below the
    # table's minimum); a key after the close.
    press(page, "2", pressed)
    press(page, "B", pressed)
    bet_is(page, 500)
    press(page, "1", pressed)
    press(page, "T", pressed)
    page.wait_for_selector('#table-message[data-kind="error"]')
    refusal = " ".join(str(page.text_content("#table-message")).split())
    page.wait_for_function(
        "() => document.querySelector('.shared-view').dataset.phase !== 'betting'",
        timeout=15_000,
    )
    press(page, "B", pressed)
    page.wait_for_selector("[data-banner]:not([hidden]) [data-banner-net]:not(:empty)")
    texts = announced(page)
    round_ = last_round(player)
    assert round_["shared"]["coup"] == int(coup)
    result = expected_announcement(round_, en, signed_usd)
    warning = re.compile(re.escape(en["announce.time_left_shared"]).replace(r"\{seconds\}", r"\d"))
    close = texts.index(en["shared.no_more_bets"]) if en["shared.no_more_bets"] in texts else 0
    counts = {
        "the window's opening": texts.count(en["shared.place_bets"]),
        "the warning before the close": len([t for t in texts if warning.fullmatch(t)]),
        "the bet taken": texts.count(fill_in(en["shared.placed"], amount=usd(500))),
        "the refusal": texts.count(refusal),
        "the close": texts.count(en["shared.no_more_bets"]),
        "a key after the close": texts[close:].count(en["shared.wait_next"]),
        "the result": texts.count(result),
    }
    assert counts == dict.fromkeys(counts, 1), texts
    # Nothing of that coup is said again later: the next window says its opening.
    coup = new_window(page, coup)
    later = announced(page)
    again = [t for t in later if t in texts and t != en["shared.place_bets"]]
    assert later.count(en["shared.place_bets"]) == 1 and again == [], later

    # Every key the table promises does what its control does, in the next window.
    for index, chip in enumerate([100, 500, 2500, 10000]):
        press(page, str(index + 1), pressed)
        chip_is(page, chip)
    press(page, "2", pressed)
    for key, cents in (("R", 500), ("X", 1000), ("U", 500), ("P", 1000), ("T", 1500), ("C", 0)):
        press(page, key, pressed)
        bet_is(page, cents)
    assert page.get_attribute(".shared-view", "data-coup") == coup
    assert announced(page).count(en["shared.withdrawn"]) == 1
    assert advertised(page, ".shared-view") == pressed
    assert player.errors == []


def test_every_key_the_house_table_promises_does_its_action(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    page.focus("body")
    pressed: set[str] = set()
    for index, chip in enumerate(table["chips"][:9]):
        press(page, str(index + 1), pressed)
        chip_is(page, chip)
    press(page, str(table["chips"].index(500) + 1), pressed)
    for spot, cents in (("P", 500), ("B", 1000), ("T", 1500)):
        press(page, spot, pressed)
        bet_is(page, cents)
    for key, cents in (("U", 1000), ("X", 2000), ("C", 0), ("P", 500)):
        press(page, key, pressed)
        bet_is(page, cents)

    def dealt(key: str, cents: int) -> None:
        before = page.get_attribute(".table-view", "data-round") or ""
        press(page, key, pressed)
        page.wait_for_function(
            "id => { const v = document.querySelector('.table-view');"
            " return v.dataset.phase === 'result' && v.dataset.busy === 'false'"
            " && (v.dataset.round || '') !== id; }",
            arg=before,
        )
        assert {k: b["stake"] for k, b in last_round(player)["bets"].items()} == {"player": cents}

    def cleared(key: str) -> None:
        press(page, key, pressed)
        page.wait_for_selector('.table-view[data-phase="betting"]')
        bet_is(page, 0)

    dealt("D", 500)
    cleared("N")
    for key, cents in (("R", 500), ("C", 0)):
        press(page, key, pressed)
        bet_is(page, cents)
    dealt("Shift+X", 1000)  # the last bets doubled, dealt
    cleared("Escape")
    dealt("Shift+R", 1000)  # the last bets again, dealt
    assert advertised(page, ".table-view") == pressed
    assert player.errors == []


def test_every_key_a_seat_promises_does_its_action_in_either_role(make_player: Any) -> None:
    banker, player, _ = seat_up(make_player, make_player)
    bpage, ppage = banker.page, player.page
    on_banker: set[str] = set()
    on_player: set[str] = set()
    for page in (bpage, ppage):
        page.focus("body")
    # The banker's one key (their spots promise none): APPROVE.
    press(bpage, "A", on_banker)
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    chips = [100, 500, 2500, 10000]
    for index, chip in enumerate(chips):
        press(ppage, str(index + 1), on_player)
        chip_is(ppage, chip)
    press(ppage, "2", on_player)
    for key, cents in (("P", 500), ("B", 1000), ("T", 1500), ("U", 1000), ("C", 0), ("B", 500)):
        press(ppage, key, on_player)
        bet_is(ppage, cents)
    press(ppage, "D", on_player)
    ppage.wait_for_selector(".seat-view[data-round]")
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    press(bpage, "A", on_banker)
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    press(ppage, "R", on_player)
    bet_is(ppage, 500)
    assert advertised(bpage, ".seat-view") == on_banker
    assert advertised(ppage, ".seat-view") == on_player
    assert banker.errors == [] and player.errors == []


def test_axe_finds_nothing_at_a_shared_table_in_english_and_german(
    make_player: Any, shared_url: str, axe_source: Path
) -> None:
    player: Player = make_player(at=shared_url, bypass_csp=True)
    page = player.page
    held = HeldSocket(page)
    found: list[str] = []
    player.goto("table/axe")
    new_window(page)
    place(player, 500, "banker")
    bet_is(page, 500)
    # The page stays in each phase while axe looks: the table's messages wait meanwhile.
    held.hold()
    for lang in ("en", "de"):
        page.select_option("#lang", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        audit(page, axe_source, f"shared table betting ({lang})", found)
    held.release()
    page.wait_for_selector("[data-banner]:not([hidden]) [data-banner-net]:not(:empty)")
    held.hold()
    for lang in ("de", "en"):
        page.select_option("#lang", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        audit(page, axe_source, f"shared table result ({lang})", found)
    held.release()
    assert found == [], "\n".join(found)
    assert player.errors == []


def test_axe_finds_nothing_at_a_seat_through_a_round_in_german(
    make_player: Any, axe_source: Path
) -> None:
    def german() -> Player:
        who: Player = make_player(bypass_csp=True, locale="de-DE")
        return who

    banker, player, _ = seat_up(german, german)
    found: list[str] = []
    pages = {"banker": banker.page, "player": player.page}
    for who, page in pages.items():
        assert page.evaluate("document.documentElement.lang") == "de"
        audit(page, axe_source, f"{who} at approval", found)
    pages["banker"].click('[data-action="approve"]')
    pages["player"].wait_for_selector('.seat-view[data-phase="betting"]')
    place(player, 500, "player")
    pages["banker"].wait_for_function(
        "document.querySelector('[data-spot=player] .stack-total').textContent !== ''"
    )
    for who, page in pages.items():
        audit(page, axe_source, f"{who} at betting", found)
    pages["player"].click('[data-action="deal"]')
    for who, page in pages.items():
        page.wait_for_selector(".seat-view[data-round]")
        page.wait_for_selector("[data-banner]:not([hidden])")
        audit(page, axe_source, f"{who} after the round", found)
    assert found == [], "\n".join(found)
    assert banker.errors == [] and player.errors == []


# ---- a new view: its heading, its name; sitting down ------------------------------------


def heading_focused(page: Any, selector: str) -> None:
    page.wait_for_function(
        "s => document.activeElement && document.activeElement.matches(s)", arg=selector
    )


def test_a_new_view_takes_the_focus_to_its_heading_and_is_named_in_the_title(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player()
    page = player.page
    table = fresh_table(tables)
    player.goto()
    for lang in ("en", "de"):
        cat = catalogs[lang]
        page.select_option("#lang", lang)
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        assert page.title() == f"{cat['lobby.title']} · Baccarat"
        # The lobby to the table, by keys: the table's name has the focus and the title.
        page.focus(f'[data-table="{table["id"]}"] a[href^="#/table/"]')
        page.keyboard.press("Enter")
        heading_focused(page, "h1#table-title")
        name = str(page.text_content("#table-title"))
        assert name == cat.get(f"tablename.{table['id']}", table["name"])
        assert page.title() == f"{name} · Baccarat"
        # And back to the lobby.
        page.focus("[data-back]")
        page.keyboard.press("Enter")
        heading_focused(page, "h1.page-title")
        assert page.text_content("h1.page-title") == cat["lobby.title"]
        assert page.title() == f"{cat['lobby.title']} · Baccarat"
    assert player.errors == []


def test_sitting_down_is_said_and_focused_and_standing_up_goes_back_to_the_lobby(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    en = catalogs["en"]
    banker: Player = make_player()
    player: Player = make_player()
    bpage, ppage = banker.page, player.page
    banker.goto()
    bpage.evaluate(LISTEN)
    bpage.focus('[data-join-table="banked-i:banker"]')
    bpage.keyboard.press("Enter")
    heading_focused(bpage, "h1#seat-title")
    seat = str(bpage.get_attribute(".seat-view", "data-seat"))
    TAKEN.append((banker, seat))
    title = fill_in(
        en["banked.seat_title"],
        table=en.get("tablename.banked-i", "Table I (player-banked)"),
        n=seat.rsplit(".", 1)[1],
    )
    assert bpage.text_content("#seat-title") == title
    assert bpage.title() == f"{title} · Baccarat"
    bpage.wait_for_function("window.__said.length > 0")
    assert said(bpage) == [f"{en['banked.you_banker']}. {en['banked.status.waiting_banker']}"]
    player.goto()
    row = f'[data-seat-row="{seat}"]'
    ppage.wait_for_selector(f'{row}[data-needs="player"]')
    ppage.evaluate(LISTEN)
    ppage.focus(f'{row} [data-join="player"]')
    ppage.keyboard.press("Enter")
    TAKEN.append((player, seat))
    heading_focused(ppage, "h1#seat-title")
    assert ppage.title() == f"{title} · Baccarat"
    # The player hears where they sat down and what the seat waits for; the banker, who came.
    ppage.wait_for_function("window.__said.length > 0")
    bpage.wait_for_function("window.__said.length > 0")
    ppage.wait_for_timeout(300)
    assert said(ppage) == [f"{en['banked.you_player']}. {en['banked.status.approval_player']}"]
    assert said(bpage) == [fill_in(en["banked.notice.joined"], nickname=player.nickname)]
    # Standing up: the lobby's heading has the focus.
    ppage.focus('[data-action="leave"]')
    ppage.keyboard.press("Enter")
    heading_focused(ppage, "h1.page-title")
    assert ppage.title() == f"{en['lobby.title']} · Baccarat"
    assert banker.errors == [] and player.errors == []
