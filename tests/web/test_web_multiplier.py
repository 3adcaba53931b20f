"""Multiplier baccarat in the browser, at the house table and at a shared table: the strip of
multiplier cards over the hands, the cards marked as they are dealt, the fee beside each
stake, the win with its multiplier in the banner, said once to a screen reader, at 1280x720
and on a phone upright (screenshots), axe clean; the rules page shows the distributions and
each bet's exact RTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..harness import free_port, live, uvicorn_argv
from .audits import audit
from .webtools import (
    ANNOUNCED,
    Player,
    announced,
    boxes_of,
    device,
    new_nickname,
    overlapping,
    within,
)

pytestmark = pytest.mark.browser

# Every shoe deals player Ah Ah 7s (9) against banker Kd Qc 2c (2), over and over (a shared
# shoe deals coup after coup of it); the multiplier cards are the ace of hearts x3 (twice in
# the player's hand: x9) and the king of diamonds x8 (in the banker's hand, which loses).
STACK = " ".join(["Ah Kd Ah Qc 7s 2c"] * 60)
LIGHTNING = "Ah:3 Kd:8"
TABLES = """
[[table]]
id = "lightning"
name = "Multiplier Baccarat"
rules = "multiplier"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
tie_min_alone = "5"
tie_min = "1"
tie_max = "60"
[table.bets.player_pair]
min = "1"
max = "100"
[table.bets.banker_pair]
min = "1"
max = "100"

[[table]]
id = "quick-lightning"
name = "Quick Multiplier Live"
rules = "multiplier-shoe"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = { betting_s = 4, result_s = 4 }
"""
SIZES = [(1280, 720), (1920, 1080), (844, 390), (390, 844)]
SAID_CARDS = "Multiplier cards: Ace of hearts, multiplier ×3, King of diamonds, multiplier ×8."
SAID_WIN = "Your Player bet won ×9: +$44.00."


@pytest.fixture(scope="module")
def stacked_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data, port = tmp_path_factory.mktemp("multiplier-web"), free_port()
    (data / "tables.toml").write_text(TABLES)
    env = {"BACCARAT_DATABASE_URL": f"sqlite:///{data / 'web.db'}", "BACCARAT_DATA_DIR": str(data),
           "BACCARAT_TABLES": str(data / "tables.toml"), "BACCARAT_TEST_STACK": STACK,
           "BACCARAT_TEST_LIGHTNING": LIGHTNING,
           "BACCARAT_REGISTRATIONS_PER_HOUR": "10000"}  # fmt: skip
    with live(uvicorn_argv("tests.server.apps:stacked", port), env, data / "server.log", port,
              cwd=data) as server:  # fmt: skip
        yield server.url


def player_at(make_player: Any, url: str, table: str, width: int, height: int) -> Player:
    player: Player = make_player(at=url, login=False, bypass_csp=True, **device(width, height))
    player.page.add_init_script(ANNOUNCED)
    player.register_and_login()
    player.goto(f"table/{table}")
    player.page.wait_for_selector(f'[data-table="{table}"]')
    return player


def marked_cards(page: Any) -> list[list[str]]:
    """The cards of the hands marked as multiplier cards: [card, its multiplier]."""
    found: list[list[str]] = page.locator(".hands .card.lightning").evaluate_all(
        "els => els.map(e => [e.dataset.card, e.dataset.multiplier])"
    )
    return found


def shown_round(page: Any) -> None:
    """The strip, the marked cards and the banner of the stacked round."""
    strip = page.locator("[data-lightning-card]").evaluate_all("els => els.map(e => e.textContent)")
    assert [text[-2:] for text in strip] == ["×3", "×8"], strip
    assert marked_cards(page) == [["Ah", "3"], ["Ah", "3"], ["Kd", "8"]]
    assert page.get_attribute('.hands [data-card="Ah"]', "aria-label") == (
        "Ace of hearts, multiplier ×3"
    )
    assert page.text_content("[data-banner-multiplier]") == "Player won ×9."
    assert "×9" in str(page.text_content(".wrap-player .bet-marker"))


def test_a_house_round_shows_its_multiplier_cards_fees_and_multiplied_win(
    make_player: Any, stacked_url: str, screenshots: Path, axe_source: Path
) -> None:
    player = player_at(make_player, stacked_url, "lightning", 1280, 720)
    page = player.page
    found: list[str] = []
    assert page.is_visible("[data-lightning-when]")  # when they are drawn, before it
    page.click('[data-chip="500"]')
    page.click('[data-spot="player"]')
    assert page.text_content('[data-spot="player"] .stack-fee') == "+ $1.00 fee"
    assert player.meter("bet") == "$6.00"  # the stake and its fee
    audit(page, axe_source, "multiplier table with a bet", found)
    page.set_viewport_size({"width": 1280, "height": 720})
    announced(page)
    page.click('[data-action="deal"]')
    player.wait_round()
    page.wait_for_timeout(300)
    shown_round(page)
    said = announced(page)
    assert said.count(SAID_CARDS) == 1 and sum(SAID_WIN in s for s in said) == 1, said
    assert player.meter("last") == "+$44.00"  # 9 x 5.00 won, less the 1.00 fee
    # At every supported size the strip, the hands and the banner stay on the felt, the
    # strip clear of the hands.
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(200)
        page.screenshot(path=str(screenshots / f"multiplier-house-{width}x{height}.jpg"))
        (felt,) = boxes_of(page, ".felt")
        (strip,) = boxes_of(page, "[data-lightning]")
        (banner,) = boxes_of(page, "[data-banner]")
        hands = boxes_of(page, ".hand")
        assert all(within(box, felt) for box in (strip, banner, *hands)), (width, height)
        assert not any(overlapping(strip, hand) for hand in hands), (width, height)
        # The felt's bet tools (the favourites' star) leave the strip's cards in sight.
        (tools,) = boxes_of(page, ".bet-tools")
        assert within(tools, felt) and not overlapping(tools, strip), (width, height)
    audit(page, axe_source, "multiplier table after a round", found)
    # The history's detail has the multiplier cards, each bet's fee and multiplier.
    page.set_viewport_size({"width": 1280, "height": 720})
    player.goto("history")
    rid = player.api("GET", "/api/history?mode=fun&limit=1")["items"][0]["id"]
    page.click(f'[data-open="{rid}"]')
    page.wait_for_selector("[data-lightning-row]")
    detail = " ".join(str(page.text_content("#round-detail")).split())
    assert "fee $1.00" in detail and "×9" in detail, detail
    # The rules page: the fee, both distributions as fractions and each bet exactly.
    player.goto("rules/lightning")
    page.wait_for_selector("#multiplier-help")
    help_text = str(page.text_content("#multiplier-help"))
    table = player.api("GET", "/api/tables/lightning")
    for chance in table["rules"]["multipliers"]["counts"].values():
        assert chance in help_text
    assert table["bets"]["player"]["rtp_exact"] in help_text
    shot = page.locator("#multiplier-help")
    shot.screenshot(path=str(screenshots / "multiplier-rules-1280x720.jpg"))
    audit(page, axe_source, "multiplier rules", found)
    shot.screenshot(path=str(screenshots / "multiplier-rules-390x844.jpg"))
    assert found == [], "\n".join(found)
    assert player.errors == []


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_a_shared_coup_shows_its_multiplier_cards_when_betting_closes(
    make_player: Any, stacked_url: str, screenshots: Path, axe_source: Path, width: int, height: int
) -> None:
    player = player_at(make_player, stacked_url, "quick-lightning", width, height)
    page = player.page
    found: list[str] = []
    page.wait_for_function(
        "() => { const v = document.querySelector('.shared-view');"
        " return v.dataset.phase === 'betting'"
        " && parseInt(document.querySelector('[data-countdown]').textContent) >= 2; }",
        timeout=30_000,
    )
    coup = page.get_attribute(".shared-view", "data-coup")
    page.click('[data-chip="500"]')
    page.click('[data-spot="player"]')
    page.wait_for_selector("#table-message:has-text('Your bets are placed')")
    assert page.text_content('[data-spot="player"] .stack-fee') == "+ $1.00 fee"
    assert player.meter("bet") == "$6.00"
    announced(page)
    page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]')
    page.wait_for_selector("[data-banner-multiplier]:not(:empty)", timeout=15_000)
    page.wait_for_timeout(300)
    shown_round(page)
    said = announced(page)
    assert said.count(SAID_CARDS) == 1 and sum(SAID_WIN in s for s in said) == 1, said
    page.screenshot(path=str(screenshots / f"multiplier-shared-{width}x{height}.jpg"))
    audit(page, axe_source, "shared multiplier table after a coup", found, [(width, height)])
    assert found == [], "\n".join(found)
    assert player.errors == []


def test_the_verifier_page_rederives_the_multiplier_cards_and_names_a_changed_one(
    make_player: Any, tmp_path: Path
) -> None:
    player: Player = make_player()
    for _ in range(3):
        player.api("POST", "/api/tables/lightning/rounds",
                   {"mode": "fun", "bets": {"player": 500, "tie": 500}},
                   {"Idempotency-Key": new_nickname()})  # fmt: skip
    player.api("POST", "/api/fairness/rotate", {"mode": "fun"})
    response = player.context.request.get(f"{player.base_url}/api/history/export")
    lines = response.text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["lightning"] for line in lines)

    def verified(text: str, name: str) -> Any:
        (tmp_path / name).write_text(text)
        page = player.page
        page.goto(f"{player.base_url}/verify.html")
        page.wait_for_selector("body[data-ready='true']")
        page.set_input_files("#export-file", str(tmp_path / name))
        page.wait_for_selector("body[data-export-verified='true']", timeout=30_000)
        return page

    page = verified("\n".join(lines) + "\n", "honest.jsonl")
    assert page.get_attribute("body", "data-export-verdict") == "verified"
    # The first round's first multiplier card told with another multiplier: named.
    first = json.loads(lines[0])
    card = first["lightning"][0]
    was, card["multiplier"] = card["multiplier"], 8 if card["multiplier"] != 8 else 2
    page = verified("\n".join([json.dumps(first), *lines[1:]]) + "\n", "changed.jsonl")
    assert page.get_attribute("body", "data-export-ok") == "false"
    report = " ".join(str(page.text_content("#export-rounds")).split())
    name, now = card["card"], card["multiplier"]
    expected = f"lightning.0: expected {name} x{was}, recorded {name} x{now}"
    assert expected in report, report
    assert player.errors == []
