"""What the two logins (a player's, a staff member's) do alike: the client address their
throttles and events name, and the session a browser keeps in two cookies: the token's
(HttpOnly) and the CSRF token's (readable: the page echoes it in ``X-CSRF-Token``), a
player's on the whole site, a staff member's on the back office only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response

from baccarat.server.api.deps import CSRF_COOKIE, SESSION_COOKIE, json_response
from baccarat.server.api.errors import Handler, routes
from baccarat.server.history import iso_time


def client_address(request: Request) -> str | None:
    return request.client.host if request.client else None


def logout_route(router: APIRouter, path: str, summary: str) -> Callable[[Handler], Handler]:
    """A logout's route (``DELETE path``): for a live session (with the cookie, and its CSRF
    header), answered 204 with the session's cookies cleared (``SessionCookies.cleared``)."""
    return routes(router, "not_authenticated", "csrf_failed", status_code=204)(
        "DELETE", path, summary
    )


@dataclass(frozen=True, slots=True)
class SessionCookies:
    """The two cookies' names, the path they are sent on, and the key of who logged in in
    the login's answer (``player``, ``staff``)."""

    token: str
    csrf: str
    path: str
    holder: str

    def set(
        self, response: Response, token: str, csrf: str, *, max_age: int, secure: bool
    ) -> Response:
        """``response`` with the session's cookies set."""
        for name, value, httponly in ((self.token, token, True), (self.csrf, csrf, False)):
            response.set_cookie(name, value, max_age=max_age, httponly=httponly,
                                samesite="strict", secure=secure, path=self.path)  # fmt: skip
        return response

    def logged_in(
        self, token: str, csrf: str, expires_us: int, holder: dict[str, Any],
        *, max_age: int, secure: bool,
    ) -> Response:  # fmt: skip
        """A login's answer (201): the bearer token, the CSRF token, when they expire and who
        logged in; and the browser's cookies."""
        answer = {"token": token, "csrf_token": csrf, "expires": iso_time(expires_us),
                  self.holder: holder}  # fmt: skip
        return self.set(json_response(answer, 201), token, csrf, max_age=max_age, secure=secure)

    def cleared(self) -> Response:
        """A logout's answer (204): the session's cookies cleared."""
        response = Response(status_code=204)
        for name in (self.token, self.csrf):
            response.delete_cookie(name, path=self.path, samesite="strict")
        return response


PLAYER_COOKIES = SessionCookies(SESSION_COOKIE, CSRF_COOKIE, "/", "player")
