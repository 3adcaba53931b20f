"""The pages keep as receipts every commitment they show before play: the player's own at a
house table, a shared table's shoe's, a player-banked seat's. An honest export of those
rounds then checks out in the verifier page with this browser's receipts, its rounds not
revealed yet not verifiable yet, none of them differing."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from .webtools import Player, console_errors

pytestmark = pytest.mark.browser
SHARED = "speed"  # 12 s to bet, 6 s of result


def kept(player: Player) -> list[dict[str, Any]]:
    text = player.page.evaluate("localStorage.getItem('baccarat.receipts')")
    return list(json.loads(text or '{"receipts": []}')["receipts"])


def wait_kept(player: Player, commitment: str) -> dict[str, Any]:
    """The receipt of ``commitment`` this browser keeps, once it keeps it."""
    player.page.wait_for_function(
        "c => (JSON.parse(localStorage.getItem('baccarat.receipts') || '{}').receipts || [])"
        ".some(r => r.commitment === c)",
        arg=commitment,
    )
    return next(r for r in kept(player) if r["commitment"] == commitment)


def test_the_pages_keep_every_commitment_shown_and_an_honest_export_checks_out(
    make_player: Any, tmp_path: Path, screenshots: Path
) -> None:
    ann, bob = make_player(), make_player()
    errors = [console_errors(p) for p in (ann, bob)]
    # A house table keeps the player's commitments: the fresh shuffles' and the shoes'.
    ann.goto("table/table-i")
    shown = ann.api("GET", "/api/fairness")["fun"]
    wait_kept(ann, shown["commitment"])
    wait_kept(ann, shown["shoe"]["commitment"])
    for _ in range(2):
        ann.api("POST", "/api/tables/table-i/rounds", {"mode": "fun", "bets": {"player": 500}},
                {"Idempotency-Key": uuid.uuid4().hex})  # fmt: skip

    # The shared table keeps its shoe's commitment, before any bet on it.
    ann.goto(f"table/{SHARED}")
    page = ann.page
    page.wait_for_function(
        "() => { const v = document.querySelector('.shared-view');"
        " const c = document.querySelector('[data-countdown]');"
        " return v && c && v.dataset.phase === 'betting' && parseInt(c.textContent) >= 2; }",
        timeout=30_000,
    )
    shoe = ann.api("GET", f"/api/tables/{SHARED}/state?mode=fun")["shoe"]["commitment"]
    receipt = wait_kept(ann, shoe)
    assert (receipt["mode"], receipt["table"]) == ("fun", SHARED)
    coup = page.get_attribute(".shared-view", "data-coup")
    page.click('[data-chip="500"]')
    page.click('[data-spot="banker"]')
    page.wait_for_selector("#table-message:has-text('Your bets are placed')")
    page.wait_for_selector(f'.shared-view[data-phase="dealt"][data-coup="{coup}"]', timeout=30_000)

    # A seat keeps its pair's commitment as the pair forms.
    bob.goto()
    bob.page.click('[data-join-table="banked-i:banker"]')
    bob.page.wait_for_selector('.seat-view[data-role="banker"]')
    seat = bob.page.get_attribute(".seat-view", "data-seat")
    ann.goto()
    page.click(f'[data-seat-row="{seat}"] [data-join="player"]')
    page.wait_for_selector('.seat-view[data-role="player"]')
    bob.page.wait_for_selector('.seat-view[data-phase="approval"]')
    bob.page.click('[data-action="approve"]')
    page.wait_for_selector('.seat-view[data-phase="betting"]')
    page.click('[data-chip="500"]')
    page.click('[data-spot="player"]')
    page.click('[data-action="deal"]')
    page.wait_for_selector(".seat-view[data-round]")
    dealt = ann.api("GET", "/api/history?mode=fun&limit=1")["items"][0]
    assert dealt["role"] == "player" and dealt["banked"]
    receipt = wait_kept(ann, dealt["fairness"]["commitment"])
    assert (receipt["mode"], receipt["table"]) == ("fun", "banked-i")
    wait_kept(bob, dealt["fairness"]["commitment"])  # the banker's browser too

    # The pair ends (its seed is revealed) and the player rotates (the house rounds').
    ann.api("POST", f"/api/seats/{seat}/leave")
    ann.api("POST", "/api/fairness/rotate", {"mode": "fun"})
    export = ann.context.request.get(f"{ann.base_url}/api/history/export").text()
    assert len(export.splitlines()) == 4
    path = tmp_path / "export.jsonl"
    path.write_text(export)
    page.goto(f"{ann.base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    page.set_input_files("#export-file", str(path))
    page.wait_for_selector("body[data-export-verified='true']", timeout=30_000)
    page.screenshot(path=str(screenshots / "verify-receipts.jpg"), full_page=True)
    assert page.get_attribute("body", "data-export-verdict") == "verified", (
        page.text_content("#export-text")
    )  # fmt: skip
    assert page.get_attribute("#export-verdict", "class") == "check ok"
    assert f"Using the {len(kept(ann))} receipts" in str(page.text_content("#receipts-status"))
    assert page.locator("#export-rounds tr[data-status='differs']").count() == 0
    # The shared coup's shoe is still dealt: not verifiable yet, and nothing else.
    waiting = page.locator("#export-rounds tr[data-status='unverifiable']")
    assert waiting.count() == 1
    assert ann.errors == [] and bob.errors == [] and errors == [[], []]
