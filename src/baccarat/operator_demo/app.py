"""The demo operator's web app: a login page, "Play baccarat" (a signed launch at the game),
the wallet API of its contract (``--protocol``: API v1 or actions; signed both ways), and
the faults it can be told to inject."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import aiohttp
from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from baccarat.operator_demo.wallet import V1, ActionsWallet, DemoWallet
from baccarat.server.currencies import format_amount
from baccarat.server.wallets.operator.protocols import CONTRACTS
from baccarat.server.wallets.operator.signing import (
    OPERATOR_HEADER,
    SIGNATURE_HEADER,
    headers,
    matches,
    timestamp,
)

COOKIE = "demo_operator"
# The operator's side of each contract it speaks (``--protocol``).
SIDES: dict[str, type[V1 | ActionsWallet]] = {"v1": V1, "actions": ActionsWallet}
DROPPED_S = 600  # an answer "never" sent: held until the game has long given up


@dataclass(frozen=True)
class DemoSettings:
    data_dir: Path
    game_url: str
    operator_id: str
    secret: str
    currency: str = "USD"
    late: float = 0.0
    fail: float = 0.0
    drop: float = 0.0
    late_s: float = 6.0
    protocol: str = "v1"  # the wallet contract it speaks (``protocols.CONTRACTS``)


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><html lang=en><meta charset=utf-8><title>{html.escape(title)}</title>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<link rel=icon href='data:,'>"  # no icon: no request for /favicon.ico, no 404
        "<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;"
        "padding:0 1rem}button{font-size:1.1rem;padding:.5rem 1rem;margin:.25rem 0}</style>"
        f"<h1>Demo Casino</h1>{body}</html>"
    )


def create_demo(settings: DemoSettings) -> FastAPI:
    wallet = DemoWallet(settings.data_dir, settings.currency)
    side = SIDES[settings.protocol](wallet)
    contract = CONTRACTS[settings.protocol]
    chance = random.Random()
    # The faults injected now: the flags' at start, changed by ``POST /admin/faults``.
    faults = {"late": settings.late, "fail": settings.fail, "drop": settings.drop,
              "late_s": settings.late_s}  # fmt: skip

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with aiohttp.ClientSession() as client:  # its calls to the game: one pool
            app.state.client = client
            yield

    app = FastAPI(title="Demo operator", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)  # fmt: skip
    app.state.wallet = wallet

    def signed(message: bytes, request: Request) -> bool:
        return request.headers.get(OPERATOR_HEADER) == settings.operator_id and matches(
            settings.secret, message, request.headers.get(SIGNATURE_HEADER)
        )

    def answer(raw: bytes, status: int = 200) -> Response:
        """An answer as the contract signs it (a first answer sent again: the same bytes)."""
        signature = contract.headers(settings.operator_id, settings.secret, raw)
        return Response(raw, status, media_type="application/json", headers=signature)

    def wallet_signed(raw: bytes, request: Request) -> bool:
        if (
            settings.protocol == "v1"
            and request.headers.get(OPERATOR_HEADER) != settings.operator_id
        ):
            return False
        return contract.signs(settings.secret, raw, request.headers.get(contract.signature_header))

    def refused(status: int, v1: str, actions: str) -> Response:
        """A request the wallet cannot take, in the contract's words."""
        words = {"status": v1, "balance": 0, "currency": settings.currency}
        return answer(json.dumps(words if settings.protocol == "v1" else {"code": actions},
                                 separators=(",", ":")).encode(),
                      status if settings.protocol != "v1" or status == 404 else 200)  # fmt: skip

    async def wallet_call(request: Request) -> Response:
        call = request.path_params["call"]
        raw = await request.body()
        if call not in side.calls:
            return refused(404, "RS_ERROR_UNKNOWN", "invalid_request")
        if not wallet_signed(raw, request):
            return refused(401, "RS_ERROR_INVALID_SIGNATURE", "bad_signature")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return refused(400, "RS_ERROR_UNKNOWN", "invalid_request")
        wallet.received(call, body.get("round", body.get("game_id")))
        roll = chance.random()
        late, fail, drop = faults["late"], faults["fail"], faults["drop"]
        if roll < late:
            await asyncio.sleep(faults["late_s"])  # then handled, long after the game gave up
        elif roll < late + fail:
            return Response("the wallet failed", 500)
        elif roll < late + fail + drop:
            side.handle(call, body)  # applied ...
            await asyncio.sleep(DROPPED_S)  # ... and never answered
        status, sent = side.handle(call, body)
        return answer(sent, status)

    # A plain route, not a FastAPI endpoint: the wallet's calls skip the framework's
    # parameter validation (the body is checked here), half of a call's time.
    app.router.add_route("/wallet/{call}", wallet_call, methods=["POST"])

    @app.get("/api/health")
    async def health() -> dict[str, bool]:
        return {"ok": True}

    # -- the platform's own pages --------------------------------------------------------

    @app.get("/", response_class=HTMLResponse)
    async def login_page() -> HTMLResponse:
        options = "".join(
            f"<option value='{html.escape(p)}'>{html.escape(p)}</option>"
            for p, _, _, disabled in wallet.players() if not disabled
        )  # fmt: skip
        return _page("Demo Casino: log in", "<form method=post action=/login>"
                     f"<label>Player <select name=player>{options}</select></label> "
                     "<button>Log in</button></form>")  # fmt: skip

    @app.post("/login")
    async def login(request: Request) -> Response:
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        player = (form.get("player") or [""])[0]
        if player not in {p for p, *_ in wallet.players()}:
            return RedirectResponse("/", 303)
        response = RedirectResponse("/lobby", 303)
        response.set_cookie(COOKIE, wallet.new_token(player), httponly=True, samesite="lax")
        return response

    @app.get("/lobby", response_class=HTMLResponse)
    async def lobby(request: Request) -> Response:
        player = wallet.player_of(request.cookies.get(COOKIE))
        if player is None:
            return RedirectResponse("/", 303)
        balance, currency = next((b, c) for p, b, c, _ in wallet.players() if p == player)
        return _page("Demo Casino: lobby", f"<p>Logged in as <b>{html.escape(player)}</b>. "
                     f"Balance {html.escape(format_amount(balance, currency))}.</p>"
                     "<form method=post action=/launch><button name=demo value=0>"
                     "Play baccarat</button> <button name=demo value=1>Play for fun</button>"
                     "</form>")  # fmt: skip

    @app.post("/launch")
    async def launch(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        player = wallet.player_of(token)
        if player is None or token is None:
            return RedirectResponse("/", 303)
        form = parse_qs((await request.body()).decode("utf-8", "replace"))
        demo = (form.get("demo") or ["0"])[0] == "1"
        found = await launch_at_game(settings, app.state.client, player, token, demo=demo,
                                     lobby_url=str(request.base_url) + "lobby")  # fmt: skip
        if "url" not in found:
            message = html.escape(json.dumps(found))
            return _page("Demo Casino: no game", f"<p>The game refused: {message}</p>")
        return RedirectResponse(found["url"], 303)

    # -- for tests and demonstrations (signed like the wallet's calls) --------------------

    @app.post("/admin/{action}")
    async def admin(action: str, request: Request) -> Response:
        raw = await request.body()
        if not signed(raw, request):
            return JSONResponse({"error": "invalid_signature"}, 401)
        body = json.loads(raw)
        if action == "session":
            ttl_us = int(body.get("ttl_us") or 3600 * 1_000_000)
            return JSONResponse({"token": wallet.new_token(body["player"], ttl_us)})
        if action == "disable":
            wallet.disable(body["player"], bool(body.get("disabled", True)))
            return JSONResponse({"ok": True})
        if action == "balance":
            wallet.set_balance(body["player"], int(body["balance"]))
            return JSONResponse({"ok": True})
        if action == "expire":  # the player's sessions at the platform end now
            wallet.expire_tokens(body["player"])
            return JSONResponse({"ok": True})
        if action == "limit":  # the player's own gambling limit reached (reason), or lifted
            wallet.set_limit(body["player"], body.get("reason"))
            return JSONResponse({"ok": True})
        if action == "message":  # a message for the player with the next answer
            left = wallet.leave_message(body["player"], body["text"],
                                        body.get("choices") or ["continue"],
                                        body.get("history_url"))  # fmt: skip
            return JSONResponse({"id": f"m-{left}"})
        if action == "faults":
            # The shares of calls answered late, failed or dropped from now on (tests).
            for name in faults:
                if name in body:
                    faults[name] = float(body[name])
            return JSONResponse(faults)
        if action == "ledger":
            return JSONResponse({"players": wallet.players(), "transactions": wallet.ledger(),
                                 "requests": wallet.requests(),
                                 "messages": wallet.messages()})  # fmt: skip
        return JSONResponse({"error": "unknown action"}, 404)

    return app


async def launch_at_game(settings: DemoSettings, client: aiohttp.ClientSession, player: str,
                         token: str, *, demo: bool, lobby_url: str, table: str | None = None,
                         language: str = "en") -> dict[str, Any]:  # fmt: skip
    """The signed launch of the contract: the game's answer (``url`` and ``code``), or
    what went wrong (``error``)."""
    body = {"request_uuid": str(uuid.uuid4()), "timestamp": timestamp(), "player": player,
            "token": token, "currency": settings.currency, "language": language,
            "lobby_url": lobby_url, "demo": demo}  # fmt: skip
    if table is not None:
        body["table"] = table
    raw = json.dumps(body).encode()
    try:
        async with client.post(
            f"{settings.game_url}/operator/v1/launch", data=raw,
            timeout=aiohttp.ClientTimeout(total=10),
            headers={"Content-Type": "application/json",
                     **headers(settings.operator_id, settings.secret, raw)},
        ) as reply:  # fmt: skip
            found = json.loads(await reply.read())
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        return {"error": f"the game did not answer: {type(error).__name__}"}
    return found if isinstance(found, dict) else {"error": "the game's answer is not JSON"}
