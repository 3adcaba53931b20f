"""The account panel of the cashier page: the sessions, a password change that ends the
other sessions, and log out everywhere."""

from __future__ import annotations

from typing import Any

import pytest

from .webtools import PASSWORD, Player

pytestmark = pytest.mark.browser


def test_the_account_panel_lists_sessions_changes_the_password_and_logs_out_everywhere(
    make_player: Any, tmp_path: Any
) -> None:
    player: Player = make_player()
    page = player.page
    # A second session of the same player (another device).
    other = player.context.browser.new_context()
    try:
        body = {"nickname": player.nickname, "password": PASSWORD}
        logged = other.request.post(f"{player.base_url}/api/sessions", data=body)
        assert logged.ok, logged.text()
        player.goto("cashier")
        page.wait_for_selector("[data-panel=sessions] [data-session]")
        assert page.locator("[data-panel=sessions] [data-session]").count() == 2
        listed = str(page.text_content("[data-panel=sessions]"))
        assert "this one" in listed and "null" not in listed
        page.screenshot(path=str(tmp_path / "account.jpg"), full_page=True)

        page.fill("#password-current", PASSWORD)
        page.fill("#password-new", "a brand new secret")
        page.click('[data-form="password"] button[type="submit"]')
        page.wait_for_function(
            "() => document.querySelector('[data-message=password]').textContent.length > 0"
        )
        assert "other sessions have ended" in str(page.text_content("[data-message=password]"))
        assert other.request.get(f"{player.base_url}/api/me").status == 401
        assert player.api("GET", "/api/me")["nickname"] == player.nickname

        page.click("[data-action=logout-everywhere]")
        page.wait_for_function("() => location.hash === '#/'")
        gone = player.context.request.get(f"{player.base_url}/api/me")
        assert gone.status == 401
        assert player.errors == []
    finally:
        other.close()
