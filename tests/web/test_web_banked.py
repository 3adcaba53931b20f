"""A player-banked round in a real chromium: two browser contexts, a banker and a player,
matched in the lobby, playing over the seat's WebSocket (seed 000 "Spielen als Geber")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .webtools import Player

pytestmark = pytest.mark.browser


def usd(cents: int) -> str:
    sign = "\u2212" if cents < 0 else "+" if cents > 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def test_every_banked_string_is_in_all_four_catalogs(catalogs: dict[str, dict[str, str]]) -> None:
    keys = {k for k in catalogs["en"] if k.startswith(("banked.", "history.as_"))}
    assert len(keys) > 50
    for lang, catalog in catalogs.items():
        assert keys <= set(catalog), (lang, keys - set(catalog))
        assert all(catalog[k].strip() for k in keys)
    for code in ("banker_points_too_low", "banker_balance_too_low", "table_full",
                 "deadline_passed", "player_banked_table"):  # fmt: skip
        assert all(f"error.{code}" in catalog for catalog in catalogs.values())


def test_a_banker_and_a_player_play_a_round_in_two_browsers(
    make_player: Any, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    banker: Player = make_player()
    player: Player = make_player()
    for who in (banker, player):
        who.goto()
        who.page.wait_for_selector('[data-banked-table="banked-i"]')
    banker.page.screenshot(path=str(screenshots / "lobby-banked.jpg"), full_page=True)

    # The banker sits down at table I; the lobby shows the seat needing a player.
    banker.page.click('[data-join-table="banked-i:banker"]')
    banker.page.wait_for_selector('.seat-view[data-role="banker"]')
    seat = banker.page.get_attribute(".seat-view", "data-seat")
    row = f'[data-seat-row="{seat}"]'
    player.page.wait_for_selector(f'{row}[data-needs="player"]')
    assert banker.nickname in str(player.page.text_content(row))
    player.page.click(f'{row} [data-join="player"]')
    player.page.wait_for_selector('.seat-view[data-role="player"]')

    # Matched: each sees the other's nickname; the banker sees the table from the dealer's
    # side, and the timer circle counts the banker's 35 seconds.
    bpage, ppage = banker.page, player.page
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    assert bpage.is_visible(".felt.dealer-view") and not ppage.is_visible(".felt.dealer-view")
    assert bpage.text_content('[data-info="opponent"]') == player.nickname
    ppage.wait_for_selector('.seat-view[data-phase="approval"]')
    assert ppage.text_content('[data-info="opponent"]') == banker.nickname
    timer = bpage.locator("[data-timer]")
    assert timer.get_attribute("data-mine") == "true"
    assert 30 <= int(str(timer.get_attribute("data-seconds"))) <= 35
    assert ppage.locator("[data-timer]").get_attribute("data-mine") == "false"
    assert ppage.is_hidden('[data-action="approve"]') and ppage.is_visible('[data-action="deal"]')
    fee_text = str(bpage.text_content('[data-info="fee"]'))
    assert "1.5%" in fee_text
    bpage.screenshot(path=str(screenshots / "seat-banker.jpg"), full_page=True)

    # APPROVE; the player's turn: $5 twice on the banker, seen by the banker, and DEAL.
    bpage.click('[data-action="approve"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')
    assert ppage.locator("[data-timer]").get_attribute("data-mine") == "true"
    ppage.click('[data-chip="500"]')
    ppage.click('[data-spot="banker"]')
    ppage.click('[data-spot="banker"]')
    bpage.wait_for_function(
        "document.querySelector('[data-spot=banker] .stack-total').textContent === '$10.00'"
    )
    assert "$0.15" in str(bpage.text_content('[data-info="fee"]'))
    ppage.screenshot(path=str(screenshots / "seat-player.jpg"), full_page=True)
    ppage.click('[data-action="deal"]')
    ppage.wait_for_selector(".seat-view[data-round]")
    bpage.wait_for_selector(".seat-view[data-round]")

    # Both show what their histories record, each from their side.
    mine = player.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    theirs = banker.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    assert mine["id"] == theirs["id"] == ppage.get_attribute(".seat-view", "data-round")
    assert (mine["role"], theirs["role"]) == ("player", "banker")
    assert theirs["banked"]["fee"] == 15
    # Each browser gave the seat's seed a fresh client seed of its own, unasked: the round
    # was dealt from both (the banker's first), and both histories say the client set it.
    fair = mine["fairness"]
    seeds = fair["client_seeds"]
    assert theirs["fairness"]["client_seeds"] == seeds
    assert all(re.fullmatch(r"[0-9a-f]{32}", seeds[role]) for role in ("banker", "player"))
    assert seeds["banker"] != seeds["player"]
    assert fair["client_seed"] == json.dumps([seeds["banker"], seeds["player"]]).replace(" ", "")
    assert fair["client_seed_source"] == theirs["fairness"]["client_seed_source"] == "client"
    assert fair["server_seed"] is None
    for page, item in ((ppage, mine), (bpage, theirs)):
        for side in ("player", "banker"):
            cards = page.locator(f'[data-cards="{side}"] [data-card]').evaluate_all(
                "els => els.map(e => e.dataset.card)"
            )
            assert cards == item[side]["cards"]
        assert page.text_content('[data-meter="last"]') == usd(item["banked"]["net"])
        last = str(page.text_content('[data-info="last"]'))
        assert usd(mine["banked"]["net"]) in last and usd(theirs["banked"]["net"]) in last
    # The banker placed no bets: their banner says nothing of what the player's bets paid.
    for page in (ppage, bpage):
        page.wait_for_selector("[data-banner]:not([hidden])")
    assert "Paid" not in str(bpage.text_content("[data-banner-detail]"))
    won = any(bet["result"] == "win" for bet in mine["bets"].values())
    assert ("Paid" in str(ppage.text_content("[data-banner-detail]"))) == won
    bpage.screenshot(path=str(screenshots / "seat-banker-result.jpg"), full_page=True)

    # AUTO-APPROVE: the next round opens at once for the player.
    bpage.wait_for_selector('.seat-view[data-phase="approval"]')
    bpage.click('[data-action="auto-approve"]')
    bpage.wait_for_selector('[data-action="auto-approve"][aria-pressed="true"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"]')

    # Reloading the seat page keeps the seat (the server's reconnect grace): the player is
    # back at the same seat in the same round, and the banker saw nobody leave.
    ppage.reload()
    ppage.wait_for_selector(f'.seat-view[data-seat="{seat}"][data-role="player"]')
    ppage.wait_for_selector('.seat-view[data-phase="betting"] [data-action="deal"]')
    assert ppage.text_content('[data-info="opponent"]') == banker.nickname
    assert bpage.text_content('[data-info="opponent"]') == player.nickname

    # The banker's view speaks German after switching: APPROVE and AUTO-APPROVE too.
    bpage.select_option("#lang", "de")
    bpage.wait_for_function(
        "t => document.querySelector('[data-action=approve]').textContent === t",
        arg=catalogs["de"]["banked.approve"],
    )
    assert (
        bpage.text_content('[data-action="auto-approve"]') == catalogs["de"]["banked.auto_approve"]
    )

    # The history page names each side's role.
    banker.goto("history")
    banker.page.wait_for_selector('[data-role="banker"]')
    assert re.search(r"als Geber", str(banker.page.text_content("table.history")))

    # Leaving: the player stands up; the banker's seat needs a player again, and the seat's
    # seed is revealed to both.
    ppage.click('[data-action="leave"]')
    ppage.wait_for_selector('[data-banked-table="banked-i"]')
    revealed = banker.api("GET", "/api/history?mode=fun&limit=5")["items"]
    assert all(item["fairness"]["server_seed"] for item in revealed)
    # The rules page explains banking at table II: the help page's 50 points and $500.
    player.goto("rules/banked-ii")
    help_text = str(ppage.text_content("[data-banked-help]"))
    assert "50 points" in help_text and "$500.00" in help_text and "$9.85" in help_text
    assert banker.errors == [] and player.errors == []
