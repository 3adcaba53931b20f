"""Every word a player sees in German, Danish or Swedish comes from that language's catalog:
on every page, in every state the test reaches, no English is left (issue 26, item 6).

A word counts as English when the English catalog has it and the page's language's catalog
does not. A catalog value that is the same as the English one is allowed only for the names
the catalog keeps on purpose (its ``i18n.kept`` entry: Baccarat, Punto Banco, Nonce...).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .webtools import TAKEN, Player, console_errors, fresh_table, open_table, place

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("stand_up_after")]

LANGUAGES = {"de": "de-DE", "da": "da-DK", "sv": "sv-SE"}
# Hexadecimal runs (seeds, commitments, round ids) are no words, even when all letters.
HEX = re.compile(r"^[a-f]+$")

# Every text node of the page that is rendered (a screen reader's .sr-only text too), and
# the names, titles and placeholders of its elements; not the seeds and hashes (.mono).
VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest('.mono, script, style, [hidden]')) continue;
    if (el.getClientRects().length === 0 && !el.closest('.sr-only')) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    if (el.closest('.mono, [hidden]')) continue;
    for (const name of ['aria-label', 'title', 'placeholder']) {
      const value = el.getAttribute(name);
      if (value && value.trim()) out.push(value.trim());
    }
  }
  out.push(document.title);
  return out;
}"""


def words(text: str) -> set[str]:
    """The words of a text (three letters or more), not its {placeholders}."""
    found = re.findall(r"\w+", re.sub(r"\{\w+\}", " ", text))
    return {w.lower() for w in found if w.isalpha() and len(w) >= 3 and not HEX.match(w.lower())}


def kept(catalog: dict[str, str]) -> set[str]:
    return words(catalog["i18n.kept"])


def catalog_words(catalog: dict[str, str]) -> set[str]:
    return set().union(*(words(value) for value in catalog.values()))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_keeps_english_only_for_the_names_it_lists(
    catalogs: dict[str, dict[str, str]], lang: str
) -> None:
    en, catalog = catalogs["en"], catalogs[lang]
    assert set(catalog) == set(en), set(catalog) ^ set(en)
    allowed = kept(catalog)
    assert allowed, f"{lang}.json lists no names kept on purpose (i18n.kept)"
    same = {
        key: value
        for key, value in catalog.items()
        if key != "i18n.kept" and value.strip().lower() == en[key].strip().lower()
    }
    untranslated = {key: value for key, value in same.items() if words(value) - allowed}
    assert untranslated == {}, f"{lang}.json has English that is no kept name: {untranslated}"


def english_on(page: Any, en_only: set[str]) -> list[str]:
    return sorted(
        {text for text in page.evaluate(VISIBLE_TEXT) if words(text) & en_only},
    )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_shows_only_words_of_its_language(
    make_player: Any,
    tables: list[dict[str, Any]],
    catalogs: dict[str, dict[str, str]],
    base_url: str,
    lang: str,
) -> None:
    catalog = catalogs[lang]
    en_only = catalog_words(catalogs["en"]) - catalog_words(catalog) - kept(catalog)
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
    page.click("[data-open]")
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
