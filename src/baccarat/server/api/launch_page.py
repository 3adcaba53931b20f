"""The page a browser is shown for a game link that can no longer be used (a launch code
used, expired or unknown): in the language the operator launched the game in, from the
browser's catalogs (web/i18n), with a way back to the operator's lobby when it gave one. An
API client is answered the JSON error (``invalid_launch_code``) as before."""

from __future__ import annotations

import functools
import html
import json
from importlib import resources

from fastapi import Request
from fastapi.responses import HTMLResponse

from baccarat.server.errors import ServiceError
from baccarat.server.wallets.operator.launch import LANGUAGES, web_address

STYLE = (
    "body{margin:0;min-height:100vh;display:grid;place-items:center;background:#0d1411;"
    "color:#f3efe3;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "line-height:1.45}main{max-width:34rem;margin:16px;padding:24px;background:#17221d;"
    "border:1px solid #34493e;border-radius:12px}h1{margin-top:0;font-size:1.4rem;"
    "color:#f2c94c;font-family:Georgia,'Times New Roman',serif}a.back{display:inline-block;"
    "margin-top:8px;padding:10px 16px;border-radius:8px;background:#f2c94c;color:#000;"
    "font-weight:bold;text-decoration:none}a.back:focus-visible{outline:3px solid #ffe066;"
    "outline-offset:3px}"
)


@functools.cache
def catalog(language: str) -> dict[str, str]:
    path = resources.files("baccarat").joinpath("web", "i18n", f"{language}.json")
    found: dict[str, str] = json.loads(path.read_text("utf-8"))
    return found


def wants_page(request: Request) -> bool:
    """A browser opening the link (it asks for HTML), not an API client."""
    return "text/html" in request.headers.get("accept", "")


def browser_language(request: Request) -> str:
    """The first of the four languages the browser asks for, else English."""
    for part in request.headers.get("accept-language", "").split(","):
        base = part.split(";")[0].strip().lower().split("-")[0]
        if base in LANGUAGES:
            return base
    return "en"


def ended_page(error: ServiceError, language: str, lobby_url: str | None) -> HTMLResponse:
    words = catalog(language if language in LANGUAGES else "en")
    reason = str(error.details.get("reason") or "unknown")
    text = words.get(f"launch.{reason}", words["launch.unknown"])
    lobby = web_address(lobby_url)  # a launch before the address was checked at launch
    back = (
        f'<p><a class="back" href="{html.escape(lobby)}">{html.escape(words["launch.back"])}</a>'
        if lobby else ""
    )  # fmt: skip
    title = html.escape(words["launch.title"])
    body = (
        f'<!doctype html><html lang="{language}"><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{title}</title><style>{STYLE}</style><main><h1>{title}</h1>"
        f"<p>{html.escape(text)}</p><p>{html.escape(words['launch.again'])}</p>{back}</main>"
        "</html>"
    )
    return HTMLResponse(body, error.status, headers={"Cache-Control": "no-store"})
