"""Responsible gaming in the browser: the page sets a limit, the table hits it and shows the
refusal, and the reality-check dialog opens when the server says one is due. The server runs
with its clock shifted by a file (tests/server/apps.py ``shifted``), so no test waits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli

from ..harness import http
from .webtools import Player, Shifted, fresh_table, open_table, place, shifted_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def shifted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shifted]:
    with shifted_server(tmp_path_factory.mktemp("rg-web")) as server:
        yield server


def funded(player: Player, shifted: Shifted) -> Player:
    """The new player, logged in, with $100.00 of real money."""
    assert cli(["admin", "--data-dir", str(shifted.data), "deposit", player.nickname,
                "100.00"]) == 0  # fmt: skip
    return player


def test_a_player_sets_a_limit_hits_it_and_answers_a_reality_check(
    make_player: Any, shifted: Shifted, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    player = funded(make_player(at=shifted.url), shifted)
    page = player.page
    player.goto("responsible")
    page.fill("#limit-wager-day", "10.00")
    page.click('[data-action="save-limits"]')
    page.wait_for_function(
        "() => document.querySelector('[data-usage=wager_day]').textContent === '$0.00 of $10.00'"
    )
    page.fill("#reality-minutes", "1")
    page.click('[data-action="save-reality"]')
    page.wait_for_function("() => document.querySelector('#reality-minutes').value === '1'")
    page.wait_for_selector("#session-clock:not([hidden])")
    assert re.fullmatch(r"\d+:\d\d:\d\d", page.text_content("#session-clock") or "")
    page.screenshot(path=str(screenshots / "responsible-page.jpg"), full_page=True)

    tables = http().get(f"{shifted.url}/api/tables").json()
    open_table(player, fresh_table(tables))
    page.click('.topbar [data-mode="real"]')
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    shifted.advance(61)
    with page.expect_response(lambda r: "/rounds" in r.url) as refused:
        page.click('[data-action="rebet-deal"]')
    assert refused.value.status == 409
    page.wait_for_selector("#reality-check[open]")
    assert re.fullmatch(
        r"You have been playing for 0:01:\d\d in this session\.",
        page.text_content('#reality-check [data-rg="played"]') or "",
    )
    net = page.text_content('#reality-check [data-rg="net"]') or ""
    assert re.fullmatch(r"Net result of this session: [+\u2212]?\$\d+\.\d\d\.", net), net
    assert page.text_content('#reality-check [data-rg="rounds"]') == "Rounds played: 1."
    page.wait_for_function(
        "() => /^0:01:/.test(document.querySelector('#session-clock').textContent)"
    )
    page.screenshot(path=str(screenshots / "responsible-reality-check.jpg"))
    page.click('#reality-check [data-rg="continue"]')
    page.wait_for_selector("#reality-check", state="detached")
    page.click('[data-action="deal"]')  # the refused bets are still on the felt
    player.wait_round()  # 10.00 wagered today: at the limit
    with page.expect_response(lambda r: "/rounds" in r.url) as limited:
        page.click('[data-action="rebet-deal"]')
    assert limited.value.status == 409
    prefix = catalogs["en"]["error.wager_limit_reached"].split("{")[0]
    page.wait_for_function(
        "p => document.querySelector('#table-message').textContent.startsWith(p)", arg=prefix
    )
    message = page.text_content("#table-message") or ""
    assert "(Daily) of $10.00: $0.00 left until" in message
    assert player.api("GET", "/api/responsible")["usage"]["day"]["wager"] == 1_000
    page.locator("#table-message").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "responsible-limit-reached.jpg"))
    assert player.errors == []


@pytest.mark.parametrize(
    ("action", "select", "spans", "unit"),
    [
        ("time-out", "#time-out-days", [1, 7, 30], "days"),
        ("self-exclusion", "#exclusion-months", [6, 12, 60], "months"),
    ],
)
def test_a_time_out_or_a_self_exclusion_is_asked_again_and_then_sent(
    make_player: Any,
    catalogs: dict[str, dict[str, str]],
    action: str,
    select: str,
    spans: list[int],
    unit: str,
) -> None:
    en = catalogs["en"]
    kind = action.replace("-", "_")
    player: Player = make_player()
    page = player.page
    sent: list[tuple[str, Any]] = []

    def note(request: Any) -> None:
        if request.method == "POST" and "/api/responsible" in request.url:
            sent.append((request.url, request.post_data_json))

    page.on("request", note)
    player.goto("responsible")
    page.wait_for_selector(f'[data-action="{action}"]')
    assert page.locator(f'label[for="{select[1:]}"]').text_content() == en[f"rg.{kind}"]
    assert page.text_content(f'[data-action="{action}"]') == en[f"rg.{kind}_button"]
    options = page.eval_on_selector_all(
        f"{select} option", "els => els.map((e) => [e.value, e.textContent])"
    )
    assert options == [[str(n), en[f"rg.{unit}_{n}"]] for n in spans]
    span = spans[1]
    page.select_option(select, str(span))
    # Asked again, in words; cancelled, nothing is sent.
    page.click(f'[data-action="{action}"]')
    dialog = page.locator("dialog#rg-confirm")
    assert dialog.locator("h2").text_content() == en[f"rg.{kind}"]
    span_text = en[f"rg.{unit}_{span}"]
    assert dialog.locator("p").first.text_content() == en[f"rg.{kind}_confirm"].replace(
        "{span}", span_text
    )
    page.click('[data-confirm="no"]')
    assert page.locator("dialog").count() == 0
    assert sent == []
    # Confirmed: the span chosen goes to the server and the page says the player is out.
    page.click(f'[data-action="{action}"]')
    page.click('[data-confirm="yes"]')
    page.wait_for_selector(f'[data-exclusion="{kind}"]')
    assert sent == [(f"{player.base_url}/api/responsible/{action}", {unit: span})]
    assert player.errors == []


def test_a_session_limit_the_session_has_passed_ends_play_now_and_says_until_when(
    make_player: Any, shifted: Shifted, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    en = catalogs["en"]
    player = funded(make_player(at=shifted.url, viewport={"width": 1280, "height": 720}), shifted)
    page = player.page
    shifted.advance(32 * 60)  # 32 minutes into the session
    player.goto("responsible")
    page.fill("#limit-session", "3")
    page.click('[data-action="save-limits"]')
    page.wait_for_selector("[data-session-ended]")
    session = player.api("GET", "/api/responsible")["session"]
    shown = page.evaluate(
        "times => import('/js/i18n.js').then((m) => times.map((t) => m.dateTime(t)))",
        [session["ends"], session["resumes"]],
    )
    ended, resumes = shown
    assert page.text_content("[data-rg-message]") == en["rg.session_ends_now"].replace(
        "{resumes}", resumes
    )
    assert page.text_content("[data-session-ended]") == en["rg.session_ended"].replace(
        "{ended}", ended
    ).replace("{resumes}", resumes)
    page.screenshot(path=str(screenshots / "responsible-session-ended-1280x720.jpg"))
    # At a table, a real-money round is refused with the time the break ends.
    tables = http().get(f"{shifted.url}/api/tables").json()
    open_table(player, fresh_table(tables))
    page.click('.topbar [data-mode="real"]')
    place(player, 500, "player")
    with page.expect_response(lambda r: "/rounds" in r.url) as refused:
        page.click('[data-action="deal"]')
    assert refused.value.status == 409
    expected = en["error.session_limit_reached"].replace("{ended}", ended)
    expected = expected.replace("{resumes}", resumes)
    page.wait_for_function(
        "text => document.querySelector('#table-message').textContent === text", arg=expected
    )
    assert player.errors == []


def test_the_lobby_of_a_player_in_a_time_out_says_so_and_offers_no_play_or_top_up(
    make_player: Any, screenshots: Path, catalogs: dict[str, dict[str, str]]
) -> None:
    player: Player = make_player(viewport={"width": 1280, "height": 720})
    page = player.page
    play = ".table-card .row .btn.primary"  # each open table's Play
    link = ".table-card .row a.btn.primary"
    player.goto("")
    page.wait_for_selector(link)
    assert page.is_enabled("#top-up") and page.locator("[data-exclusion]").count() == 0
    until = player.api("POST", "/api/responsible/time-out", {"days": 1})["exclusion"]["until"]
    player.goto("responsible")
    player.goto("")  # back to the lobby, as after taking the time-out
    note = page.wait_for_selector('[data-exclusion="time_out"]')
    shown = page.evaluate("t => import('/js/i18n.js').then((m) => m.dateTime(t))", until)
    assert catalogs["en"]["rg.excluded_time_out"].replace("{time}", shown) in note.inner_text()
    page.wait_for_selector(f"{play}[disabled]")
    assert page.locator(link).count() == 0
    plays = page.locator(play)
    assert plays.count() > 0 and all(not plays.nth(i).is_enabled() for i in range(plays.count()))
    assert not page.is_enabled("#top-up")
    page.screenshot(path=str(screenshots / "lobby-time-out-1280x720.jpg"))
    assert player.errors == []
