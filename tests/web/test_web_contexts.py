"""The browser contexts lent from one test to the next (``webtools.Contexts``) come back
empty: a later test's page finds no cookie, no stored item and no route of an earlier one,
on any origin the earlier page went to, and is not offline. The page lent again is blank,
without the earlier test's listeners and history; a page or a context that keeps what a
navigation does not undo (a script run in every document, a clock) is not lent again."""

from __future__ import annotations

from typing import Any

import pytest

from .webtools import Contexts

pytestmark = pytest.mark.browser

LEFT = """() => {
  localStorage.setItem('left', 'behind');
  sessionStorage.setItem('left', 'behind');
  document.cookie = 'left=behind; path=/';
}"""
FOUND = """() => [localStorage.getItem('left'), sessionStorage.getItem('left'),
  document.cookie.includes('left=behind')]"""


def test_a_lent_context_comes_back_empty(
    contexts: Contexts, base_url: str, shared_url: str
) -> None:
    options = {"locale": "sv-SE"}  # a shelf of its own, not shared with other tests
    kept = contexts.take(options)
    page = kept.new_page()
    for url in (base_url, shared_url):
        page.goto(f"{url}/api/health")
        page.evaluate(LEFT)
    page.route("**/api/health", lambda route: route.fulfill(status=418))
    kept.context.route("**/api/tables", lambda route: route.fulfill(status=418))
    kept.context.set_offline(True)
    contexts.give_back(kept)

    again = contexts.take(options)
    assert again is kept  # the same context, lent again
    assert again.context.pages == [again.keeper, page]
    assert again.new_page() is page  # and the same page
    for url in (base_url, shared_url):
        answer: Any = page.goto(f"{url}/api/health")
        assert answer.status == 200  # neither route is left, nor the offline switch
        assert page.evaluate(FOUND) == [None, None, False], url
    tables: Any = page.goto(f"{base_url}/api/tables")
    assert tables.status == 200
    assert again.context.cookies() == []
    contexts.give_back(again)
    # Options at Playwright's defaults ask for the same context.
    same = contexts.take({**options, "is_mobile": False, "has_touch": False})
    assert same is kept
    contexts.give_back(same)


def test_a_lent_page_comes_back_blank_without_the_tests_listeners_and_history(
    contexts: Contexts, base_url: str
) -> None:
    options = {"locale": "da-DK"}
    kept = contexts.take(options)
    page = kept.new_page({"width": 500, "height": 600})
    heard: list[str] = []
    page.on("console", lambda message: heard.append(message.text))
    page.goto(f"{base_url}/api/health")
    page.goto(f"{base_url}/api/tables")
    page.evaluate("console.log('during')")
    assert heard == ["during"]
    contexts.give_back(kept)

    again = contexts.take(options)
    lent = again.new_page()
    assert lent is page
    assert lent.url == "about:blank"
    assert lent.viewport_size == again.viewport
    assert lent.evaluate("history.length") == 1
    lent.evaluate("console.log('after')")
    assert heard == ["during"]
    contexts.give_back(again)


def test_a_page_or_a_context_that_keeps_a_script_or_a_clock_is_not_lent_again(
    contexts: Contexts, base_url: str
) -> None:
    options = {"locale": "nb-NO"}
    kept = contexts.take(options)
    page = kept.new_page()
    page.add_init_script("window.left = 'behind';")
    contexts.give_back(kept)
    assert page.is_closed()

    again = contexts.take(options)
    assert again is kept
    fresh = again.new_page()
    fresh.goto(f"{base_url}/api/health")
    assert fresh.evaluate("window.left") is None
    fresh.clock.install()
    contexts.give_back(again)
    assert again.closed
    assert contexts.take(options) is not kept
