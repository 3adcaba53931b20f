"""The back office in Chromium at 1280x720 and 1920x1080: staff login with a TOTP code,
every page its role may open (screenshots in test-artifacts/screenshots), the console
clean, and a support agent's page without what their role may not see."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main

from .conftest import serving

pytestmark = pytest.mark.browser
PASSWORD = "staff password 1"
VIEWPORTS = [(1280, 720), (1920, 1080)]
PAGES = ["reports", "players", "rounds", "voids", "cashier", "tables", "events", "staff"]


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with a player who played, a pending deposit, an admin and a support agent."""
    import httpx

    data = tmp_path_factory.mktemp("office")
    with serving(data) as url:
        staff = {}
        for name, role in (("ada", "admin"), ("sam", "support")):
            stdin, stdout = io.StringIO(PASSWORD + "\n"), io.StringIO()
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr("sys.stdin", stdin)
                patch.setattr("sys.stdout", stdout)
                argv = ["admin", "--database", f"sqlite:///{data / 'web.db'}", "staff",
                        "create", name, "--role", role, "--password-stdin", "--json"]  # fmt: skip
                assert main(argv) == 0
            staff[role] = json.loads(stdout.getvalue())
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
        yield {"url": url, "staff": staff, "codes": {r: list(s["recovery_codes"])
                                                      for r, s in staff.items()}}  # fmt: skip


def open_office(browser: Any, office: dict[str, Any], role: str, size: tuple[int, int]) -> Any:
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
    name = office["staff"][role]["staff"]["name"]
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    # A recovery code: each login of the test needs a code of its own.
    page.fill("input[name=code]", office["codes"][role].pop())
    page.click("#office-login-form button[type=submit]")
    page.wait_for_selector("#office-nav:not([hidden]) a")
    return page


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_back_office_page_of_an_admin_draws_with_a_clean_console(
    browser: Any, office: dict[str, Any], size: tuple[int, int], screenshots: Path
) -> None:
    page = open_office(browser, office, "admin", size)
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
                        full_page=False)  # fmt: skip
    assert page.problems == []
    page.context.close()


def test_a_support_agent_sees_players_and_rounds_but_no_reports_or_cashier(
    browser: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(browser, office, "support", (1280, 720))
    nav = [link.get_attribute("data-page") for link in page.query_selector_all("#office-nav a")]
    assert nav == ["players", "rounds", "voids", "tables", "events"]
    page.goto(f"{office['url']}/admin/#cashier")  # not theirs: the first page of theirs
    page.wait_for_selector('#office-view[data-page="players"][data-ready="true"]')
    page.goto(f"{office['url']}/admin/#tables")
    page.wait_for_selector('#office-view[data-page="tables"][data-ready="true"] table')
    assert page.query_selector("text=Close table") is None  # no kill switch for support
    page.screenshot(path=str(screenshots / "office-support-tables-1280x720.png"))
    assert page.problems == []
    page.context.close()
