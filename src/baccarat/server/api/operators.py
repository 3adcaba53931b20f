"""The operator API (docs/operator-api.md): signed launches and reports, the launch code's
exchange for a game session, and the rounds of an operator's session."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field

from baccarat.core import Bets
from baccarat.server import switches
from baccarat.server.api import launch_page
from baccarat.server.api.accounts import session_cookies
from baccarat.server.api.deps import IDEMPOTENCY_HEADER, CasinoDep, RequestContext, json_response
from baccarat.server.api.errors import documented
from baccarat.server.api.ids import Id
from baccarat.server.errors import ServiceError
from baccarat.server.play import idempotency
from baccarat.server.wallets.operator import launch, report
from baccarat.server.wallets.operator import shared as operator_coups
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.signing import OPERATOR_HEADER, SIGNATURE_HEADER

if TYPE_CHECKING:
    from collections.abc import Callable

    from baccarat.server.casino import Casino
    from baccarat.server.db.uow import UnitOfWork
    from baccarat.server.tables import Table
    from baccarat.server.wallets.operator.engine import OperatorDesk

router = APIRouter(tags=["operators"])


def desk_of(app: Any) -> OperatorDesk:
    desk: OperatorDesk = app.state.operators
    return desk


async def _signed(request: Request, casino: Casino, message: bytes) -> Operator:
    return casino.operators.verified(
        request.headers.get(OPERATOR_HEADER), message, request.headers.get(SIGNATURE_HEADER)
    )


@router.post(
    "/operator/v1/launch",
    status_code=201,
    responses=documented("invalid_signature", "invalid_body", "launch_out_of_window",
                         "request_uuid_reused", "timed_out", "self_excluded",
                         "unsupported_currency", "unknown_table", "table_not_offered",
                         "player_banked_table", "unknown_market"),
    summary="Operators: launch a game session for the operator's player (signed)",
)  # fmt: skip
async def operator_launch(request: Request, casino: CasinoDep) -> Response:
    raw = await request.body()
    operator = await _signed(request, casino, raw)
    try:
        body = json.loads(raw)
    except ValueError:
        raise ServiceError("invalid_body", "the request body is not JSON") from None
    if isinstance(body, dict):  # the market's profile (docs/jurisdictions.md)
        casino.profiles.require_market(body.get("market"))
    code = await casino.db.write(lambda uow: launch.create(uow, operator, casino.tables, body))
    url = str(request.base_url).rstrip("/") + f"/play/{code}"
    return json_response({"url": url, "code": code}, 201)


@router.get(
    "/operator/v1/rounds",
    responses=documented("invalid_signature", "invalid_request"),
    summary="Operators: the rounds on the operator's wallet, with their transactions (signed)",
)
async def operator_rounds(request: Request, casino: CasinoDep) -> Response:
    query = request.url.query
    operator = await _signed(
        request, casino, (request.url.path + ("?" + query if query else "")).encode()
    )
    params = request.query_params
    found = await casino.db.read(
        lambda uow: report.rounds(
            uow, operator.id, params.get("from"), params.get("to"), params.get("player"),
            params.get("after"),
        )
    )  # fmt: skip
    return json_response(found)


class LaunchIn(BaseModel):
    code: str = Field(min_length=1, max_length=100)


async def _start(request: Request, casino: Casino, code: str) -> launch.Started:
    started = await casino.db.write(
        lambda uow: launch.redeem(
            uow, code, casino.system, casino.settings.session_ttl_s, casino.profiles
        )
    )
    await desk_of(request.app).refresh_balance(started.session)
    return started


def _cookies(response: Response, casino: Casino, started: launch.Started) -> Response:
    return session_cookies(response, casino, started.token, started.csrf)


@router.post(
    "/api/sessions/launch",
    status_code=201,
    responses=documented("invalid_launch_code", "invalid_body"),
    summary="Exchange an operator's launch code for a session token",
)
async def start_session(body: LaunchIn, request: Request, casino: CasinoDep) -> Response:
    started = await _start(request, casino, body.code)
    session = started.session
    answer = {"token": started.token, "csrf_token": started.csrf, "player_id": session.player_id,
              **session.to_json()}  # fmt: skip
    if not session.demo:
        answer["balance"] = await _balance(request, casino, session.token_hash)
    return _cookies(json_response(answer, 201), casino, started)


async def _balance(request: Request, casino: Casino, token_hash: str) -> int | None:
    session = await desk_of(request.app).session(token_hash)
    return session.balance


@router.get(
    "/play/{code}",
    include_in_schema=False,
    responses=documented("invalid_launch_code"),
)
async def play(code: str, request: Request, casino: CasinoDep) -> Response:
    try:
        started = await _start(request, casino, code)
    except ServiceError as error:
        if error.code != "invalid_launch_code" or not launch_page.wants_page(request):
            raise
        # A browser: a page in the game's language, with the way back to the casino.
        ended = await casino.db.read(lambda uow: launch.ended(uow, code))
        language, lobby = ended or (launch_page.browser_language(request), None)
        return launch_page.ended_page(error, language, lobby)
    session = started.session
    query = {"lang": session.language, "mode": "fun" if session.demo else "real",
             "currency": session.currency}  # fmt: skip
    view = "#/" if session.table_id is None else f"#/table/{session.table_id}"
    return _cookies(RedirectResponse(f"/?{urlencode(query)}{view}", 303), casino, started)


@router.get(
    "/api/operator/session",
    responses=documented("not_authenticated"),
    summary="An operator's session: its operator, player, currency, language and balance",
)
async def operator_session(request: Request, casino: CasinoDep) -> Response:
    from baccarat.server.api.deps import caller_of

    desk = desk_of(request.app)
    session = await desk.session(caller_of(request).token_hash)
    balance = await desk.refresh_balance(session)
    message = await desk.waiting(session.token_hash)
    told = {} if message is None else {"operator_message": message}
    return json_response(session.to_json() | {"balance": balance} | told)


class ChoiceIn(BaseModel):
    choice: str = Field(min_length=1, max_length=32, description="continue, close or view_history")


@router.post(
    "/api/operator/messages/{message_id}",
    responses=documented("not_authenticated", "unknown_message", "invalid_body"),
    summary="An operator's message to its player (a reality check): the player's choice",
)
async def operator_message_choice(
    message_id: Id, body: ChoiceIn, request: Request, casino: CasinoDep
) -> Response:
    from baccarat.server.api.deps import caller_of

    desk = desk_of(request.app)
    answer = await desk.choose(caller_of(request).token_hash, message_id, body.choice)
    return json_response(answer)


async def operator_balance(ctx: RequestContext) -> tuple[int, str]:
    """An operator session's balance at the operator (as last answered; asked if never),
    and its currency."""
    desk = desk_of(ctx.request.app)
    session = await desk.session(ctx.caller.token_hash)
    balance = session.balance
    if balance is None and not session.demo:
        balance = await desk.refresh_balance(session)
    return balance or 0, session.currency


async def operator_tables(ctx: RequestContext) -> list[dict[str, Any]]:
    """The tables an operator session is offered (in its currency)."""
    session = await desk_of(ctx.request.app).session(ctx.caller.token_hash)
    operator = ctx.casino.operators.get(session.operator_id)
    if operator is None:
        return []
    offered = launch.offered(operator, ctx.casino.tables, session.currency)
    return await ctx.casino.db.read(lambda uow: switches.lobby(uow, offered))


def _real(ctx: RequestContext, mode: str) -> bool:
    """Whether an operator's session plays on its operator's wallet (a demo session plays
    for fun money of ours, as every other); a mode the session does not play is refused."""
    demo = ctx.caller.operator == "demo"
    if demo != (mode == "fun"):
        raise ServiceError(
            "mode_not_in_session",
            "a demo session plays for fun money (mode fun)" if demo
            else "a session launched by your casino plays on its wallet (mode real)",
            mode=mode,
        )  # fmt: skip
    return not demo


def _key(ctx: RequestContext, payload: dict[str, Any]) -> tuple[str, str]:
    request = ctx.request
    key = idempotency.check_key(request.headers.get(IDEMPOTENCY_HEADER))
    return key, idempotency.request_hash(request.method, request.url.path, payload)


async def operator_round(
    ctx: RequestContext, table: Table, mode: str, bets: Bets, payload: dict[str, Any]
) -> Response | None:
    """A round of an operator's session on its wallet; None for a demo session's fun round
    (played on our play money as every other)."""
    if not _real(ctx, mode):
        return None
    key, hashed = _key(ctx, payload)
    answer = await desk_of(ctx.request.app).play(ctx.caller.token_hash, table, bets, key, hashed)
    return json_response(answer, 201)


async def operator_coup_bets(
    ctx: RequestContext, table: Table, coup: int, mode: str, bets: Bets, payload: dict[str, Any],
    tell: Callable[[UnitOfWork, str], None],
) -> Response | None:  # fmt: skip
    """An operator's session's bets on a shared coup, on its wallet; None for a demo
    session's (fun money of ours, as every other bettor's)."""
    if not _real(ctx, mode):
        return None
    key, hashed = _key(ctx, payload)
    desk, casino = desk_of(ctx.request.app), ctx.casino
    place = functools.partial(operator_coups.place, shoes=casino.shoes, coup_id=coup, bets=bets)
    answer = await desk.bet_on_coup(ctx.caller.token_hash, table, place, key, hashed, tell)
    return json_response(answer)
