"""The origin check of cookie-authenticated sockets behind a proxy (docs/deploy.md).

The browser's Origin names the page's scheme, host and port; the Host header, as the proxy
passes it on (nginx: ``$http_host``), names the host and port the browser asked for. They
must be the same site, a port left out being the scheme's default: a proxy or client that
adds or leaves out ``:443`` must not lock players out of the seats, and no other site may
use the player's cookie.
"""

from __future__ import annotations

import pytest

from baccarat.server.api.sockets import same_origin


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:8080", "127.0.0.1:8080"),
        ("https://casino.example", "casino.example"),
        ("https://casino.example", "casino.example:443"),
        ("https://casino.example:443", "casino.example"),
        ("http://casino.example", "casino.example:80"),
        ("https://Casino.Example", "casino.example"),
        ("http://[::1]:8000", "[::1]:8000"),
    ],
)
def test_a_page_of_the_site_the_host_header_names_may_use_the_cookie(
    origin: str, host: str
) -> None:
    assert same_origin(origin, host)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        # What nginx's $host passes on: the port the browser used is gone.
        ("https://casino.example:8443", "casino.example"),
        ("http://127.0.0.1:8080", "127.0.0.1"),
        ("http://casino.example", "casino.example:443"),
        ("https://casino.example", "casino.example:80"),
        ("https://evil.example", "casino.example"),
        ("https://casino.example.evil.example", "casino.example"),
        ("null", "casino.example"),
        ("https://casino.example/page", "casino.example"),
        ("ws://casino.example", "casino.example"),
        ("https://user@casino.example", "casino.example"),
        ("https://casino.example", "user@casino.example"),
        ("https://casino.example", "casino.example/path"),
        ("https://casino.example:99999", "casino.example"),
        ("https://casino.example", "casino.example:https"),
        ("https://casino.example", ""),
        ("https://casino.example", None),
    ],
)
def test_any_other_origin_or_a_host_header_without_its_port_is_refused(
    origin: str, host: str | None
) -> None:
    assert not same_origin(origin, host)
