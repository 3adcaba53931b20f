"""The verifier page in a real browser (Debian's chromium driven by Playwright).

Serves src/baccarat/web from a local static server on 127.0.0.1, opens verify.html with
the query parameters a history links with, and reads what the page shows. Skipped, with
the reason, when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from .vectors import VECTORS_PATH

CHROMIUM = Path("/usr/bin/chromium")
WEB = Path(__file__).resolve().parents[2] / "src" / "baccarat" / "web"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VECTORS = json.loads(VECTORS_PATH.read_text())["vectors"]
MINI = next(v for v in VECTORS if v["rules"] == "mini")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)", allow_module_level=True)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(WEB))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.requests = requests
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
    finally:
        page.close()
    assert not errors, errors


def query(vector: dict[str, Any], **extra: Any) -> str:
    params = {
        "server_seed": vector["server_seed"],
        "client_seed": vector["client_seed"],
        "nonce": vector["nonce_text"],
        "decks": vector["decks"],
        "position": vector["position"],
        "commitment": vector["commitment"],
    }
    if vector["cut"] is not None:
        params["cut"] = vector["cut"]
    if vector["rules"]:
        params["rules"] = vector["rules"]
    params |= extra
    return urlencode(params)


def open_verified(page: Any, base_url: str, vector: dict[str, Any], **extra: Any) -> None:
    page.goto(f"{base_url}/verify.html?{query(vector, **extra)}")
    page.wait_for_selector("body[data-verified='true']", timeout=15_000)


def test_page_shows_the_vector_order_coup_and_matching_commitment(page: Any, base_url: str) -> None:
    open_verified(page, base_url, MINI)
    order = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert order == MINI["order"]
    assert page.text_content("#commitment") == MINI["commitment"]
    assert "matches" in page.text_content("#commitment-check")
    player = page.eval_on_selector_all("#player-cards .card", "cs => cs.map(c => c.dataset.card)")
    banker = page.eval_on_selector_all("#banker-cards .card", "cs => cs.map(c => c.dataset.card)")
    assert player == MINI["coup"]["player"]["cards"]
    assert banker == MINI["coup"]["banker"]["cards"]
    assert page.get_attribute("#coup-winner", "data-winner") == MINI["coup"]["winner"]
    burned = page.eval_on_selector_all("#order li.burned", "items => items.length")
    assert burned == MINI["burn"]["cards_burned"]
    # Everything came from the local server: no fetch went anywhere else.
    assert page.requests and all(url.startswith(base_url) for url in page.requests)


def test_page_handles_a_nonce_beyond_javascript_numbers(page: Any, base_url: str) -> None:
    (vector,) = [v for v in VECTORS if v["nonce"] > 2**53]
    open_verified(page, base_url, vector)
    order = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert order == vector["order"]


def test_page_flags_a_commitment_that_does_not_match(page: Any, base_url: str) -> None:
    open_verified(page, base_url, VECTORS[0], commitment="0" * 64)
    assert "does NOT match" in page.text_content("#commitment-check")


def test_page_reports_a_malformed_seed_as_an_error(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/verify.html?{query(VECTORS[0], server_seed='xyz')}")
    page.wait_for_selector("#error:not([hidden])", timeout=15_000)
    assert "server seed is 64 hex characters" in page.text_content("#error")


def test_page_form_derives_what_is_typed(page: Any, base_url: str) -> None:
    vector = VECTORS[1]
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    page.fill("#server_seed", vector["server_seed"])
    page.fill("#client_seed", vector["client_seed"])
    page.fill("#nonce", str(vector["nonce"]))
    page.fill("#decks", str(vector["decks"]))
    page.click("#verify-button")
    page.wait_for_selector("body[data-verified='true']", timeout=15_000)
    first = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert first[:10] == vector["first_10"]
    assert "server_seed=" + vector["server_seed"] in page.url
