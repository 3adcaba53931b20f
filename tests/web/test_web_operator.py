"""A player of the demo operator: logs in there, presses "Play baccarat" and plays at our
table on the operator's wallet, with no login of ours (docs/operator-api.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ..harness import http
from ..operators.support import Pair, pair


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    with pair(tmp_path_factory.mktemp("web-operators")) as running:
        yield running


def operator_balance(both: Pair, player: str) -> int:
    players = both.admin("ledger", {})["players"]
    return int(next(balance for name, balance, *_ in players if name == player))


@contextmanager
def desktop_page(new_page: Any, both: Pair) -> Iterator[tuple[Any, list[str]]]:
    """A page on the game server at 1280x720 in English with reduced motion, and the errors
    it throws."""
    page = new_page(viewport={"width": 1280, "height": 720}, locale="en-US",
                    reduced_motion="reduce")  # fmt: skip
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page, errors


def usd(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def test_a_player_of_the_operator_plays_on_its_wallet(
    new_page: Any, both: Pair, screenshots: Path
) -> None:
    with desktop_page(new_page, both) as (page, errors):
        page.goto(both.operator.url + "/")
        page.select_option("select[name=player]", "heidi")
        page.click("text=Log in")
        page.click("text=Play baccarat")
        page.wait_for_selector("html[data-ready=true]")
        assert page.url.startswith(both.game.url + "/?lang=en&mode=real")
        page.wait_for_selector("body.logged-in")
        start = operator_balance(both, "heidi")
        real = '.topbar [data-mode="real"]'
        assert page.get_attribute(real, "aria-pressed") == "true"
        page.wait_for_function(
            "([s, v]) => document.querySelector(s + ' .amount').textContent === v",
            arg=[real, usd(start)],
        )
        page.evaluate("location.hash = '#/table/table-ii'")
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        page.click('[data-chip="500"]')
        page.click('[data-spot="banker"]')
        page.click('[data-action="deal"]')
        page.wait_for_selector('.table-view[data-phase="result"][data-busy="false"]')
        page.screenshot(path=str(screenshots / "operator-table-1280x720.jpg"))
        after = operator_balance(both, "heidi")
        assert after != start or both.report("player=heidi")[0]["win"] == 500
        page.wait_for_function(
            "v => document.querySelector('[data-meter=balance]').textContent === v",
            arg=usd(after),
        )
        assert not errors


def test_a_launch_opens_the_table_in_the_language_asked_for(
    new_page: Any, both: Pair, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    url = both.launch("ivan", language="sv", table="table-i").json()["url"]
    page = new_page(viewport={"width": 390, "height": 844}, locale="en-US")
    page.goto(url)
    page.wait_for_selector('.table-view[data-table="table-i"]')
    assert page.get_attribute("html", "lang") == "sv"
    label = page.text_content('.topbar [data-mode="real"] [data-i18n="mode.real"]')
    assert label == catalogs["sv"]["mode.real"]
    page.screenshot(path=str(screenshots / "operator-launch-sv-390x844.jpg"))


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (390, 844), (844, 390)])
def test_a_used_or_expired_game_link_shows_a_page_with_the_way_back(
    new_page: Any, both: Pair, screenshots: Path, catalogs: dict[str, dict[str, str]],
    size: tuple[int, int],
) -> None:  # fmt: skip
    language = {1280: "de", 1920: "en", 390: "sv", 844: "da"}[size[0]]
    launched = both.launch("ivan", language=language, table="table-i").json()
    used = http().post(f"{both.game.url}/api/sessions/launch", json={"code": launched["code"]})
    assert used.status_code == 201
    page = new_page(viewport={"width": size[0], "height": size[1]})
    opened = page.goto(launched["url"])  # the code is used: refused, in words
    assert opened is not None and opened.status == 401
    words = catalogs[language]
    assert page.text_content("h1") == words["launch.title"]
    assert words["launch.used"] in (page.text_content("main") or "")
    back = page.get_by_role("link", name=words["launch.back"])
    assert back.get_attribute("href") == "http://lobby.example/"
    box = back.bounding_box()
    assert box is not None and box["x"] + box["width"] <= size[0]  # nothing off the screen
    page.screenshot(path=str(screenshots / f"operator-link-used-{size[0]}x{size[1]}.jpg"))


def test_a_session_in_yen_shows_the_tables_chips_and_amounts_in_yen(
    new_page: Any, both: Pair, screenshots: Path
) -> None:
    url = both.launch("ivan", language="de", table="table-i", currency="JPY").json()["url"]
    page = new_page(viewport={"width": 844, "height": 390}, locale="de-DE")
    page.goto(url)
    page.wait_for_selector('.table-view[data-table="table-i"]')
    chips = [c.get_attribute("data-chip") for c in page.query_selector_all("[data-chip]")]
    assert [c for c in chips if c] == ["100", "500", "2500", "10000"]
    amount = page.text_content('.topbar [data-mode="real"] .amount') or ""
    assert "¥" in amount and "," not in amount  # yen have no minor digits
    page.screenshot(path=str(screenshots / "operator-yen-844x390.jpg"))


def test_a_session_opened_again_without_the_links_query_plays_the_operators_money(
    new_page: Any, both: Pair, screenshots: Path
) -> None:
    """The game's address without the launch link's ?mode=real (a bookmark, a reload of the
    lobby): still the operator's money, none of our own casino's tools (top-up, cashier,
    its account panel), and the way back to the operator's lobby."""
    url = both.launch("judy", table="table-ii").json()["url"]
    with desktop_page(new_page, both) as (page, errors):
        page.goto(url)
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        page.goto(both.game.url + "/#/")
        page.wait_for_selector("html[data-ready=true]")
        page.wait_for_selector(".panel.wallet")
        assert page.get_attribute('.topbar [data-mode="real"]', "aria-pressed") == "true"
        assert page.is_hidden('.topbar [data-mode="fun"]')
        assert [
            c.get_attribute("data-wallet") for c in page.query_selector_all("[data-wallet]")
        ] == ["real"]
        assert page.is_hidden("#top-up")
        assert page.locator('a[href="#/cashier"]:visible').count() == 0
        back = page.get_by_role("link", name="Back to your casino")
        assert back.get_attribute("href") == "http://lobby.example/"
        page.screenshot(path=str(screenshots / "operator-lobby-again-1280x720.jpg"))
        page.evaluate("location.hash = '#/cashier'")
        page.wait_for_selector(".panel.wallet")  # the lobby, not our cashier
        assert page.locator("[data-form=password], [data-action=logout-everywhere]").count() == 0
        page.evaluate("location.hash = '#/table/table-ii'")
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        assert page.locator('a[href="#/cashier"]:visible').count() == 0
        page.click('[data-chip="500"]')
        page.click('[data-spot="banker"]')
        page.click('[data-action="deal"]')
        page.wait_for_selector('.table-view[data-phase="result"][data-busy="false"]')
        (round_,) = [r for r in both.report("player=judy") if r["table"] == "table-ii"]
        assert round_["stake"] == 500  # played on the operator's wallet
        page.evaluate("location.hash = '#/history'")
        page.wait_for_selector("[data-open^=r_]")  # a round of the history, not the table
        page.wait_for_selector("[data-history-mode]")
        tabs = page.locator("[data-history-mode]").evaluate_all(
            "els => els.map(e => e.dataset.historyMode)"
        )
        assert tabs == ["real"]
        assert errors == []


def test_a_message_waiting_when_the_page_opens_is_shown_at_once(new_page: Any, both: Pair) -> None:
    """A message that came with an answer the page did not see (another tab's, or the win
    of a round already shown) is shown when the page opens, not at the next bet."""
    url = both.launch("niaj", table="table-ii").json()["url"]
    text = "You have been playing for 30 minutes."
    with desktop_page(new_page, both) as (page, errors):
        page.goto(url)
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        both.admin("message", {"player": "niaj", "text": text, "choices": ["continue"]})
        # Another tab of the session asks for its balance: the operator's answer carries it.
        seen = page.request.get(f"{both.game.url}/api/operator/session").json()
        assert seen["operator_message"]["text"] == text
        page.reload()
        dialog = page.get_by_role("dialog", name="A message from your casino")
        dialog.wait_for()
        assert page.text_content("#operator-message-text") == text
        dialog.get_by_role("button", name="Continue playing").click()
        dialog.wait_for(state="detached")
        with page.expect_response(lambda r: "/api/operator/session" in r.url) as asked:
            page.reload()
        assert "operator_message" not in asked.value.json()  # answered: not asked again
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        assert page.locator("#operator-message").count() == 0
        assert errors == []


def test_the_operators_message_and_its_limit_refusal_reach_the_player(
    new_page: Any, both: Pair, screenshots: Path
) -> None:
    """A reality check the operator attached to its wallet's answer is shown in a dialog
    with its choices, and the choice goes back to the operator; a bet the operator refuses
    for the player's gambling limit says so, in the operator's words."""
    url = both.launch("mallory", table="table-ii").json()["url"]
    text = "You have been playing for 60 minutes. You have lost $12.00."
    with desktop_page(new_page, both) as (page, errors):
        # Left once the page has asked for its balance: it comes with the bet's answer.
        with page.expect_response(lambda r: "/api/operator/session" in r.url):
            page.goto(url)
        page.wait_for_selector('.table-view[data-table="table-ii"]')
        both.admin("message", {"player": "mallory", "text": text,
                               "choices": ["continue", "close", "view_history"]})  # fmt: skip
        page.click('[data-chip="500"]')
        page.click('[data-spot="banker"]')
        page.click('[data-action="deal"]')
        dialog = page.get_by_role("dialog", name="A message from your casino")
        dialog.wait_for()
        assert page.text_content("#operator-message-text") == text
        buttons = dialog.get_by_role("button")
        assert buttons.all_text_contents() == ["Continue playing", "Close the game",
                                               "View history"]  # fmt: skip
        assert page.evaluate("document.activeElement.dataset.choice") == "continue"
        page.screenshot(path=str(screenshots / "operator-message-1280x720.jpg"))
        page.set_viewport_size({"width": 390, "height": 844})
        box = dialog.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        page.screenshot(path=str(screenshots / "operator-message-390x844.jpg"))
        page.keyboard.press("Escape")  # a choice is asked for: Esc does not put it away
        assert dialog.is_visible()
        dialog.get_by_role("button", name="Continue playing").click()
        dialog.wait_for(state="detached")
        assert [m["choice"] for m in both.admin("ledger", {})["messages"]
                if m["player"] == "mallory"] == ["continue"]  # fmt: skip

        reason = "You have reached the daily loss limit you set: $20.00."
        both.admin("limit", {"player": "mallory", "reason": reason})
        try:
            page.wait_for_selector('.table-view[data-busy="false"]')
            page.click('[data-action="new"]')
            page.click('[data-chip="500"]')
            page.click('[data-spot="banker"]')
            page.click('[data-action="deal"]')
            message = page.locator('#table-message[data-kind="error"]')
            message.wait_for()
            said = message.text_content() or ""
            assert said.startswith("Your casino stopped this bet under your gambling limits.")
            assert said.endswith(reason)
            page.screenshot(path=str(screenshots / "operator-limit-390x844.jpg"))
            page.set_viewport_size({"width": 1280, "height": 720})
            page.screenshot(path=str(screenshots / "operator-limit-1280x720.jpg"))
        finally:
            both.admin("limit", {"player": "mallory", "reason": None})
        assert errors == []
