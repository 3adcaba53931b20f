"""The house table's buttons follow what the server allows (GET /api/tables/{id}/state and
each round's ``allowed_actions``), the pre-check of the bets uses only the rules the API
gives, the server's refusal is always shown, and the felt's pays are the API's pay tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from .webtools import (
    Player,
    altered_tables,
    console_errors,
    fresh_table,
    is_state,
    open_table,
    place,
    stack_total,
    table_of,
    usd,
)

pytestmark = pytest.mark.browser

BUTTONS = ("undo", "clear", "double", "rebet", "deal", "double-deal", "rebet-deal", "new")


def enabled(player: Player) -> set[str]:
    """The table's buttons that may be pressed now."""
    return {name for name in BUTTONS if player.page.is_enabled(f'[data-action="{name}"]')}


def wait_enabled(player: Player, expected: set[str]) -> None:
    """Wait until exactly ``expected`` of the table's buttons may be pressed."""
    try:
        player.page.wait_for_function(
            """names => [...document.querySelectorAll('.controls [data-action]')]
                .filter(b => !b.disabled).map(b => b.dataset.action).sort().join(' ')
                === names""",
            arg=" ".join(sorted(expected)),
            timeout=5000,
        )
    except Exception as error:
        raise AssertionError(f"{enabled(player)} are enabled, not {expected}") from error


def without(*actions: str) -> Callable[[Any], None]:
    """A route handler: the server's answer with ``actions`` left out of allowed_actions."""

    def handle(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        body["allowed_actions"] = [a for a in body["allowed_actions"] if a not in actions]
        route.fulfill(response=response, json=body)

    return handle


def focus(player: Player) -> None:
    """The page regains focus: the table asks the server again where the player stands."""
    with player.page.expect_response(lambda r: is_state(r.url), timeout=5000):
        player.page.evaluate("window.dispatchEvent(new Event('focus'))")


def history(player: Player) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = player.api("GET", "/api/history?mode=fun&limit=5")["items"]
    return items


def test_the_buttons_follow_the_actions_the_server_allows(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    open_table(player, table)
    # No round yet: the server allows a deal; the page needs bets on its felt for it.
    wait_enabled(player, set())
    place(player, 500, "player")
    wait_enabled(player, {"undo", "clear", "double", "deal", "double-deal", "new"})

    page.click('[data-action="deal"]')
    player.wait_round()
    # After the round, the round's answer says what may be done: here everything but a
    # deal, which needs new bets on the felt.
    wait_enabled(player, {"double", "rebet", "double-deal", "rebet-deal", "new"})

    # The server no longer allows a rebet (its limits or the balance changed elsewhere):
    # REBET and REBET AND DEAL follow it when the page regains focus.
    page.route(is_state, without("rebet"))
    focus(player)
    wait_enabled(player, {"double", "double-deal", "new"})
    # Nor a deal: chips may go on the felt, but DEAL waits for the server.
    page.unroute(is_state)
    page.route(is_state, without("deal", "rebet", "double"))
    focus(player)
    wait_enabled(player, {"new"})
    place(player, 500, "banker")
    wait_enabled(player, {"undo", "clear", "double", "new"})
    page.unroute(is_state)
    focus(player)
    wait_enabled(player, {"undo", "clear", "double", "deal", "rebet", "double-deal",
                          "rebet-deal", "new"})  # fmt: skip
    assert page.get_attribute(".table-view", "data-allowed") == "deal rebet double new_game"
    assert len(history(player)) == 1
    assert errors == [] and player.errors == []


def test_a_rounds_answer_says_what_may_be_done_after_it(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    open_table(player, table)
    page.route("**/api/tables/*/rounds", without("rebet", "new_game"))
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    # No REBET, REBET AND DEAL or NEW GAME: the answer did not allow them.
    assert enabled(player) == {"double", "double-deal"}
    assert page.get_attribute(".table-view", "data-allowed") == "deal double"
    assert errors == [] and player.errors == []


def test_the_cut_follows_the_server(make_player: Any, tables: list[dict[str, Any]]) -> None:
    """At a cut-shoe table, the round's answer says a new shoe waits for the cut (the cut
    card came out): no deal then; the cut is offered once the round is cleared."""
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    mini = next(t for t in tables if t["id"] == "mini")
    player.api("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 200})

    def cut_due(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        body["allowed_actions"] = [a for a in body["allowed_actions"] if a != "deal"] + ["cut"]
        route.fulfill(response=response, json=body)

    page.route("**/api/tables/*/rounds", cut_due)
    open_table(player, mini)
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    wait_enabled(player, {"double", "rebet", "new"})
    assert page.locator(".cut-panel").count() == 0
    page.click('[data-action="new"]')
    page.wait_for_selector(".table-view.cut-due .cut-panel", timeout=5000)
    # The server's own state (its shoe is not due): the deal is back, the cut gone.
    focus(player)
    page.wait_for_selector(".cut-panel", state="detached", timeout=5000)
    wait_enabled(player, {"double", "rebet", "double-deal", "rebet-deal"})
    assert errors == [] and player.errors == []


def test_a_reload_shows_the_last_round_and_rebet_from_the_servers_state(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "banker")
    place(player, 500, "tie")
    page.click('[data-action="deal"]')
    player.wait_round()
    (round_,) = history(player)

    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/history" in r.url else None)
    page.reload()
    page.wait_for_selector(f'.table-view[data-round="{round_["id"]}"][data-phase="result"]')
    # The round comes from the table's state, not from the history.
    assert not [url for url in asked if "limit=1" in url]
    cards = page.locator('[data-cards="banker"] [data-card]').evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    assert cards == round_["banker"]["cards"]
    assert page.get_attribute(".felt", "data-winner") == round_["winner"]
    assert player.meter("win") == usd(round_["win"])
    assert {"rebet", "rebet-deal", "new"} <= enabled(player)
    page.click('[data-action="rebet"]')
    assert page.get_attribute(".table-view", "data-phase") == "betting"
    assert [stack_total(player, s) for s in ("player", "banker", "tie")] == [
        "",
        usd(500),
        usd(500),
    ]
    assert player.meter("bet") == usd(1000)

    # The same reload, with a server that does not allow the rebet: REBET stays disabled
    # though the last round is on the felt.
    page.route(is_state, without("rebet", "double"))
    page.reload()
    page.wait_for_selector(f'.table-view[data-round="{round_["id"]}"]')
    wait_enabled(player, {"new"})
    assert page.get_attribute(".table-view", "data-allowed") == "deal new_game"

    # Another mode is another wallet: its own state (no round in real money yet).
    page.unroute(is_state)
    page.click('.topbar [data-mode="real"]')
    page.wait_for_selector('.table-view[data-allowed="deal"]:not([data-round])')
    assert enabled(player) == set()
    page.click('.topbar [data-mode="fun"]')
    page.wait_for_selector(f'.table-view[data-round="{round_["id"]}"][data-allowed~="rebet"]')
    assert errors == [] and player.errors == []


REFUSALS = {
    "insufficient_funds": (
        409,
        {
            "code": "insufficient_funds",
            "message": "insufficient funds: the bets total $5.00, the balance is $3.00",
            "details": {"balance": 300, "stake": 500},
        },
    ),
    "a_code_the_page_does_not_know": (
        409,
        {"code": "table_closed", "message": "this table is closed for the night", "details": {}},
    ),
}


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_a_deal_the_pre_check_lets_through_but_the_server_refuses_is_explained(
    make_player: Any,
    tables: list[dict[str, Any]],
    catalogs: dict[str, dict[str, str]],
    refusal: str,
) -> None:
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    status, error = REFUSALS[refusal]
    open_table(player, table)
    before = player.api("GET", "/api/wallet")
    page.route(
        "**/api/tables/*/rounds",
        lambda route: route.fulfill(status=status, json={"error": error}),
    )
    place(player, 500, "player")
    with page.expect_response(lambda r: "/rounds" in r.url) as answer:
        page.click('[data-action="deal"]')
    assert answer.value.status == status
    if error["code"] == "insufficient_funds":
        expected = catalogs["en"][f"error.{error['code']}"]
    else:
        expected = catalogs["en"]["error.generic"].format(
            code=error["code"], message=error["message"]
        )
    page.wait_for_function(
        "text => document.querySelector('#table-message').textContent === text",
        arg=expected,
        timeout=5000,
    )
    assert page.get_attribute("#table-message", "data-kind") == "error"
    # Nothing moved: the chips are still on the felt, the balance is the server's.
    assert page.get_attribute(".table-view", "data-phase") == "betting"
    assert stack_total(player, "player") == usd(500)
    assert player.meter("bet") == usd(500)
    assert player.meter("balance") == usd(before["fun"] - 500)
    assert player.api("GET", "/api/wallet") == before
    assert history(player) == []
    assert page.is_enabled('[data-action="deal"]')
    assert errors == [] and player.errors == []


def test_the_pre_check_uses_the_apis_rules_and_the_server_has_the_last_word(
    make_player: Any, tables: list[dict[str, Any]], catalogs: dict[str, dict[str, str]]
) -> None:
    """With GET /api/tables altered, the page pre-checks by what it says; the server, which
    the alteration does not reach, refuses by its own rules, and the page shows that."""
    player: Player = make_player()
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    bets = table["bets"]
    assert bets["player"]["max"] < 2500 and 2500 in table["chips"]
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)

    def change(tbl: dict[str, Any]) -> None:
        if tbl["id"] == table["id"]:
            tbl["bets"]["player"]["max"] = bets["player"]["max"] * 10  # above the server's
            tbl["bets"]["banker"]["min"] = 1000  # ... and a banker minimum above it
            tbl["bets"]["tie"]["unit"] = 1000

    altered_tables(page, change)
    open_table(player, table)
    before = player.api("GET", "/api/wallet")

    # The API's banker minimum and the tie's unit, not tbl.limits, are checked: nothing is sent.
    place(player, 500, "banker")
    assert page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(page.text_content("#table-message"))
    assert "BANKER" in message and usd(1000) in message and "minimum" in message
    page.click('[data-action="clear"]')
    place(player, 500, "tie")
    assert page.is_disabled('[data-action="deal"]')  # said before DEAL, which is off
    message = str(page.text_content("#table-message"))
    assert "TIE" in message and usd(1000) in message and "multiples" in message
    page.wait_for_timeout(200)
    assert not [url for url in sent if "/rounds" in url]

    # A player bet above the server's maximum passes the pre-check; the server refuses it.
    page.click('[data-action="clear"]')
    place(player, 2500, "player")
    with page.expect_response(lambda r: "/rounds" in r.url) as answer:
        page.click('[data-action="deal"]')
    assert answer.value.status == 422
    page.wait_for_function(
        "text => document.querySelector('#table-message').textContent === text",
        arg=catalogs["en"]["error.bet_above_table_max"],
        timeout=5000,
    )
    assert stack_total(player, "player") == usd(2500)
    assert player.api("GET", "/api/wallet") == before
    assert history(player) == []
    assert errors == [] and player.errors == []


def headline(bet: dict[str, Any]) -> str:
    """The headline pay of an API pay table as the felt writes it ("19/20" -> "19:20")."""
    pays = bet["pays"]
    paid = [pay for pay in pays.values() if pay != "push"]
    pay = pays["win"] if "win" in pays else max(paid, key=Fraction)
    return pay.replace("/", ":") if "/" in pay else f"{pay}:1"


def felt_pays(player: Player) -> dict[str, str]:
    page = player.page
    shown = {
        spot: str(page.text_content(f'[data-spot="{spot}"] .spot-pays'))
        for spot in ("player", "banker", "tie")
    }
    shown["rule"] = str(page.text_content(".felt-rule"))
    return shown


@pytest.mark.parametrize("alter", [False, True], ids=["as-served", "rule-fields-gone"])
def test_the_main_spots_pays_are_the_tables_pay_tables(
    make_player: Any, tables: list[dict[str, Any]], alter: bool
) -> None:
    player: Player = make_player()
    errors = console_errors(player)
    if alter:
        # The rule set's own pay fields go: the felt needs only the pay tables.
        def change(tbl: dict[str, Any]) -> None:
            for field in ("player_pays", "banker_pays", "banker_commission", "tie_pays"):
                tbl["rules"].pop(field, None)

        altered_tables(player.page, change)
    expected = {"ez": ("1:1", "1:1", "8:1"), "no-commission": ("1:1", "1:1", "8:1"),
                "table-i": ("1:1", "19:20", "9:1")}  # fmt: skip
    for table_id, (p, b, t) in expected.items():
        table = table_of(tables, table_id)
        assert [headline(table["bets"][s]) for s in ("player", "banker", "tie")] == [p, b, t]
        open_table(player, table)
        assert felt_pays(player) == {
            "player": f"pays {p}",
            "banker": f"pays {b}",
            "tie": f"pays {t}",
            "rule": f"Banker pays {b} · Tie pays {t} · Natural 8 or 9 stands",
        }, table_id
    assert errors == [] and player.errors == []


def test_the_felt_shows_a_pay_table_the_rules_fields_do_not(
    make_player: Any, tables: list[dict[str, Any]]
) -> None:
    """A pay table whose headline differs from the rule set's fields: the felt shows the
    pay table's (the lines a bet may have beside "win" are not its headline)."""
    player: Player = make_player()
    errors = console_errors(player)
    ez = table_of(tables, "ez")

    def change(tbl: dict[str, Any]) -> None:
        if tbl["id"] == "ez":
            tbl["bets"]["banker"]["pays"] = {"win": "19/20", "win_three_card_7": "push",
                                             "tie": "push"}  # fmt: skip
            tbl["bets"]["tie"]["pays"] = {"tie": "9"}

    altered_tables(player.page, change)
    open_table(player, ez)
    assert ez["rules"]["banker_commission"] == "0" and ez["rules"]["tie_pays"] == "8"
    shown = felt_pays(player)
    assert (shown["banker"], shown["tie"]) == ("pays 19:20", "pays 9:1"), json.dumps(shown)
    assert errors == [] and player.errors == []


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
def test_the_table_after_a_round(
    make_player: Any, tables: list[dict[str, Any]], screenshots: Path, width: int, height: int
) -> None:
    phone = width < 900
    player: Player = make_player(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = player.page
    errors = console_errors(player)
    table = fresh_table(tables)
    open_table(player, table)
    place(player, 500, "player")
    place(player, 500, "tie")
    page.click('[data-action="deal"]')
    player.wait_round()
    assert {"rebet", "rebet-deal", "double", "double-deal", "new"} <= enabled(player)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(screenshots / f"table-after-round-{width}x{height}.jpg"))
    assert errors == [] and player.errors == []
