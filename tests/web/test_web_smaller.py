"""Smaller things of issue 11 (section 5): the German tie spot, markers and stakes that do
not cover anything, bets above the balance, Escape after a deal, the verifier in the site's
language with a Mini shoe's burn and cut, the cashier's messages, seed 003's table."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .webtools import (
    Player,
    cut_table,
    fresh_table,
    last_round,
    open_table,
    place,
    seated,
    serving,
    usd,
)

pytestmark = pytest.mark.browser


def boxes(page: Any, selector: str) -> list[tuple[float, float, float, float]]:
    found: list[tuple[float, float, float, float]] = page.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })"
    )
    return found


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("viewport", [(390, 844), (1280, 720)], ids=["phone", "desktop"])
def test_gleichstand_fits_in_the_tie_spot_and_nothing_covers_a_stake_or_a_card(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]],
    viewport: tuple[int, int],
) -> None:  # fmt: skip
    width, height = viewport
    player: Player = make_player(locale="de-DE", viewport={"width": width, "height": height})
    page = player.page
    table = fresh_table(tables)
    open_table(player, table)
    name = page.locator('[data-spot="tie"] .spot-name')
    assert name.text_content() == catalogs["de"]["spot.tie"] == "GLEICHSTAND"
    fits = name.evaluate(
        "e => e.scrollWidth <= e.clientWidth && e.getClientRects().length === 1"
        " && e.offsetHeight < 2 * parseFloat(getComputedStyle(e).fontSize)"
    )
    assert fits, "GLEICHSTAND breaks or overflows the tie spot"
    # A tall stack on every spot: the chips stay clear of the stake.
    place(player, 100, "player", times=6)
    place(player, 100, "banker", times=6)
    place(player, 100, "tie", times=6)
    for spot in ("player", "banker", "tie"):
        (label,) = boxes(page, f'[data-spot="{spot}"] .stack-total')
        for chip in boxes(page, f'[data-spot="{spot}"] .mini-chip'):
            assert not overlap(label, chip), f"a chip covers the stake on {spot}"
    page.click('[data-action="deal"]')
    player.wait_round()
    for side in ("player", "banker"):
        (marker,) = boxes(page, f'[data-marker="{side}"]')
        for card in boxes(page, f'[data-cards="{side}"] [data-card]'):
            assert not overlap(marker, card), f"the {side} marker touches a card"
    assert player.errors == []


def test_bets_above_the_balance_are_said_not_shown_as_a_negative_balance(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    open_table(player, fresh_table(tables))
    page.click('.topbar [data-mode="real"]')
    page.wait_for_selector('.topbar [data-mode="real"][aria-pressed="true"]')
    place(player, 500, "player")
    balance = player.meter("balance")
    assert "\u2212" not in balance and "-" not in balance
    assert usd(500) in balance
    assert page.get_attribute('[data-meter="balance"]', "data-short") == "true"


def test_escape_starts_a_new_game_after_a_deal(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    open_table(player, fresh_table(tables))
    place(player, 500, "banker")
    page.focus('[data-action="deal"]')
    page.keyboard.press("Enter")
    player.wait_round()
    assert page.evaluate("document.activeElement !== document.body")
    page.keyboard.press("Escape")
    page.wait_for_selector('.table-view[data-phase="betting"]')
    assert page.locator(".hands [data-card]").count() == 0


def test_the_verifier_speaks_the_players_language_and_shows_a_mini_shoes_burn(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player(locale="de-DE")
    page = player.page
    table = cut_table(tables)
    open_table(player, table)
    page.wait_for_selector(".cut-panel")
    page.click("#cut-button")
    page.wait_for_selector(".cut-panel", state="detached")
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    first = last_round(player)
    # A rotation reveals the fresh shuffles' seed at once; the cut shoes' seed is revealed
    # when this shoe ends.
    rotated = player.api("POST", "/api/fairness/rotate", {"mode": "fun"})
    assert rotated["revealed"] is not None and rotated["revealed_shoe_seed"] is None
    assert player.finish_shoe(table["id"], {"banker": 500}) > 0
    # The shoe's last round (on the history's first page), dealt from the same seed.
    round_ = player.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    assert round_["fairness"]["commitment"] == first["fairness"]["commitment"]
    assert round_["fairness"]["server_seed"]
    player.goto("history")
    page.click(f'[data-open="{round_["id"]}"]')
    href = str(page.get_attribute(f'[data-verify="{round_["id"]}"]', "href"))
    assert "rules=mini" in href
    page.goto(f"{player.base_url}/{href}")
    page.wait_for_selector("body[data-verified='true']")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.text_content("h1") == catalogs["de"]["verify.title"]
    assert "docs/" not in str(page.text_content("body"))
    assert page.locator("#order li.burned").count() > 0
    assert page.locator("#order li.after-cut").count() > 0
    cards = page.eval_on_selector_all("#player-cards .card", "cs => cs.map(c => c.dataset.card)")
    assert cards == round_["player"]["cards"]
    assert page.get_attribute("#coup-winner", "data-winner") == round_["winner"]
    assert player.errors == []


def test_the_cashier_and_the_top_up_say_what_happened(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player()
    page = player.page
    player.goto("cashier")
    page.fill("#deposit-amount", "25.50")
    page.click('[data-form="deposit"] button[type="submit"]')
    page.wait_for_selector("[data-request] [data-status='pending']")
    message = str(page.text_content('[data-message="deposit"]'))
    assert usd(2550) in message and "cashier confirms" in message
    page.fill("#withdrawal-amount", "10")
    page.click('[data-form="withdrawal"] button[type="submit"]')
    message = str(page.text_content('[data-message="withdrawal"]'))
    assert "withdraw" in message and "bets" not in message
    # Play money: the top-up says what it added, or that there was nothing to add.
    player.goto()
    page.click("#top-up")
    page.wait_for_function("document.querySelector('[data-message=top-up]').textContent.length > 0")
    assert "already full" in str(page.text_content('[data-message="top-up"]'))


def test_seed_003s_game_has_a_table_with_a_translated_name(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    (classic,) = [t for t in tables if t["rules"]["name"] == "classic-6deck"]
    assert classic["rules"]["decks"] == 6 and classic["rules"]["tie_pays"] == "8"
    player: Player = make_player(locale="de-DE")
    open_table(player, classic)
    assert player.page.text_content("#table-title") == catalogs["de"]["tablename.classic-6deck"]
    player.goto()
    player.page.wait_for_selector(".table-card")
    lobby = str(player.page.text_content("main"))
    assert catalogs["de"]["tablename.table-ii"] in lobby


@pytest.fixture(scope="module")
def quick_seats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose player-banked players have 3 s to deal."""
    with serving(tmp_path_factory.mktemp("quick-seats"), BACCARAT_BANKED_PLAYER_S="3") as url:
        yield url


def test_a_player_who_timed_out_reads_that_they_did_not_deal_in_time(
    make_player: Any, quick_seats: str, catalogs: dict[str, dict[str, str]]
) -> None:
    people = [make_player(at=quick_seats) for _ in range(2)]
    banker, player, _ = seated(lambda **_: people.pop(0))
    banker.page.wait_for_selector('.seat-view[data-phase="approval"]')
    banker.page.click('[data-action="approve"]')
    # The player does not deal: after 3 s they leave, and read it in their own words.
    player.page.wait_for_selector("[data-left-notice]", timeout=20_000)
    assert (
        player.page.text_content("[data-left-notice]")
        == catalogs["en"]["banked.notice.you_player_timeout"]
    )
    assert player.nickname not in str(player.page.text_content("main"))
    banker.page.wait_for_function(
        "n => document.querySelector('#table-message').textContent.includes(n)",
        arg=player.nickname,
    )
    assert "did not deal in time" in str(banker.page.text_content("#table-message"))
    assert player.errors == [] and banker.errors == []
