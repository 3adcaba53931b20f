"""A player whose accounts are in yen (no minor unit) in Chromium: the cashier takes the
amounts typed in yen, the table shows and checks its yen limits, and the chips' labels fit
the chips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .webtools import Player, is_state, place

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1920, 1080), (390, 844), (844, 390)]


def yen(amount: int) -> str:
    """en-US yen as Intl.NumberFormat writes them: ¥2,500."""
    return f"¥{amount:,}"


def at_table_i(make_player: Any, size: tuple[int, int]) -> Player:
    """A new player in yen at table-i, once the page has its state there."""
    player: Player = make_player(login=False, viewport={"width": size[0], "height": size[1]})
    player.register_and_login("JPY")
    with player.page.expect_response(lambda r: is_state(r.url)):
        player.goto("table/table-i")
    player.page.wait_for_selector('.table-view[data-table="table-i"]')
    return player


def test_the_cashier_takes_an_amount_typed_in_yen_as_yen(
    make_player: Any, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player(login=False, viewport={"width": 1280, "height": 720})
    player.register_and_login("JPY")
    player.goto("cashier")
    page = player.page
    message = "[data-message=deposit]"
    for typed, asked in (("100", 100), ("1,000", 1000)):
        page.fill("#deposit-amount", typed)
        page.click('[data-form="deposit"] button[type="submit"]')
        page.wait_for_function(
            "([s, v]) => document.querySelector(s).textContent.includes(v)",
            arg=[message, f"{yen(asked)} "],
        )
    requests = player.api("GET", "/api/wallet/deposits")
    assert sorted((r["amount"], r["currency"]) for r in requests) == [(100, "JPY"), (1000, "JPY")]
    # Yen have no decimals: "2.5" is no amount of yen (nothing is asked).
    page.fill("#deposit-amount", "2.5")
    page.click('[data-form="deposit"] button[type="submit"]')
    page.wait_for_function(
        "([s, v]) => document.querySelector(s).textContent === v",
        arg=[message, catalogs["en"]["cashier.bad_amount"]],
    )
    assert len(player.api("GET", "/api/wallet/deposits")) == 2
    page.screenshot(path=str(screenshots / "yen-cashier-1280x720.jpg"))
    assert not player.errors


def test_the_table_shows_and_checks_its_yen_limits(make_player: Any, screenshots: Path) -> None:
    player = at_table_i(make_player, (1280, 720))
    page = player.page
    limits = " ".join(str(page.text_content(".table-name p")).split())
    assert yen(300) in limits and yen(3000) in limits, limits
    # 200 yen is below the table's minimum of 300 yen: said at once, and not dealt.
    place(player, 100, "banker", times=2)
    page.wait_for_function(
        "v => document.querySelector('#table-message').textContent.includes(v)", arg=yen(300)
    )
    assert page.is_disabled('[data-action="deal"]')
    page.screenshot(path=str(screenshots / "yen-below-min-1280x720.jpg"))
    # 2,500 yen is a bet the table takes: dealt, and played at the server.
    page.click('[data-action="clear"]')
    place(player, 2500, "banker")
    assert page.is_enabled('[data-action="deal"]')
    with page.expect_response(lambda r: "/rounds" in r.url) as answer:
        page.click('[data-action="deal"]')
    assert answer.value.status == 201, answer.value.text()
    assert answer.value.json()["stake"] == 2500
    player.wait_round()
    assert not player.errors


def test_the_chips_labels_lie_inside_the_chips(make_player: Any, screenshots: Path) -> None:
    player = at_table_i(make_player, SIZES[0])
    page = player.page
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(100)  # (a layout of the new size)
        # Each label's box, its corners from the chip's centre, against the radius of the
        # chip's face (inside its dashed edge): a label is inside the round chip if every
        # corner is.
        found = page.evaluate("""() => [...document.querySelectorAll('.rack [data-chip]')]
            .map((chip) => {
              const range = document.createRange();
              range.selectNodeContents(chip);
              const text = range.getBoundingClientRect();
              const box = chip.getBoundingClientRect();
              const edge = parseFloat(getComputedStyle(chip).borderTopWidth);
              const x = box.left + box.width / 2, y = box.top + box.height / 2;
              const far = Math.hypot(Math.max(x - text.left, text.right - x),
                                     Math.max(y - text.top, text.bottom - y));
              return { label: chip.textContent, far, radius: box.width / 2 - edge };
            })""")
        assert [chip["label"] for chip in found] == ["100", "500", "2,500", "10,000"]
        for chip in found:
            assert chip["far"] <= chip["radius"], (size, chip)
        page.locator(".rack").screenshot(
            path=str(screenshots / f"yen-chips-{size[0]}x{size[1]}.jpg")
        )
    assert not player.errors
