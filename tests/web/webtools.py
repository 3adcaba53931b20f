"""Helpers of the browser tests: the server they play on, a logged-in player's page and
its API client, the tables, chips, amounts and seats the tests use."""

from __future__ import annotations

import contextlib
import json
import os
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..harness import free_port, live, serve_argv, uvicorn_argv

PASSWORD = "correct horse battery"


class Player:
    """A logged-in player in one browser context: its page and an API client sharing cookies."""

    def __init__(self, context: Any, base_url: str, nickname: str, page: Any = None):
        self.context = context
        self.base_url = base_url
        self.nickname = nickname
        self.page = page or context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def csrf(self) -> dict[str, str]:
        for cookie in self.context.cookies():
            if "csrf" in cookie["name"].lower():
                return {"X-CSRF-Token": cookie["value"]}
        return {}

    def api(
        self, method: str, path: str, data: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        response = self.context.request.fetch(
            self.base_url + path,
            method=method,
            data=None if data is None else json.dumps(data),
            headers={"Content-Type": "application/json", **self.csrf(), **(headers or {})},
        )
        assert response.ok, f"{method} {path}: {response.status} {response.text()}"
        return response.json() if response.text() else None

    def finish_shoe(self, table_id: str, bets: dict[str, int]) -> int:
        """Deal the player's cut shoe at a table to its cut card (the seed of a rotation
        made while it was dealt is revealed then); how many rounds that took."""
        dealt = 0
        while not self.api("GET", f"/api/tables/{table_id}/state?mode=fun")["shoe"]["cut_due"]:
            key = {"Idempotency-Key": uuid.uuid4().hex}
            self.api("POST", f"/api/tables/{table_id}/rounds", {"mode": "fun", "bets": bets}, key)
            dealt += 1
        return dealt

    def register_and_login(self, currency: str | None = None) -> None:
        request = self.context.request
        body = {"nickname": self.nickname, "password": PASSWORD}
        account = body if currency is None else body | {"currency": currency}
        created = request.post(f"{self.base_url}/api/accounts", data=account)
        assert created.status == 201, created.text()
        logged = request.post(f"{self.base_url}/api/sessions", data=body)
        assert logged.ok, logged.text()

    def goto(self, route: str = "") -> None:
        self.page.goto(f"{self.base_url}/#/{route}")
        self.page.wait_for_selector("html[data-ready=true]")

    def meter(self, name: str) -> str:
        return str(self.page.text_content(f'[data-meter="{name}"]')).strip()

    def wait_round(self) -> None:
        self.page.wait_for_selector('.table-view[data-phase="result"][data-busy="false"]')


# Calls after which a page or a context keeps something past a navigation and an emptying
# (a script run in every document, a binding, a WebSocket route, headers, emulated media, a
# CDP session of the test's, a clock): such a page, or context, is not lent again.
LASTING = {
    "Page": ("add_init_script", "expose_binding", "expose_function", "route_web_socket",
             "set_extra_http_headers", "emulate_media", "add_locator_handler",
             "set_default_timeout", "set_default_navigation_timeout"),
    "BrowserContext": ("add_init_script", "expose_binding", "expose_function",
                       "route_web_socket", "set_extra_http_headers", "grant_permissions",
                       "set_geolocation", "set_default_timeout",
                       "set_default_navigation_timeout", "new_cdp_session"),
    "Clock": ("install", "fast_forward", "pause_at", "resume", "run_for", "set_fixed_time",
              "set_system_time"),
}  # fmt: skip


def _marks_lasting() -> None:
    """Wrap Playwright's calls of ``LASTING`` so that each marks what it leaves something in
    (``lasting``); once per process."""
    from playwright.sync_api import _generated as api

    for name, methods in LASTING.items():
        cls = getattr(api, name)
        for method in methods:
            original = getattr(cls, method)
            if getattr(original, "marks_lasting", False):
                continue

            def marking(
                self: Any,
                *args: Any,
                _original: Any = original,
                _what: str = f"{name}.{method}",
                **kwargs: Any,
            ) -> Any:
                impl = self._impl_obj
                if _what.startswith("Clock."):
                    impl = impl._browser_context  # a clock is its context's
                elif _what == "BrowserContext.new_cdp_session":
                    impl = (args[0] if args else kwargs["page"])._impl_obj  # it changes the page
                impl.baccarat_lasting = True
                return _original(self, *args, **kwargs)

            marking.marks_lasting = True  # type: ignore[attr-defined]
            setattr(cls, method, marking)


def lasting(thing: Any) -> bool:
    """A page or a context a ``LASTING`` call was made on."""
    return bool(getattr(thing._impl_obj, "baccarat_lasting", False))


class Kept:
    """A browser context kept by ``Contexts``, with its page of ours, a CDP session, the
    origins its pages went to, and a page an earlier test used (``spare``), lent again."""

    def __init__(self, browser: Any, home: str, options: dict[str, Any]):
        self.context = browser.new_context(**options)
        self.keeper = self.context.new_page()
        self.keeper.goto(f"{home}/api/health")
        self.cdp = self.context.new_cdp_session(self.keeper)
        self.origins = {origin(home)}
        self.shelf = _shelf(options)
        self.viewport = options.get("viewport") or {"width": 1280, "height": 720}
        self.spare: Any = None
        self.own: dict[Any, dict[str, list[Any]]] = {}  # a page's own listeners, by event
        self.closed = False
        self.context.on("close", lambda _: setattr(self, "closed", True))

    def new_page(self, viewport: dict[str, int] | None = None) -> Any:
        """A page (of the size ``viewport``, the context's by default): the spare one, or a
        new one."""
        page, self.spare = self.spare, None
        if page is None:
            page = self.context.new_page()
            page.on("framenavigated", lambda frame: self.origins.add(origin(frame.url)))
            self.own[page] = _listeners(page)
        size = viewport or self.viewport
        if page.viewport_size != size:
            page.set_viewport_size(size)
        return page

    def empty(self) -> None:
        """What an earlier test left in the context, gone: its pages (one kept as the spare,
        on a blank document, without the test's listeners, routes and history, its mouse at
        the corner), cookies, the storage of the origins it went to, its routes, its offline
        switch."""
        for page in self.context.pages:
            if page is self.keeper:
                continue
            if self.spare is None and not lasting(page) and page in self.own:
                try:
                    self._reset(page)
                    self.spare = page
                    continue
                except Exception:
                    self.spare = None
            page.close()
        self.own = {page: own for page, own in self.own.items() if page is self.spare}
        self.context.clear_cookies()
        self.context.set_offline(False)
        self.context.unroute_all(behavior="ignoreErrors")
        for where in self.origins - {"null"}:
            self.cdp.send("Storage.clearDataForOrigin", {"origin": where, "storageTypes": "all"})

    def _reset(self, page: Any) -> None:
        page.unroute_all(behavior="ignoreErrors")
        page.goto("about:blank")
        emitter, own = page._impl_obj, self.own[page]
        for event, listeners in _listeners(page).items():
            for listener in listeners:
                if listener not in own.get(event, ()):
                    emitter.remove_listener(event, listener)
        page.mouse.move(0, 0)
        session = self.context.new_cdp_session(page)
        try:
            session.send("Page.resetNavigationHistory")
        finally:
            session.detach()
            page._impl_obj.baccarat_lasting = False  # (our own session marked it)


# Context options at Playwright's defaults: a context made with them is one made without.
DEFAULTS = {"is_mobile": False, "has_touch": False, "bypass_csp": False, "device_scale_factor": 1}


def _shelf(options: dict[str, Any]) -> str:
    """Where ``Contexts`` keeps a context of these options."""
    meant = {name: value for name, value in options.items() if DEFAULTS.get(name) != value}
    return json.dumps(meant, sort_keys=True)


def _listeners(page: Any) -> dict[str, list[Any]]:
    """The listeners on a page's events, as Playwright keeps them."""
    events = page._impl_obj._events
    return {event: list(found) if isinstance(found, list) else [found]
            for event, found in events.items()}  # fmt: skip


class Contexts:
    """Browser contexts lent to a worker's tests, one test after another.

    A page on a new site costs the browser a renderer process: about 0.8 s of CPU, more than
    half of what a player's first page costs. A context whose own page stays open on the
    loopback host lends that process to the next page it opens; a new page costs the browser
    about 0.35 s more than one lent again. So a test's player is the page an earlier test
    used, in the context it used, both emptied by ``Kept.empty``. Contexts are kept by what
    cannot change once one is open (locale, reduced motion, device options); a context a
    test closed, kept to itself, or left something in that lasts (``LASTING``) is not lent
    again, nor such a page."""

    def __init__(self, browser: Any, home: str):
        self.browser, self.home = browser, home
        self.free: dict[str, list[Kept]] = {}
        _marks_lasting()

    def take(self, options: dict[str, Any]) -> Kept:
        """A context of these options: one given back, or a new one."""
        shelf = self.free.get(_shelf(options))
        return shelf.pop() if shelf else Kept(self.browser, self.home, options)

    def give_back(self, kept: Kept) -> None:
        try:
            if kept.closed or lasting(kept.context):
                kept.context.close()
                return
            kept.empty()
        except Exception:
            with contextlib.suppress(Exception):
                kept.context.close()
            return
        self.free.setdefault(kept.shelf, []).append(kept)

    @contextlib.contextmanager
    def page(
        self, viewport: dict[str, int] | None = None, own_context: bool = False, **options: Any
    ) -> Iterator[Any]:
        """A page of the size ``viewport`` (the context's by default): the one an earlier
        test used, or a new one. Its context, of ``options``, is one an earlier test used,
        emptied, and given back after (the page with it); with
        ``own_context`` one of its own, closed after (for a test that changes what a context
        keeps, such as its clock)."""
        kept = self.take(options)
        try:
            yield kept.new_page(viewport)
        finally:
            if own_context:
                with contextlib.suppress(Exception):
                    kept.context.close()
            else:
                self.give_back(kept)

    def __enter__(self) -> Contexts:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for shelf in self.free.values():
            for kept in shelf:
                with contextlib.suppress(Exception):
                    kept.context.close()


def origin(url: str) -> str:
    """The origin of an http(s) URL ("null" for another: about:blank, data:...)."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else "null"


def new_nickname() -> str:
    return "p" + uuid.uuid4().hex[:10]


def usd(cents: int) -> str:
    """en-US money as Intl.NumberFormat writes it: $1,234.50."""
    return f"${cents / 100:,.2f}"


def signed(cents: int) -> str:
    if cents > 0:
        return f"+{usd(cents)}"
    if cents < 0:
        return f"\u2212{usd(-cents)}"
    return usd(0)


def percent(rtp: float) -> str:
    """Intl.NumberFormat percent with 2 decimals, en-US: 98.94%, 98.50%."""
    return f"{rtp * 100:.2f}%"


def fresh_table(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """A fresh-shuffle table where a 5.00 chip is a valid bet on every spot."""
    for table in tables:
        limits = table["limits"]
        if (
            table["rules"]["shuffle"] == "fresh"
            and 500 in table["chips"]
            and 100 in table["chips"]
            and limits["min"] <= 500 <= limits["max"]
            and (limits.get("tie_min") or limits["min"]) <= 500 <= (limits.get("tie_max") or 10**9)
        ):
            return table
    raise AssertionError("no fresh-shuffle table takes 5.00 on every spot")


def cut_table(tables: list[dict[str, Any]]) -> dict[str, Any]:
    return next(t for t in tables if t["rules"]["shuffle"] == "cut-shoe")


def open_table(player: Player, table: dict[str, Any]) -> None:
    player.goto(f"table/{table['id']}")
    player.page.wait_for_selector(f'.table-view[data-table="{table["id"]}"]')


def place(player: Player, chip: int, spot: str, times: int = 1) -> None:
    player.page.click(f'[data-chip="{chip}"]')
    for _ in range(times):
        player.page.click(f'[data-spot="{spot}"]')


def stack_total(player: Player, spot: str) -> str:
    return str(player.page.text_content(f'[data-spot="{spot}"] .stack-total')).strip()


def last_round(player: Player) -> dict[str, Any]:
    items = player.api("GET", "/api/history?mode=fun&limit=1")["items"]
    assert items, "the history has no round"
    round_: dict[str, Any] = items[0]
    return round_


# Seats taken by a test: (player, seat id), stood up after it (see stand_up_after).
TAKEN: list[tuple[Player, str]] = []


def seated(
    make_player: Any, socket: Any = None, **player_options: Any
) -> tuple[Player, Player, str]:
    """A banker and a player matched at a seat of banked-i: (banker, player, seat id).
    ``socket`` routes the player's seat WebSocket (Playwright's route_web_socket)."""
    banker: Player = make_player()
    player: Player = make_player(**player_options)
    if socket is not None:
        player.page.route_web_socket("**/api/seats/*/ws", socket)
    banker.goto()
    banker.page.wait_for_selector('[data-banked-table="banked-i"]')
    banker.page.click('[data-join-table="banked-i:banker"]')
    banker.page.wait_for_selector('.seat-view[data-role="banker"]')
    seat = banker.page.get_attribute(".seat-view", "data-seat")
    player.goto()
    row = f'[data-seat-row="{seat}"]'
    player.page.wait_for_selector(f'{row}[data-needs="player"]')
    player.page.click(f'{row} [data-join="player"]')
    player.page.wait_for_selector('.seat-view[data-role="player"]')
    # The player stands up first: the banker may leave once no round is pending.
    TAKEN.extend([(banker, str(seat)), (player, str(seat))])
    return banker, player, str(seat)


def console_errors(player: Player) -> list[str]:
    """Errors the page logs to the console from now on (a refused request's own network
    line, which Chromium logs for every 4xx answer, is left out: the page shows it)."""
    errors: list[str] = []

    def seen(message: Any) -> None:
        if message.type == "error" and "Failed to load resource" not in message.text:
            errors.append(message.text)

    player.page.on("console", seen)
    return errors


def is_state(url: str) -> bool:
    return "/api/tables/" in url and "/state?" in url


def altered_tables(page: Any, change: Callable[[dict[str, Any]], None]) -> None:
    """GET /api/tables answers with ``change(table)`` done to each table."""

    def handle(route: Any) -> None:
        response = route.fetch()
        body = response.json()
        for table in body:
            change(table)
        route.fulfill(response=response, json=body)

    page.route("**/api/tables", handle)


class HeldSocket:
    """A page's shared-table sockets through Playwright's route: the server's messages pass
    to the page until ``hold()``, wait from then on, and go on, in order, at ``release()``
    (the page stays in a phase as long as a test looks at it). Made before the page opens."""

    def __init__(self, page: Any) -> None:
        self.held: list[tuple[Any, Any]] | None = None
        page.route_web_socket("**/api/tables/*/ws", self._through)

    def _through(self, ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: self._pass(ws, message))

    def _pass(self, ws: Any, message: Any) -> None:
        if self.held is None:
            ws.send(message)
        else:
            self.held.append((ws, message))

    def hold(self) -> None:
        self.held = []

    def release(self) -> None:
        held, self.held = self.held or [], None
        for ws, message in held:
            ws.send(message)


# Every text given to the page's one live region (#announcer: each announce() puts one),
# from the page's start (an init script): ``announced(page)`` takes them.
ANNOUNCED = """(() => {
  window.__announced = [];
  document.addEventListener('DOMContentLoaded', () => {
    const region = document.getElementById('announcer');
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          const text = node.textContent.replace(/\\s+/g, ' ').trim();
          if (text) window.__announced.push(text);
        }
      }
    }).observe(region, {childList: true});
  });
})()"""


def announced(page: Any) -> list[str]:
    """The texts announced since the last call (ANNOUNCED is in the page)."""
    texts: list[str] = page.evaluate("window.__announced.splice(0)")
    return texts


def device(width: int, height: int) -> dict[str, Any]:
    phone = width < 900 or height < 500
    return {"viewport": {"width": width, "height": height}, "is_mobile": phone, "has_touch": phone}


def table_of(tables: list[dict[str, Any]], table_id: str) -> dict[str, Any]:
    return next(t for t in tables if t["id"] == table_id)


def unavailable(reason: str) -> None:
    if os.environ.get("BACCARAT_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required (BACCARAT_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def serving(data: Path, **env: str) -> Iterator[str]:
    """``baccarat serve`` on a temporary SQLite database in ``data``, on a free loopback
    port, with ``env`` added to its environment (BACCARAT_* settings); yields its URL."""
    try:
        import baccarat.server  # noqa: F401
    except ImportError:
        unavailable("the game server (baccarat.server) is not installed")
    port = free_port()
    argv = [*serve_argv(port, data), "--database", f"sqlite:///{data / 'web.db'}"]
    # Every test registers from 127.0.0.1.
    env = {"BACCARAT_DATA_DIR": str(data), "BACCARAT_REGISTRATIONS_PER_HOUR": "10000", **env}
    with live(argv, env, data / "server.log", port, cwd=data) as server:
        yield server.url


class Shifted:
    """A game server whose clock the test moves on (``shifted_server``)."""

    def __init__(self, url: str, data: Path, shift: Path):
        self.url, self.data, self.shift = url, data, shift

    def advance(self, seconds: int) -> None:
        now = int(self.shift.read_text() or 0)
        self.shift.write_text(str(now + seconds * 1_000_000))


@contextlib.contextmanager
def shifted_server(data: Path, **env: str) -> Iterator[Shifted]:
    """The real server on a SQLite database in ``data``, its clock shifted by a file the test
    moves (tests/server/apps.py ``shifted``), with ``env`` added (BACCARAT_* settings)."""
    shift = data / "clock-shift"
    shift.write_text("0")
    port = free_port()
    env = {"BACCARAT_DATA_DIR": str(data), "BACCARAT_TEST_CLOCK_SHIFT": str(shift), **env}
    argv = uvicorn_argv("tests.server.apps:shifted", port)
    with live(argv, env, data / "server.log", port) as server:
        yield Shifted(server.url, data, shift)


# Boxes on the page: [left, top, right, bottom] in CSS pixels.
BOX_OF = "e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"


def boxes_of(page: Any, selector: str) -> list[list[float]]:
    """The boxes of what ``selector`` matches and is drawn (an element of no size is not)."""
    found: list[list[float]] = page.locator(selector).evaluate_all(f"els => els.map({BOX_OF})")
    return [b for b in found if b[2] > b[0] and b[3] > b[1]]


def overlapping(a: list[float], b: list[float], slack: float = 0.5) -> bool:
    """Whether two boxes share more than ``slack`` pixels either way."""
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def within(inner: list[float], outer: list[float], slack: float = 0.5) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )
