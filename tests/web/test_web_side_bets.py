"""Side bets in the browser: spots drawn from the table's bet list, settled and shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .webtools import Player, last_round, open_table, place, signed, table_of, usd

pytestmark = pytest.mark.browser

SIZES = {"desktop-1280": (1280, 720), "desktop-1920": (1920, 1080), "phone": (390, 844),
         "phone-landscape": (844, 390)}  # fmt: skip


def spots(player: Player) -> list[str]:
    return list(
        player.page.eval_on_selector_all("[data-spot]", "els => els.map(e => e.dataset.spot)")
    )


def test_the_spots_are_the_tables_bets(make_player: Any, tables: list[dict[str, Any]]) -> None:
    player = make_player()
    # The lobby names each table's side bets; a table of the three main bets names none.
    page = player.page
    player.goto()
    page.wait_for_selector('[data-table="deluxe"] [data-side-bets]')
    for table in tables:
        if table.get("banked") is not None:
            continue
        side = [bet for bet in table["bets"] if bet not in ("player", "banker", "tie")]
        shown = page.locator(f'[data-table="{table["id"]}"] [data-side-bets]')
        if side:
            assert sorted(str(shown.get_attribute("data-side-bets")).split()) == sorted(side)
        else:
            assert shown.count() == 0, table["id"]
    assert "PLAYER PAIR" in str(page.text_content('[data-table="deluxe"] .side-bets'))
    assert "DRAGON 7" in str(page.text_content('[data-table="ez"] .side-bets'))
    for table_id in ("table-i", "deluxe", "ez", "no-commission"):
        table = table_of(tables, table_id)
        open_table(player, table)
        assert sorted(spots(player)) == sorted(table["bets"])
    # Pairs beside their hands, the others in the row below.
    open_table(player, table_of(tables, "deluxe"))
    page = player.page
    assert page.locator('.side-player [data-spot="player_pair"]').count() == 1
    assert page.locator('.side-banker [data-spot="banker_pair"]').count() == 1
    assert page.locator('.spots-row [data-spot="perfect_pair"]').count() == 1
    assert "11:1" in str(page.text_content('[data-spot="player_pair"] .spot-pays'))
    assert player.errors == []


def test_side_bets_at_deluxe_are_settled_and_shown(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path
) -> None:
    player = make_player()
    page = player.page
    deluxe = table_of(tables, "deluxe")
    open_table(player, deluxe)
    place(player, 500, "banker")
    place(player, 500, "big")
    for spot in ("player_pair", "banker_pair", "either_pair", "perfect_pair", "player_dragon",
                 "banker_dragon"):  # fmt: skip
        place(player, 100, spot)
    assert player.meter("bet") == usd(1_600)
    page.click('[data-action="deal"]')
    player.wait_round()
    round_ = last_round(player)
    assert round_["table_id"] == "deluxe" and len(round_["bets"]) == 8
    for spot, bet in round_["bets"].items():
        marker = page.locator(f".wrap-{spot} .bet-marker")
        assert marker.get_attribute("data-result") == bet["result"], spot
        if bet["result"] == "win":
            assert usd(bet["returned"]) in str(marker.text_content())
    assert player.meter("win") == usd(round_["win"])
    assert player.meter("last") == signed(round_["win"] - 1_600)
    assert player.meter("balance") == usd(round_["balance_after"])
    page.screenshot(path=str(screenshots / "side-bets-dealt.jpg"))
    player.goto("history")
    page.wait_for_selector(f'tr[data-round="{round_["id"]}"]')
    row = str(page.text_content(f'tr[data-round="{round_["id"]}"]'))
    for name in ("PLAYER PAIR", "PERFECT PAIR", "BANKER DRAGON", "BIG"):
        assert name in row
    assert player.errors == []


def test_a_side_bet_above_its_limit_is_explained_and_nothing_is_sent(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player = make_player()
    open_table(player, table_of(tables, "deluxe"))
    place(player, 500, "banker")
    place(player, 2_500, "perfect_pair", times=3)  # 75.00 on a bet that takes at most 50.00
    assert player.page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(player.page.text_content("#table-message"))
    assert "PERFECT PAIR" in message and "$50.00" in message
    assert player.api("GET", "/api/history?mode=fun&limit=1")["items"] == []


@pytest.mark.parametrize("size", list(SIZES))
def test_the_deluxe_table_fits_the_screen(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path, size: str
) -> None:
    width, height = SIZES[size]
    player = make_player(viewport={"width": width, "height": height})
    open_table(player, table_of(tables, "deluxe"))
    page = player.page
    page.screenshot(path=str(screenshots / f"side-bets-{size}.jpg"))
    for spot in spots(player):
        box = page.locator(f'[data-spot="{spot}"]').bounding_box()
        assert box is not None and box["width"] > 0, spot
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, spot
    deal = page.locator('[data-action="deal"]').bounding_box()
    assert deal is not None and deal["y"] + deal["height"] <= height + 1
    assert player.errors == []


def test_the_rules_page_lists_the_side_bets_with_pays_and_rtp(
    make_player: Any,
    tables: list[dict[str, Any]],
    catalogs: dict[str, dict[str, str]],
    screenshots: Path,
) -> None:
    player = make_player()
    player.goto("rules/deluxe")
    page = player.page
    page.wait_for_selector("#side-bets")
    rows = page.eval_on_selector_all(
        "#side-bets tbody tr", "rows => rows.map(r => [...r.children].map(c => c.textContent))"
    )
    deluxe = table_of(tables, "deluxe")
    side = [name for name in deluxe["bets"] if name not in ("player", "banker", "tie")]
    assert [r[0] for r in rows] == [catalogs["en"][f"spot.{name}"] for name in side]
    perfect = rows[side.index("perfect_pair")]
    assert perfect[2] == "one hand 25:1, both hands 200:1"
    assert perfect[4] == "$1.00 – $50.00"
    for name, row in zip(side, rows, strict=True):
        rtp = deluxe["bets"][name]["rtp"]
        assert row[3] == ("\u2013" if rtp is None else row[3]) and row[1]
    page.locator("#side-bets").screenshot(path=str(screenshots / "side-bets-rules.jpg"))
    # The Banker bet of the no-commission games, with its exceptions.
    for table_id, words in (("ez", "three-card 7 pushes"), ("no-commission", "with 6 pays 1:2")):
        player.goto(f"rules/{table_id}")
        banker = str(page.text_content("#payouts tbody tr:nth-child(2) td"))
        assert banker.startswith("1:1") and words in banker and "commission" not in banker
    player.goto("rules/banked-i")
    page.wait_for_selector("[data-main-only]")
    assert page.locator("#side-bets").count() == 0
    assert player.errors == []
    # Every string the side bets need is in all four catalogs.
    keys = {
        f"{kind}.{name}"
        for kind in ("spot", "side")
        for name in [*side, "dragon7", "panda8", "super6"]
    }
    for lang, catalog in catalogs.items():
        assert keys <= set(catalog), lang
