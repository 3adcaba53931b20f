"""Every word a player sees in German, Danish or Swedish comes from that language's catalog:
on every page, in every state the test reaches, no English is left (issue 26, item 6); the
back office's catalogs (i18n/admin) have the same entries in the four languages, each
translated (its pages in German: tests/web/test_web_office.py). What counts as English:
tests/web/audits.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from .audits import english_on, english_only, kept, untranslated, words
from .webtools import TAKEN, Player, console_errors, fresh_table, open_table, place

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stand_up_after")]

LANGUAGES = {"de": "de-DE", "da": "da-DK", "sv": "sv-SE"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_keeps_english_only_for_the_names_it_lists(
    catalogs: dict[str, dict[str, str]], lang: str
) -> None:
    en, catalog = catalogs["en"], catalogs[lang]
    assert set(catalog) == set(en), set(catalog) ^ set(en)
    assert kept(catalog), f"{lang}.json lists no names kept on purpose (i18n.kept)"
    found = untranslated(catalog, en)
    assert found == {}, f"{lang}.json has English that is no kept name: {found}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_back_office_catalogs_have_every_entry_translated(
    office_catalogs: dict[str, dict[str, str]], lang: str
) -> None:
    """i18n/admin/LANG.json: the entries of the English one, every one of them office.* (the
    page reads the table's catalog too: none of its entries is replaced), and translated."""
    en, catalog = office_catalogs["en"], office_catalogs[lang]
    assert set(catalog) == set(en), set(catalog) ^ set(en)
    assert all(key.startswith("office.") for key in en), [k for k in en if "office." not in k]
    assert kept(catalog), f"admin/{lang}.json lists no names kept on purpose (office.kept)"
    found = untranslated(catalog, en)
    assert found == {}, f"admin/{lang}.json has English that is no kept name: {found}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_shows_only_words_of_its_language(
    make_player: Any,
    tables: list[dict[str, Any]],
    catalogs: dict[str, dict[str, str]],
    base_url: str,
    lang: str,
) -> None:
    en_only = english_only(catalogs[lang], catalogs["en"])
    found: dict[str, list[str]] = {}

    def check(where: str, page: Any) -> None:
        page.wait_for_timeout(150)
        english = english_on(page, en_only)
        if english:
            found[where] = english

    guest: Player = make_player(login=False, locale=LANGUAGES[lang])
    guest.goto()
    guest.page.wait_for_selector("#login-btn")
    check("the lobby, logged out", guest.page)

    player: Player = make_player(locale=LANGUAGES[lang])
    page = player.page
    logged = console_errors(player)
    player.goto()
    page.wait_for_selector('[data-banked-table="banked-i"]')
    check("the lobby", page)
    table = fresh_table(tables)
    open_table(player, table)
    check("a table before a round", page)
    place(player, 500, "player")
    page.click('[data-action="deal"]')
    player.wait_round()
    check("a table after a round", page)
    for other in ("deluxe", "mini"):
        open_table(player, next(t for t in tables if t["id"] == other))
        check(f"the {other} table", page)
    player.goto("history")
    # A round's "Details" button (the lobby's and the table's cards also carry data-open, and
    # one may still be on the page as the history draws).
    page.click("button[data-open]")
    page.wait_for_selector("#round-detail")
    check("the history with a round's details", page)
    for route in ("rules", "rules/deluxe", "rules/banked-ii", "cashier", "responsible"):
        player.goto(route)
        check(route, page)
    player.goto()
    page.click('[data-join-table="banked-i:banker"]')
    page.wait_for_selector('.seat-view[data-role="banker"]')
    TAKEN.append((player, str(page.get_attribute(".seat-view", "data-seat"))))
    check("a seat, as its banker", page)
    page.click('[data-action="leave"]')
    page.wait_for_selector('[data-banked-table="banked-i"]')
    assert found == {}, f"English in {lang}: {found}"
    assert guest.errors == [] and player.errors == [] and logged == []


# Each language's help for gambling problems is its market's: the national helpline (with
# its number) and the national self-exclusion register (checked against their own pages).
MARKETS = {
    "en": ("https://www.begambleaware.org/", "https://www.gamcare.org.uk/", "0808 8020 133"),
    "da": ("https://stopspillet.dk/", "https://www.rofus.nu/", "70 22 28 25"),
    "sv": ("https://www.stodlinjen.se/", "https://www.spelpaus.se/", "020-81 91 00"),
    "de": ("https://www.check-dein-spiel.de/", "https://rp-darmstadt.hessen.de/",
           "0800 1 37 27 00"),
}  # fmt: skip


@pytest.mark.parametrize("lang", MARKETS)
def test_each_language_names_the_help_of_its_own_market(
    catalogs: dict[str, dict[str, str]], lang: str
) -> None:
    catalog = catalogs[lang]
    helpline, register, number = MARKETS[lang]
    assert (catalog["rg.help1_url"], catalog["rg.help2_url"]) == (helpline, register)
    assert number in catalog["rg.help1_what"] + catalog["rg.help2_what"]


@pytest.mark.parametrize("lang", ["da", "sv"])
def test_the_road_statistics_count_naturals_in_the_language_of_the_page(
    catalogs: dict[str, dict[str, str]], lang: str
) -> None:
    english = words(catalogs["en"]["roads.pairs"])
    assert words(catalogs[lang]["roads.pairs"]) & english == set()


def test_a_shared_table_is_dealt_from_one_shoe_nobody_cuts(
    make_player: Any, catalogs: dict[str, dict[str, str]]
) -> None:
    """The lobby and the rules say a shared table's shoe is everyone's; only Mini's is cut
    by the player, and only its rules page shows how to cut."""
    en = catalogs["en"]
    guest: Player = make_player(login=False)
    page = guest.page
    guest.goto()
    page.wait_for_selector('[data-table="speed"] .summary')
    for shared in ("speed", "live", "live-deluxe"):
        summary = str(page.text_content(f'[data-table="{shared}"] .summary'))
        assert en["rules.shared_shoe"] in summary and en["rules.cut_shoe"] not in summary
    assert en["rules.cut_shoe"] in str(page.text_content('[data-table="mini"] .summary'))
    for table, cut in (("speed", False), ("mini", True)):
        guest.goto(f"rules/{table}")
        page.wait_for_selector(".rules-page .summary")
        text = str(page.text_content(".rules-page"))
        assert (en["rules.cut_help"] in text) is cut, table
    assert guest.errors == []
