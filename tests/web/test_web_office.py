"""The back office in Chromium at 1280x720, 1920x1080 and on phones (390x844, 844x390):
staff login with a TOTP code, every page its role may open (screenshots in
test-artifacts/screenshots) with nothing wider than the screen, the console clean, axe-core
finding nothing (WCAG 2.1 A and AA) at 1280x720 and 390x844 in English and in German, no
English left in German, a support agent's page without what their role may not see, an admin
administering staff and a member changing their own password."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .audits import SIZES, axe, english_on, english_only
from .officetools import PASSWORD, fill_casino, log_in_as, open_office
from .webtools import serving

pytestmark = pytest.mark.browser
VIEWPORTS = [(1280, 720), (1920, 1080), (390, 844), (844, 390)]
PAGES = ["reports", "players", "rounds", "voids", "cashier", "tables", "events", "settings",
         "staff", "account"]  # fmt: skip
LOCALES = {"en": "en-US", "de": "de-DE"}
# Every page at every size in English; in German at the two sizes axe checks.
RUNS = [("en", size) for size in VIEWPORTS] + [("de", size) for size in SIZES]
# The page wider than the screen, in CSS pixels (0: nothing is cut off or scrolls sideways;
# a wide table scrolls inside its own box).
OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with a player who played, a pending deposit, a proposed void, an admin, a
    support agent and two finance members (one to be administered, one to change their own
    password): officetools.fill_casino."""
    data = tmp_path_factory.mktemp("office")
    with serving(data) as url:
        yield fill_casino(data, url)


@pytest.mark.parametrize(("lang", "size"), RUNS, ids=lambda v: v if isinstance(v, str) else
                         f"{v[0]}x{v[1]}")  # fmt: skip
def test_every_back_office_page_of_an_admin_draws_in_its_language_and_passes_axe(
    new_page: Any,
    office: dict[str, Any],
    lang: str,
    size: tuple[int, int],
    screenshots: Path,
    axe_source: Path,
    catalogs: dict[str, dict[str, str]],
    office_catalogs: dict[str, dict[str, str]],
) -> None:
    """Each page and state (the login, refused; the reports with data; a player's card and
    game recall; a round by id; a proposed void; a pending deposit; the tables; the events;
    the settings; the staff; the account): drawn whole on the screen, and where axe checks
    (1280x720, 390x844) nothing found, nor (in German) a word of English."""
    page = open_office(new_page, office, "ada", size, LOCALES[lang], log_in=False)
    assert page.evaluate("document.documentElement.lang") == lang
    both = {code: catalogs[code] | office_catalogs[code] for code in ("en", lang)}
    en_only = english_only(both[lang], both["en"]) if lang != "en" else set()
    found: list[str] = []
    tag = f"{size[0]}x{size[1]}" + ("" if lang == "en" else f"-{lang}")

    def check(where: str) -> None:
        # (Each page has its data in when it says it is ready: drawn two frames later.)
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(screenshots / f"office-{where}-{tag}.jpg"), full_page=True)
        assert page.evaluate(OVERFLOW) <= 0, (where, size)
        if size in SIZES:
            found.extend(f"{where}: {violation}" for violation in axe(page, axe_source))
        english = english_on(page, en_only)
        if english:
            found.append(f"{where}: English {english}")

    check("login")
    page.fill("input[name=name]", "nobody")
    page.fill("input[name=password]", "not the password")
    page.fill("input[name=code]", "000000")
    page.click("#office-login-form button[type=submit]")
    refused = both[lang]["office.error.invalid_credentials"]
    page.wait_for_selector(f"#office-login-error:text-is('{refused}')")
    check("login-refused")
    log_in_as(page, office, "ada")
    nav = [link.get_attribute("data-page") for link in page.query_selector_all("#office-nav a")]
    assert nav == PAGES
    page.wait_for_selector(
        '#office-view[data-page="reports"][data-ready="true"] .chart canvas'
    )  # the GGR chart (uPlot, from our own files)
    assert page.query_selector_all("h2 a[download]")  # every report table has its CSV link
    for name in PAGES:
        if name != "reports":  # (the reports are shown already, the first page)
            page.goto(f"{office['url']}/admin/#{name}")
        page.wait_for_selector(f'#office-view[data-page="{name}"][data-ready="true"]')
        assert page.title().startswith(both[lang][f"office.page.{name}"])
        if name == "players":
            page.fill("input[name=q]", "alice")
            page.click("#office-view form button[type=submit]")
            page.wait_for_selector(".recall-round .card")
            rounds = page.query_selector_all(".recall-round")
            assert len(rounds) == 6
            verify = rounds[0].query_selector("a[href^='/verify.html?']")
            assert verify is not None
        if name == "rounds":
            # A yen player's round is in yen (its stake of 500 yen), then the proposed one.
            page.fill("input[name=round]", office["yen_round"])
            page.click("#office-view form button[type=submit]")
            page.wait_for_selector(f'.recall-round[data-round="{office["yen_round"]}"]')
            stake = {"en": "¥500", "de": "500\xa0¥"}[lang]
            assert stake in str(page.text_content(".recall-round")), lang
            page.fill("input[name=round]", office["proposed"])
            page.click("#office-view form button[type=submit]")
            page.wait_for_selector(f'.recall-round[data-round="{office["proposed"]}"]')
        if name == "voids":
            page.wait_for_selector(f"td code:text-is('{office['proposed']}')")
        if name == "cashier":
            page.wait_for_selector("td >> text=alice")
            amounts = page.locator("#office-view tbody tr").evaluate_all(
                "rows => rows.map(r => [r.cells[1].textContent, r.cells[3].textContent])"
            )
            money = {"en": ("$100.00", "¥2,500"), "de": ("100,00\xa0$", "2.500\xa0¥")}[lang]
            assert sorted(amounts) == [["alice", money[0]], ["kenji", money[1]]], amounts
        if name == "tables":
            page.wait_for_selector(f"text={both[lang]['office.tables.close']}")
        check(name)
    assert found == [], "\n".join(found)
    # The browser logs the refused login asked for above (401); nothing else.
    assert page.problems == [
        "Failed to load resource: the server responded with a status of 401 (Unauthorized)"
    ]


def test_a_support_agent_sees_players_and_rounds_but_no_reports_or_cashier(
    new_page: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(new_page, office, "sam", (1280, 720))
    nav = [link.get_attribute("data-page") for link in page.query_selector_all("#office-nav a")]
    assert nav == ["players", "rounds", "voids", "tables", "events", "account"]
    page.goto(f"{office['url']}/admin/#cashier")  # not theirs: the first page of theirs
    page.wait_for_selector('#office-view[data-page="players"][data-ready="true"]')
    page.goto(f"{office['url']}/admin/#tables")
    page.wait_for_selector('#office-view[data-page="tables"][data-ready="true"] table')
    assert page.query_selector("text=Close table") is None  # no kill switch for support
    page.screenshot(path=str(screenshots / "office-support-tables-1280x720.jpg"))
    assert page.problems == []


def test_an_admin_disables_and_resets_a_staff_account_on_the_staff_page(
    new_page: Any, office: dict[str, Any], screenshots: Path
) -> None:
    size = (390, 844)  # on a phone: the forms stacked (the page at 1280 and 1920: above)
    page = open_office(new_page, office, "ada", size)
    page.goto(f"{office['url']}/admin/#staff")
    page.wait_for_selector('#office-view[data-page="staff"][data-ready="true"]')
    page.select_option("select[name=staff]", "fin")
    manage = page.locator(".office-manage")
    role = manage.locator("form", has=page.locator("button", has_text="Set role"))
    role.locator("select[name=role]").select_option("viewer")
    role.locator("input[name=reason]").fill("moved teams")
    role.locator("button").click()
    page.wait_for_selector("select[name=staff] option:text-is('fin (Viewer)')", state="attached")
    disable = manage.locator("form", has=page.locator("button", has_text="Disable"))
    disable.locator("input[name=reason]").fill("on leave")
    disable.locator("button").click()
    page.wait_for_selector("td >> text=disabled")
    # Disabling it again is refused, the refusal said on the form.
    disable.locator("input[name=reason]").fill("again")
    disable.locator("button").click()
    page.wait_for_selector(".office-manage .office-error >> text=like that already")
    enable = manage.locator("form", has=page.locator("button", has_text="Enable"))
    enable.locator("input[name=reason]").fill("back")
    enable.locator("button").click()
    page.wait_for_selector("td >> text=Account enabled")
    reset = manage.locator("form", has=page.locator("button", has_text="Reset second factor"))
    reset.locator("input[name=reason]").fill("lost phone")
    drawn = page.query_selector("select[name=staff]")
    reset.locator("button").click()
    page.wait_for_selector(".office-once dd >> text=otpauth://")
    # The new secret shows before the page reads its accounts again and draws its forms
    # anew: what is chosen and typed next must go into the new forms.
    page.wait_for_function("select => !select.isConnected", arg=drawn)
    codes = page.locator(".office-once dd").nth(2).inner_text().split()
    assert len(codes) == 10
    office["codes"]["fin"] = codes  # the old ones no longer work
    # The admin who is the last one cannot demote herself.
    page.select_option("select[name=staff]", "ada")
    role.locator("select[name=role]").select_option("viewer")
    role.locator("input[name=reason]").fill("test")
    role.locator("button").click()
    page.wait_for_selector(".office-manage .office-error >> text=last active admin")
    page.screenshot(path=str(screenshots / f"office-staff-admin-{size[0]}x{size[1]}.jpg"),
                    full_page=True)  # fmt: skip
    assert page.evaluate(OVERFLOW) <= 0
    # The browser logs the two refusals asked for above (409); nothing else.
    refused = "Failed to load resource: the server responded with a status of 409 (Conflict)"
    assert page.problems == [refused, refused]


def test_a_member_changes_their_own_password_in_the_language_they_choose(
    new_page: Any,
    office: dict[str, Any],
    screenshots: Path,
    office_catalogs: dict[str, dict[str, str]],
) -> None:
    """In Swedish, chosen in the header (the browser's language is English): the page and
    what it says after each try, and the choice kept for the next visit."""
    page = open_office(new_page, office, "fay", (390, 844))
    page.goto(f"{office['url']}/admin/#account")
    page.wait_for_selector('#office-view[data-page="account"][data-ready="true"]')
    sv = office_catalogs["sv"]
    page.select_option("#office-lang", "sv")
    page.wait_for_selector(f"#office-view h1:text-is('{sv['office.page.account']}')")
    assert page.evaluate("document.documentElement.lang") == "sv"
    assert page.inner_text("#office-logout") == sv["office.logout"]
    assert page.inner_text("#office-nav [aria-current=page]") == sv["office.page.account"]
    page.fill("input[name=current]", PASSWORD)
    page.fill("input[name=new]", "a brand new password")
    page.fill("input[name=again]", "a brand new passwort")
    page.click(f"text={sv['office.account.change']}")
    page.wait_for_selector(f"text={sv['office.account.differ']}")
    page.fill("input[name=again]", "a brand new password")
    page.click(f"text={sv['office.account.change']}")
    page.wait_for_selector(f"text={sv['office.account.changed']}")
    page.screenshot(path=str(screenshots / "office-account-390x844-sv.jpg"))
    page.goto(f"{office['url']}/admin/#events")  # still logged in, still in Swedish
    page.wait_for_selector('#office-view[data-page="events"][data-ready="true"]')
    assert page.inner_text("#office-view h1") == sv["office.events.title"]
    assert page.problems == []


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
    focusable: wrap.getAttribute('tabindex'),
  };
})"""


def test_the_reports_show_every_column_of_their_tables_at_1280(
    new_page: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(new_page, office, "fin", (1280, 720))
    page.wait_for_selector('#office-view[data-page="reports"][data-ready="true"]')
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(screenshots / "office-reports-1280x720.jpg"), full_page=True)
    shown = page.evaluate(REPORT_TABLES)
    titles = [t["title"] for t in shown]
    assert "By table" in titles and any(t.startswith("RTP") for t in titles), titles
    for table in shown:
        assert table["wider"] <= 0 and table["taller"] <= 0, table
        assert table["ggrRight"] is None or table["ggrRight"] <= 1280, table
        assert table["focusable"] is None, table  # no box to scroll: no stop for the keyboard
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


def test_a_report_table_wider_than_a_phone_is_a_named_region_the_keyboard_scrolls(
    new_page: Any, office: dict[str, Any]
) -> None:
    """At 390 wide the reports' tables scroll sideways in their boxes: each such box is
    reached with Tab, says which table it holds, and scrolls with the arrow keys."""
    page = open_office(new_page, office, "fin", (390, 844))
    page.wait_for_selector('#office-view[data-page="reports"][data-ready="true"]')
    page.wait_for_load_state("networkidle")
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.office-table-wrap')]
            .filter((box) => box.scrollWidth > box.clientWidth)
            .map((box) => [box.getAttribute('role'), box.getAttribute('tabindex'),
                           box.getAttribute('aria-label'),
                           box.closest('section').querySelector('h2').firstChild.textContent])"""
    )
    assert len(boxes) >= 6, boxes  # GGR per day, by table, bet, mode; liability; RTP
    for role, tabindex, name, title in boxes:
        assert (role, tabindex, name) == ("region", "0", title)
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.office-table-wrap')"):
            break
    name = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert name == boxes[0][2]  # the first table that scrolls: GGR per day
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.activeElement.scrollLeft > 0")
    assert page.problems == []


def test_an_admin_sets_a_currencys_thresholds_on_the_settings_page(
    new_page: Any, office: dict[str, Any], screenshots: Path
) -> None:
    page = open_office(new_page, office, "ada", (1280, 720))
    page.goto(f"{office['url']}/admin/#settings")
    page.wait_for_selector('#office-view[data-page="settings"][data-ready="true"]')
    sek = page.locator("tr", has=page.locator("td:text-is('SEK')"))
    assert sek.locator("td").last.inner_text() == "no: USD's figures"
    page.select_option("select[name=currency]", "SEK")
    assert page.input_value("input[name=large_win]") == "1000000"  # USD's, standing for it
    page.fill("input[name=large_win]", "15000000")
    page.fill("input[name=large_wager]", "7500000")
    page.fill("#office-view input[name=reason]", "SEK thresholds of their own")
    page.click("text=Set thresholds")
    page.wait_for_selector("tr:has(td:text-is('SEK')) td:text-is('yes')")
    assert sek.locator("td").nth(1).inner_text() == "SEK\xa0150,000.00"
    assert sek.locator("td").nth(2).inner_text() == "SEK\xa075,000.00"
    page.screenshot(path=str(screenshots / "office-settings-changed-1280x720.jpg"))
    assert page.problems == []


# A player's limits as the card says them, in the staff member's language and its formats.
LIMIT_LINES = {
    "en": ["Deposits: no limit", "Net loss: $50.00 a day", "Wagered: $200.00 a week",
           "Session: 90 minutes"],
    "de": ["Einzahlungen: kein Limit", "Nettoverlust: 50,00\xa0$ pro Tag",
           "Gesamteinsatz: 200,00\xa0$ pro Woche", "Sitzung: 90 Minuten"],
}  # fmt: skip


@pytest.mark.parametrize("lang", LIMIT_LINES)
def test_a_players_card_shows_their_limits_as_text(
    new_page: Any, office: dict[str, Any], screenshots: Path, lang: str
) -> None:
    page = open_office(new_page, office, "sam", (1280, 720), LOCALES[lang])
    page.goto(f"{office['url']}/admin/#players")
    page.wait_for_selector('#office-view[data-page="players"][data-ready="true"]')
    page.fill("input[name=q]", "alice")
    page.click("#office-view form button[type=submit]")
    limits = page.wait_for_selector("[data-limits]")
    page.screenshot(path=str(screenshots / f"office-player-limits-1280x720-{lang}.jpg"))
    assert limits.inner_text().splitlines() == LIMIT_LINES[lang]
    assert page.problems == []
