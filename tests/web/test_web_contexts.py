"""The browser contexts lent from one test to the next (``webtools.Contexts``) come back
empty: a later test's page finds no cookie, no stored item and no route of an earlier one,
on any origin the earlier page went to, and is not offline."""

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
    contexts.give_back(kept, options)

    again = contexts.take(options)
    assert again is kept  # the same context, lent again
    assert again.context.pages == [again.keeper]
    page = again.new_page()
    for url in (base_url, shared_url):
        answer: Any = page.goto(f"{url}/api/health")
        assert answer.status == 200  # neither route is left, nor the offline switch
        assert page.evaluate(FOUND) == [None, None, False], url
    tables: Any = page.goto(f"{base_url}/api/tables")
    assert tables.status == 200
    assert again.context.cookies() == []
    contexts.give_back(again, options)
