"""Browser tests: Debian's chromium driven by playwright against a real server.

One server (a subprocess on a temporary SQLite database) and one browser per session; each
test's pages are pages, in browser contexts, that an earlier test used and that were emptied
(``webtools.Contexts``). Without chromium or playwright the tests skip, or fail with a clear
message when BACCARAT_REQUIRE_BROWSER=1 (as CI sets it).
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .audits import AXE
from .webtools import TAKEN, Contexts, Player, new_nickname, serving, unavailable

CHROMIUM = os.environ.get("BACCARAT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "baccarat" / "web"
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _catalogs(folder: Path) -> dict[str, dict[str, str]]:
    return {
        lang: json.loads((folder / f"{lang}.json").read_text(encoding="utf-8"))
        for lang in ("en", "de", "da", "sv")
    }


@pytest.fixture(scope="session")
def catalogs() -> dict[str, dict[str, str]]:
    """The table's catalogs (i18n/LANG.json) by language."""
    return _catalogs(WEB / "i18n")


@pytest.fixture(scope="session")
def office_catalogs() -> dict[str, dict[str, str]]:
    """The back office's own catalogs (i18n/admin/LANG.json), which it reads besides the
    table's, by language."""
    return _catalogs(WEB / "i18n" / "admin")


@pytest.fixture(scope="session")
def axe_source() -> Path:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` (package-lock.json lists axe-core)")
    return AXE


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real game server on a temporary SQLite database, on a free loopback port."""
    external = os.environ.get("BACCARAT_TEST_SERVER_URL")
    if external:
        yield external.rstrip("/")
        return
    with serving(tmp_path_factory.mktemp("web-server")) as url:
        yield url


# Shared tables with short windows, one for each test that plays at one: a table nobody has
# watched rests, so its first window opens whole for the test's page. Its windows are long
# enough for the warning before the close (5 s) and a few bets by keys before it.
SHARED_TABLES = "\n".join(
    f"""
[[table]]
id = "{name}"
name = "{name.title()} Live"
rules = "classic-8deck"
chips = ["1", "5", "25", "100"]
min = "5"
max = "500"
shared = {{ betting_s = 8, result_s = 2 }}
"""
    for name in ("keys", "axe")
)


@pytest.fixture(scope="package")
def shared_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A game server whose tables are SHARED_TABLES."""
    data = tmp_path_factory.mktemp("shared-tables")
    (data / "tables.toml").write_text(SHARED_TABLES)
    with serving(data, BACCARAT_TABLES=str(data / "tables.toml")) as url:
        yield url


@pytest.fixture(scope="session")
def tables(base_url: str) -> list[dict[str, Any]]:
    data = _get(f"{base_url}/api/tables")
    return data if isinstance(data, list) else data["tables"]


# Package scope: Playwright's sync API keeps an event loop running while it is open, which
# the async server tests (anyio) refuse to share, so it closes when tests/web is done.
@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        unavailable(f"chromium is missing at {CHROMIUM} (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is missing (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="package")
def contexts(browser: Any, base_url: str) -> Iterator[Contexts]:
    with Contexts(browser, base_url) as kept:
        yield kept


@pytest.fixture
def new_page(contexts: Contexts) -> Iterator[Any]:
    """``Contexts.page`` for the test (a desktop page by default), given back after it."""
    with contextlib.ExitStack() as lent:

        def make(*, viewport: dict[str, int] | None = None, **options: Any) -> Any:
            return lent.enter_context(
                contexts.page(viewport or {"width": 1366, "height": 900}, **options)
            )

        yield make


@pytest.fixture
def make_player(new_page: Any, base_url: str) -> Any:
    def make(
        *,
        login: bool = True,
        locale: str = "en-US",
        reduced_motion: str = "reduce",
        at: str | None = None,
        **options: Any,
    ) -> Player:
        """A player with a page (``new_page``: ``viewport``, ``own_context`` and the
        context's ``options``) on the session's server or the one ``at``."""
        page = new_page(locale=locale, reduced_motion=reduced_motion, **options)
        player = Player(page.context, at or base_url, new_nickname(), page)
        if login:
            player.register_and_login()
        return player

    return make


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def stand_up_after(make_player: Any) -> Any:
    """Each test's players leave their seats (``webtools.TAKEN``) at its end. banked-i has
    four seats, and a closed page keeps its seat for the reconnect grace: without this, the
    tests that follow one another within the grace could find the table full. The modules
    that seat players use it: ``pytest.mark.usefixtures("stand_up_after")``."""
    yield
    while TAKEN:
        player, seat = TAKEN.pop()
        # (A context a test closed itself cannot ask: the grace frees that seat.)
        with contextlib.suppress(Exception):
            player.context.request.post(
                f"{player.base_url}/api/seats/{seat}/leave", headers=player.csrf()
            )
