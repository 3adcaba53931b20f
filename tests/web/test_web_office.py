"""The back office in Chromium at 1280x720, 1920x1080 and on phones (390x844, 844x390):
staff login with a TOTP code, every page its role may open (screenshots in
test-artifacts/screenshots) with nothing wider than the screen, the console clean, a
support agent's page without what their role may not see, an admin administering staff
and a member changing their own password."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main

from .webtools import serving

pytestmark = pytest.mark.browser
PASSWORD = "staff password 1"
VIEWPORTS = [(1280, 720), (1920, 1080), (390, 844), (844, 390)]
PAGES = ["reports", "players", "rounds", "voids", "cashier", "tables", "events", "staff",
         "account"]  # fmt: skip
# The page wider than the screen, in CSS pixels (0: nothing is cut off or scrolls sideways;
# a wide table scrolls inside its own box).
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with a player who played, a pending deposit, an admin, a support agent and
    two finance members (one to be administered, one to change their own password)."""
    import httpx

    data = tmp_path_factory.mktemp("office")
    with serving(data) as url:
        staff = {}
        for name, role in (("ada", "admin"), ("sam", "support"), ("fin", "finance"),
                           ("fay", "viewer")):  # fmt: skip
            stdin, stdout = io.StringIO(PASSWORD + "\n"), io.StringIO()
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr("sys.stdin", stdin)
                patch.setattr("sys.stdout", stdout)
                argv = ["admin", "--database", f"sqlite:///{data / 'web.db'}", "staff",
                        "create", name, "--role", role, "--password-stdin", "--json"]  # fmt: skip
                assert main(argv) == 0
            staff[name] = json.loads(stdout.getvalue())
        with httpx.Client(base_url=url) as client:
            body = {"nickname": "alice", "password": "a good password"}
            assert client.post("/api/accounts", json=body).status_code == 201
            token = client.post("/api/sessions", json=body).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            for key in range(6):
                played = client.post(
                    "/api/tables/table-i/rounds", json={"mode": "fun", "bets": {"banker": 500}},
                    headers=auth | {"Idempotency-Key": f"k{key}"},
                )  # fmt: skip
                assert played.status_code == 201, played.text
            deposit = client.post("/api/wallet/deposits", json={"amount": 10_000},
                                  headers=auth | {"Idempotency-Key": "d1"})  # fmt: skip
            assert deposit.status_code == 201
            limits = {"loss": {"day": 5_000}, "wager": {"week": 20_000}, "session_minutes": 90}
            assert client.put("/api/responsible/limits", json=limits, headers=auth).is_success
            _play_around(client)
        yield {"url": url, "staff": staff, "codes": {n: list(s["recovery_codes"])
                                                      for n, s in staff.items()}}  # fmt: skip


def _play_around(client: Any) -> None:
    """Another player's rounds at a table of many side bets and a few others, and two rounds
    at a player-banked table: reports of many rows and of both bankers."""
    tokens = {}
    for nickname in ("bobby", "carol", "dave"):
        body = {"nickname": nickname, "password": "a good password"}
        assert client.post("/api/accounts", json=body).status_code == 201
        tokens[nickname] = {
            "Authorization": f"Bearer {client.post('/api/sessions', json=body).json()['token']}"
        }
    side = {"banker": 500, "big": 500} | dict.fromkeys(
        ("player_pair", "banker_pair", "either_pair", "perfect_pair", "player_dragon",
         "banker_dragon"), 100,
    )  # fmt: skip
    rounds = [
        ("deluxe", side), ("ez", {"player": 500, "dragon7": 100, "panda8": 100}),
        ("no-commission", {"banker": 500, "super6": 100}),
        ("table-ii", {"player": 500, "tie": 500}), ("table-iii", {"banker": 2_500}),
    ]  # fmt: skip
    for key, (table_id, bets) in enumerate(rounds):
        played = client.post(f"/api/tables/{table_id}/rounds", json={"mode": "fun", "bets": bets},
                             headers=tokens["bobby"] | {"Idempotency-Key": f"b{key}"})  # fmt: skip
        assert played.status_code == 201, played.text
    seat = {"table_id": "banked-i", "mode": "fun"}
    joined = client.post("/api/seats", json=seat | {"role": "banker", "auto_approve": True},
                         headers=tokens["carol"])  # fmt: skip
    assert joined.status_code == 201, joined.text
    seat_id = client.post("/api/seats", json=seat | {"role": "player"},
                          headers=tokens["dave"]).json()["seat"]["id"]  # fmt: skip
    for key in range(2):
        dealt = client.post(f"/api/seats/{seat_id}/deal", json={"bets": {"player": 1_000}},
                            headers=tokens["dave"] | {"Idempotency-Key": f"s{key}"})  # fmt: skip
        assert dealt.status_code == 201, dealt.text


def open_office(browser: Any, office: dict[str, Any], name: str, size: tuple[int, int]) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.problems = problems
    page.goto(f"{office['url']}/admin/")
    page.wait_for_selector("#office-login:not([hidden])")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    # A recovery code: each login of the test needs a code of its own.
    page.fill("input[name=code]", office["codes"][name].pop())
    page.click("#office-login-form button[type=submit]")
    page.wait_for_selector("#office-nav:not([hidden]) a")
    return page


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_back_office_page_of_an_admin_draws_with_a_clean_console(
    browser: Any, office: dict[str, Any], size: tuple[int, int], screenshots: Path
) -> None:
    page = open_office(browser, office, "ada", size)
    nav = [link.get_attribute("data-page") for link in page.query_selector_all("#office-nav a")]
    assert nav == PAGES
    page.wait_for_selector(
        '#office-view[data-page="reports"][data-ready="true"] .chart canvas'
    )  # the GGR chart (uPlot, from our own files)
    assert page.query_selector_all("h2 a[download]")  # every report table has its CSV link
    for name in PAGES:
        page.goto(f"{office['url']}/admin/#{name}")
        page.wait_for_selector(f'#office-view[data-page="{name}"][data-ready="true"]')
        if name == "players":
            page.fill("input[name=q]", "alice")
            page.click("#office-view form button[type=submit]")
            page.wait_for_selector(".recall-round .card")
            page.screenshot(path=str(screenshots / f"office-player-{size[0]}x{size[1]}.png"),
                            full_page=True)  # fmt: skip
            rounds = page.query_selector_all(".recall-round")
            assert len(rounds) == 6
            verify = rounds[0].query_selector("a[href^='/verify.html?']")
            assert verify is not None
        if name == "cashier":
            page.wait_for_selector("td >> text=alice")
        if name == "tables":
            page.wait_for_selector("text=Close table")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(screenshots / f"office-{name}-{size[0]}x{size[1]}.png"),
                        full_page=True)  # fmt: skip
        assert page.evaluate(OVERFLOW) <= 0, (name, size)
    assert page.problems == []
    page.context.close()


def test_a_support_agent_sees_players_and_rounds_but_no_reports_or_cashier(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(browser, office, "sam", (1280, 720))
    nav = [link.get_attribute("data-page") for link in page.query_selector_all("#office-nav a")]
    assert nav == ["players", "rounds", "voids", "tables", "events", "account"]
    page.goto(f"{office['url']}/admin/#cashier")  # not theirs: the first page of theirs
    page.wait_for_selector('#office-view[data-page="players"][data-ready="true"]')
    page.goto(f"{office['url']}/admin/#tables")
    page.wait_for_selector('#office-view[data-page="tables"][data-ready="true"] table')
    assert page.query_selector("text=Close table") is None  # no kill switch for support
    page.screenshot(path=str(screenshots / "office-support-tables-1280x720.png"))
    assert page.problems == []
    page.context.close()


def test_an_admin_disables_and_resets_a_staff_account_on_the_staff_page(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    size = (390, 844)  # on a phone: the forms stacked (the page at 1280 and 1920: above)
    page = open_office(browser, office, "ada", size)
    page.goto(f"{office['url']}/admin/#staff")
    page.wait_for_selector('#office-view[data-page="staff"][data-ready="true"]')
    page.select_option("select[name=staff]", "fin")
    manage = page.locator(".office-manage")
    role = manage.locator("form", has=page.locator("button", has_text="Set role"))
    role.locator("select[name=role]").select_option("viewer")
    role.locator("input[name=reason]").fill("moved teams")
    role.locator("button").click()
    page.wait_for_selector("select[name=staff] option:text-is('fin (viewer)')", state="attached")
    disable = manage.locator("form", has=page.locator("button", has_text="Disable"))
    disable.locator("input[name=reason]").fill("on leave")
    disable.locator("button").click()
    page.wait_for_selector("td >> text=disabled")
    # Disabling it again is refused with the server's message, on the form.
    disable.locator("input[name=reason]").fill("again")
    disable.locator("button").click()
    page.wait_for_selector(".office-manage .office-error >> text=disabled already")
    enable = manage.locator("form", has=page.locator("button", has_text="Enable"))
    enable.locator("input[name=reason]").fill("back")
    enable.locator("button").click()
    page.wait_for_selector("td >> text=staff_enabled")
    reset = manage.locator("form", has=page.locator("button", has_text="Reset second factor"))
    reset.locator("input[name=reason]").fill("lost phone")
    reset.locator("button").click()
    page.wait_for_selector(".office-once dd >> text=otpauth://")
    codes = page.locator(".office-once dd").nth(2).inner_text().split()
    assert len(codes) == 10
    office["codes"]["fin"] = codes  # the old ones no longer work
    # The admin who is the last one cannot demote herself.
    page.select_option("select[name=staff]", "ada")
    role.locator("select[name=role]").select_option("viewer")
    role.locator("input[name=reason]").fill("test")
    role.locator("button").click()
    page.wait_for_selector(".office-manage .office-error >> text=last active admin")
    page.screenshot(path=str(screenshots / f"office-staff-admin-{size[0]}x{size[1]}.png"),
                    full_page=True)  # fmt: skip
    assert page.evaluate(OVERFLOW) <= 0
    # The browser logs the two refusals asked for above (409); nothing else.
    refused = "Failed to load resource: the server responded with a status of 409 (Conflict)"
    assert page.problems == [refused, refused]
    page.context.close()


def test_a_member_changes_their_own_password(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(browser, office, "fay", (390, 844))
    page.goto(f"{office['url']}/admin/#account")
    page.wait_for_selector('#office-view[data-page="account"][data-ready="true"]')
    page.fill("input[name=current]", PASSWORD)
    page.fill("input[name=new]", "a brand new password")
    page.fill("input[name=again]", "a brand new passwort")
    page.click("text=Change password")
    page.wait_for_selector("text=The two new passwords differ.")
    page.fill("input[name=again]", "a brand new password")
    page.click("text=Change password")
    page.wait_for_selector("text=your other sessions have ended")
    page.screenshot(path=str(screenshots / "office-account-390x844.png"))
    page.goto(f"{office['url']}/admin/#events")  # still logged in
    page.wait_for_selector('#office-view[data-page="events"][data-ready="true"]')
    assert page.problems == []
    page.context.close()


# Every table of the reports page: its columns all within its box (none cut, no sideways
# scrolling) and no box of its own to scroll in (the page scrolls); the GGR column's right
# edge on the screen.
REPORT_TABLES = """() => [...document.querySelectorAll('#office-view .office-table-wrap')]
.map((wrap) => {
  const ggr = [...wrap.querySelectorAll('th')].find((th) => th.textContent === 'GGR');
  return {
    title: wrap.closest('section').querySelector('h2').firstChild.textContent,
    wider: wrap.scrollWidth - wrap.clientWidth,
    taller: wrap.scrollHeight - wrap.clientHeight,
    ggrRight: ggr ? ggr.getBoundingClientRect().right : null,
  };
})"""


def test_the_reports_show_every_column_of_their_tables_at_1280(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(browser, office, "fin", (1280, 720))
    page.wait_for_selector('#office-view[data-page="reports"][data-ready="true"]')
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(screenshots / "office-reports-1280x720.png"), full_page=True)
    shown = page.evaluate(REPORT_TABLES)
    titles = [t["title"] for t in shown]
    assert "By table" in titles and any(t.startswith("RTP") for t in titles), titles
    for table in shown:
        assert table["wider"] <= 0 and table["taller"] <= 0, table
        assert table["ggrRight"] is None or table["ggrRight"] <= 1280, table
    # The player-banked table's row: its banker a player, its GGR the casino's fees.
    row = page.locator(
        "section:has(h2:text-is('By table')) tr", has=page.locator("td >> text=banked-i")
    )
    assert row.locator("td[data-label=Banker]").inner_text() == "Player"
    assert (
        row.locator("td[data-label=GGR]").inner_text()
        == row.locator("td[data-label=Fees]").inner_text()
    )
    assert page.problems == []
    page.context.close()


def test_a_players_card_shows_their_limits_as_text(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(browser, office, "ada", (1280, 720))
    page.goto(f"{office['url']}/admin/#players")
    page.wait_for_selector('#office-view[data-page="players"][data-ready="true"]')
    page.fill("input[name=q]", "alice")
    page.click("#office-view form button[type=submit]")
    limits = page.wait_for_selector("[data-limits]")
    page.screenshot(path=str(screenshots / "office-player-limits-1280x720.png"))
    assert limits.inner_text().splitlines() == [
        "Deposits: no limit", "Net loss: $50.00 a day", "Wagered: $200.00 a week",
        "Session: 90 minutes",
    ]  # fmt: skip
    assert page.problems == []
    page.context.close()
