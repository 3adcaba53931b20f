"""The history page's fairness panel says which cut shoes a rotated seed waits for, and how
much of each is left; the fresh-shuffle tables' rounds are revealed at the rotation."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from .webtools import console_errors

pytestmark = pytest.mark.browser


def test_the_fairness_panel_names_the_shoe_a_rotated_seed_waits_for(
    make_player: Any, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    player = make_player()
    errors = console_errors(player)

    def play(table: str) -> dict[str, Any]:
        key = {"Idempotency-Key": uuid.uuid4().hex}
        played: dict[str, Any] = player.api(
            "POST", f"/api/tables/{table}/rounds", {"mode": "fun", "bets": {"banker": 500}}, key
        )
        return played

    fresh = play("table-i")
    player.api("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 50})
    shoe = play("mini")["shoe"]
    player.goto("history")
    page = player.page
    page.wait_for_selector('[data-fair="shoe-commitment"]:not(:empty)')
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_response(lambda r: r.url.endswith("/api/fairness/rotate")) as answer:
        page.click("[data-rotate]")
    rotated = answer.value.json()
    assert rotated["revealed"]["commitment"] == fresh["fairness"]["commitment"]
    (left,) = rotated["pending"][0]["shoes"]
    waiting = page.locator('[data-waiting="mini"]')
    waiting.wait_for()
    assert str(waiting.text_content()) == catalogs["en"]["fair.waiting"].format(
        table="Mini Baccarat", cards=shoe["cut_card"] - shoe["position"],
        least=left["rounds_at_least"], most=left["rounds_at_most"],
    )  # fmt: skip
    assert rotated["revealed"]["server_seed"] in str(page.text_content(".revealed"))
    page.locator("section.fairness").screenshot(path=str(screenshots / "fairness-waiting.jpg"))
    assert player.errors == [] and errors == []
