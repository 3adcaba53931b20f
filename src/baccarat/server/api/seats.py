"""Player-banked seats over HTTP and WebSocket (SPEC §7).

REST: the lobby's seat list, join, leave, approve, auto-approve, bets, deal. WebSocket
``/api/seats/{seat_id}/ws``: the seat's events (state after every change, each round's
result) and the same actions; ``/api/seats/ws``: the lobby's seat changes. A socket
authenticates with ``?token=`` (the bearer token) or the session cookie (same origin only).

Messages to the seat socket: ``{"id": any, "action": "approve" | "auto_approve" (with
"on") | "bets" (with "bets") | "deal" (with optional "bets" and "key", an idempotency key)
| "leave" | "state" | "ping"}``; each is answered ``{"type": "reply", "id", "ok": true,
"result"}`` or ``{"type": "reply", "id", "ok": false, "error": {code, message, details}}``.
Events: ``{"type": "state", "seat", "you", "private"}`` and ``{"type": "round", "seat_id",
"round", "you", "private"}``, where ``you`` is the receiver's role and ``private`` what
only the receiver sees (its balance; after a round, its net and points).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request, Response, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, Field, ValidationError

from ...core import Bets
from .. import auth, idempotency
from ..banked import service, timing
from ..banked.desk import BankedDesk
from ..banked.service import Context
from ..db.uow import UnitOfWork
from ..errors import ServiceError
from ..tables import bets_from
from . import sockets
from .deps import CSRF_HEADER, SAFE_METHODS, SESSION_COOKIE, json_response
from .errors import RESPONSIBLE_ERRORS, documented
from .models import BetsIn, Body, Mode, RoundOut
from .sockets import SocketClient

router = APIRouter(prefix="/api", tags=["player-banked"])

Role = Literal["player", "banker"]
SeatId = Annotated[str, Path(max_length=80, description="a seat id, such as banked-ii.1")]
IDEMPOTENT: dict[str, Any] = {
    "parameters": [
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": "required: a retry with the same key gets the first answer and "
            "deals nothing; the same key with another body is refused",
            "schema": {"type": "string", "minLength": 1, "maxLength": 200},
        }
    ]
}
AUTH = ("not_authenticated", "csrf_failed")
SEAT = (*AUTH, "unknown_seat", "not_seated", "not_your_turn")


# -- bodies --------------------------------------------------------------------------------


class JoinIn(Body):
    table_id: str = Field(max_length=64, examples=["banked-ii"])
    role: Role
    mode: Mode
    seat_id: str | None = Field(
        default=None, max_length=80, description="a particular seat; else the server matches"
    )
    auto_approve: bool = Field(default=False, description="bankers: approve every round")


class AutoApproveIn(Body):
    on: bool


class PlaceBetsIn(Body):
    bets: BetsIn


class DealIn(Body):
    bets: BetsIn | None = Field(
        default=None, description="bet and deal at once (else the bets placed are dealt)"
    )


class PersonOut(BaseModel):
    nickname: str
    points: int


class BankerOut(PersonOut):
    auto_approve: bool
    away: bool = Field(description="left after approving: the round goes on without them")


class TimerOut(BaseModel):
    role: Role = Field(description="whose decision it is")
    seconds: int
    remaining_ms: int
    deadline: str


class SeatRoundOut(BaseModel):
    id: str
    time: str
    player: dict[str, Any]
    banker: dict[str, Any]
    winner: Literal["player", "banker", "tie"]
    bets: dict[str, Any]
    stake: int
    win: int
    fee: int
    results: dict[str, Any] = Field(description="per role: net result and points")
    void_reason: str | None


class SeatOut(BaseModel):
    id: str
    table_id: str
    number: int
    mode: Mode | None
    phase: Literal["waiting", "approval", "betting"]
    version: int
    needs: list[Role]
    player: PersonOut | None
    banker: BankerOut | None
    timer: TimerOut | None
    bets: dict[str, int]
    stake: int
    fee: int = Field(description="the casino's fee on the bets placed, from the banker")
    reserved: int = Field(description="the banker's exposure held while a round is open")
    terms: dict[str, Any]
    notice: dict[str, Any] | None
    last_round: SeatRoundOut | None


class SeatStateOut(BaseModel):
    seat: SeatOut
    you: Role | None = Field(description="your role at this seat")
    private: dict[str, Any] = Field(description="what only you see: your balance")


class LobbySeatOut(BaseModel):
    id: str
    table_id: str
    number: int
    mode: Mode | None
    phase: str
    needs: list[Role]
    player: PersonOut | None
    banker: PersonOut | None
    version: int


class MeOut(BaseModel):
    points: dict[str, int] = Field(description="your loyalty points per mode")
    seats: list[dict[str, Any]]


class LobbyOut(BaseModel):
    seats: list[LobbySeatOut]
    me: MeOut | None


# -- callers -------------------------------------------------------------------------------


def _token_hash(request: Request) -> str | None:
    """Bearer token, or the session cookie plus the CSRF header on state-changing requests."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return auth.token_hash(token.strip())
        return None
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie is None:
        return None
    if request.method not in SAFE_METHODS and not auth.csrf_matches(
        cookie, request.headers.get(CSRF_HEADER)
    ):
        raise ServiceError(
            "csrf_failed",
            f"a request made with the session cookie needs the {CSRF_HEADER} header",
        )
    return auth.token_hash(cookie)


def _desk(app: Any) -> BankedDesk:
    desk: BankedDesk = app.state.banked
    return desk


async def _act(request: Request, work: Any, status: int = 200) -> Response:
    """Authenticate and run ``work(uow, ctx, player_id)`` in one write; the seat as JSON."""
    hashed = _token_hash(request)

    def job(uow: UnitOfWork, ctx: Context) -> Any:
        player_id = auth.authenticate(uow, hashed)
        return work(uow, ctx, player_id).for_player(player_id)

    return json_response(await _desk(request.app).write(job), status)


# -- REST ----------------------------------------------------------------------------------


@router.get(
    "/seats",
    response_model=LobbyOut,
    responses=documented("csrf_failed"),
    summary="The player-banked seats: who sits where, and which seats need a player or a "
    "banker; with a session, your own points and seats",
)
async def list_seats(request: Request) -> Response:
    hashed = _token_hash(request)

    def read(uow: UnitOfWork, ctx: Context) -> dict[str, Any]:
        player_id = None
        if hashed is not None:
            with contextlib.suppress(ServiceError):
                player_id = auth.authenticate(uow, hashed)
        return service.lobby(uow, ctx, player_id)

    return json_response(await _desk(request.app).read(read))


@router.post(
    "/seats",
    status_code=201,
    response_model=SeatStateOut,
    responses=documented(
        *AUTH,
        "invalid_body",
        "invalid_mode",
        "unknown_table",
        "not_a_banked_table",
        "unknown_seat",
        "already_seated",
        "seat_taken",
        "seat_mode_mismatch",
        "table_full",
        "banker_points_too_low",
        "banker_balance_too_low",
        *RESPONSIBLE_ERRORS,
    ),
    summary="Sit down as player or banker (the server matches you with someone waiting)",
)
async def join(body: JoinIn, request: Request) -> Response:
    return await _act(
        request,
        lambda uow, ctx, player_id: service.join(
            uow,
            ctx,
            player_id,
            body.table_id,
            body.role,
            body.mode,
            seat_id=body.seat_id,
            auto_approve=body.auto_approve,
        ),
        201,
    )


@router.get(
    "/seats/{seat_id}",
    response_model=SeatStateOut,
    responses=documented("not_authenticated", "unknown_seat"),
    summary="A seat as you see it",
)
async def get_seat(seat_id: SeatId, request: Request) -> Response:
    hashed = _token_hash(request)

    def read(uow: UnitOfWork, ctx: Context) -> dict[str, Any]:
        player_id = auth.authenticate(uow, hashed)
        return service.seat_view(uow, ctx, seat_id).for_player(player_id)

    return json_response(await _desk(request.app).read(read))


@router.post(
    "/seats/{seat_id}/leave",
    response_model=SeatStateOut,
    responses=documented(*SEAT),
    summary="Stand up (bets not dealt come back; a banker who approved stays to the round's end)",
)
async def leave(seat_id: SeatId, request: Request) -> Response:
    return await _act(
        request, lambda uow, ctx, player_id: service.leave(uow, ctx, player_id, seat_id)
    )


@router.post(
    "/seats/{seat_id}/approve",
    response_model=SeatStateOut,
    responses=documented(
        *SEAT,
        "deadline_passed",
        "banker_points_too_low",
        "banker_balance_too_low",
        *RESPONSIBLE_ERRORS,
    ),
    summary="APPROVE the next round (bankers; reserves the round's exposure)",
)
async def approve(seat_id: SeatId, request: Request) -> Response:
    return await _act(
        request, lambda uow, ctx, player_id: service.approve(uow, ctx, player_id, seat_id)
    )


@router.put(
    "/seats/{seat_id}/auto-approve",
    response_model=SeatStateOut,
    responses=documented(*SEAT, "invalid_body"),
    summary="AUTO-APPROVE on or off (bankers)",
)
async def auto_approve(seat_id: SeatId, body: AutoApproveIn, request: Request) -> Response:
    return await _act(
        request,
        lambda uow, ctx, player_id: service.set_auto_approve(uow, ctx, player_id, seat_id, body.on),
    )


BET_ERRORS = ("invalid_body", "no_bets", "bet_not_offered", "bet_below_table_min",
              "bet_above_table_max", "tie_below_min", "tie_above_max", "not_a_chip_multiple",
              "insufficient_funds", "deadline_passed")  # fmt: skip


@router.put(
    "/seats/{seat_id}/bets",
    response_model=SeatStateOut,
    responses=documented(*SEAT, *BET_ERRORS, *RESPONSIBLE_ERRORS),
    summary="Place your bets (players; held until dealt, returned if not); no bets clears them",
)
async def place_bets(seat_id: SeatId, body: PlaceBetsIn, request: Request) -> Response:
    bets = _bets(body.bets)
    return await _act(
        request,
        lambda uow, ctx, player_id: service.place_bets(uow, ctx, player_id, seat_id, bets),
    )


@router.post(
    "/seats/{seat_id}/deal",
    status_code=201,
    response_model=RoundOut,
    responses=documented(
        *SEAT, *BET_ERRORS, *RESPONSIBLE_ERRORS, "idempotency_key_required", "idempotency_conflict"
    ),
    openapi_extra=IDEMPOTENT,
    summary="DEAL (players): bet (optional) and deal; settled between you, the banker and "
    "the casino's fee in one transaction",
)
async def deal(seat_id: SeatId, body: DealIn, request: Request) -> Response:
    hashed = _token_hash(request)
    key = idempotency.check_key(request.headers.get("idempotency-key"))
    bets = None if body.bets is None else _bets(body.bets)

    def job(uow: UnitOfWork, ctx: Context) -> tuple[dict[str, Any], bool]:
        player_id = auth.authenticate(uow, hashed)
        return service.deal_once(uow, ctx, player_id, seat_id, bets, key)

    answer, replayed = await _desk(request.app).write(job, seat_id)
    response = json_response(answer, 201)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _bets(body: BetsIn) -> Bets:
    return bets_from(body.root)


# -- WebSocket -----------------------------------------------------------------------------

SERVICE_RESTART = 1012
LEFT = 4001
LEAVE_GRACE_S = 0.5


def _close_when_left(client: SocketClient, message: dict[str, Any]) -> None:
    if message.get("type") == "state" and client.seat_id is not None and message.get("you") is None:
        # No longer seated here (left, timed out): the seat's events are not ours.
        # (A moment's grace lets the reply to a "leave" out first.)
        asyncio.get_running_loop().call_later(
            LEAVE_GRACE_S, client.close_soon, LEFT, "you left the seat"
        )


def _sockets(app: Any) -> sockets.Sockets:
    registry: sockets.Sockets = app.state.sockets
    return registry


async def _open(websocket: WebSocket, seat_id: str | None) -> SocketClient | None:
    """Accept, authenticate (and for a seat, check the caller sits there), count the socket."""
    desk = _desk(websocket.app)
    await websocket.accept()
    try:
        hashed = sockets.socket_token_hash(websocket)

        def enter(uow: UnitOfWork, ctx: Context) -> int:
            player_id = auth.authenticate(uow, hashed)
            if seat_id is not None:
                seen = service.seat_view(uow, ctx, seat_id)
                if player_id not in seen.ids.values():
                    raise ServiceError(
                        "not_seated", f"take seat {seat_id} first (POST /api/seats)", seat=seat_id
                    )
            return player_id

        player_id = await desk.read(enter)
        assert hashed is not None
        client = SocketClient(websocket, player_id, hashed, seat_id)
        _sockets(websocket.app).admit(client)
    except ServiceError as error:
        await sockets.refuse(websocket, error)
        return None
    return client


@router.websocket("/seats/{seat_id}/ws")
async def seat_socket(websocket: WebSocket, seat_id: str) -> None:
    desk = _desk(websocket.app)
    client = await _open(websocket, seat_id)
    if client is None:
        return
    player_id, limits = client.account, desk.casino.settings.limits
    conn_id = secrets.token_hex(12)
    desk.hub.add(seat_id, client)
    writer = asyncio.get_running_loop().create_task(client.write_forever(_close_when_left))
    restarting = False
    try:
        await desk.casino.db.write(
            lambda uow: timing.connected(uow, conn_id, seat_id, player_id, desk.worker)
        )
        # Registered before reading: no event between this state and the next is lost.
        first = await desk.read(lambda uow, ctx: service.seat_view(uow, ctx, seat_id))
        client.deliver({"type": "state", **first.for_player(player_id)})
        while not client.closed:
            try:
                text = await sockets.receive_text(websocket, limits)
            except sockets.MessageTooBig:
                client.close_soon(sockets.MESSAGE_TOO_BIG, "message too big")
                break
            except ServiceError as error:
                client.deliver({"type": "reply", "id": None, "ok": False, **error.to_json()})
                continue
            reply = await _answer(desk, client, text)
            client.deliver(reply)
            if reply.get("error", {}).get("code") == "not_authenticated":
                client.close_soon(sockets.SESSION_ENDED, "the session ended")
    except WebSocketDisconnect as gone:
        # 1012: the server is shutting down (a restart); nobody leaves their seat for that.
        restarting = gone.code == SERVICE_RESTART
    finally:
        _sockets(websocket.app).release(client)
        desk.hub.remove(seat_id, client)
        client.close_soon(1000, "bye")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 2)
        writer.cancel()
        depart = not (desk.closing or restarting)
        with contextlib.suppress(Exception):
            await desk.write(lambda uow, ctx: timing.disconnected(uow, ctx, conn_id, depart=depart))


async def _answer(desk: BankedDesk, client: SocketClient, text: str) -> dict[str, Any]:
    ref: Any = None
    try:
        message = sockets.parse(text, desk.casino.settings.limits)
        ref = message.get("id")
        result = await _perform(desk, client, message)
        return {"type": "reply", "id": ref, "ok": True, "result": result}
    except ServiceError as error:
        return {"type": "reply", "id": ref, "ok": False, **error.to_json()}


def _message_bets(raw: Any) -> Bets:
    try:
        return _bets(BetsIn.model_validate(raw))
    except ValidationError as error:
        raise ServiceError("invalid_body", f"bets: {error.errors()[0]['msg']}") from None


async def _perform(desk: BankedDesk, client: SocketClient, message: dict[str, Any]) -> Any:
    """One action; every action but ping first checks, in its transaction, that the
    socket's session is still live (a logged-out or expired session moves no money)."""
    player_id, seat_id, hashed = client.account, client.seat_id, client.token_hash
    assert seat_id is not None
    action = message.get("action")
    if action == "ping":
        return "pong"
    if action == "state":

        def view(uow: UnitOfWork, ctx: Context) -> Any:
            auth.authenticate(uow, hashed)
            return service.seat_view(uow, ctx, seat_id)

        return (await desk.read(view)).for_player(player_id)
    if action == "deal":
        bets = None if message.get("bets") is None else _message_bets(message["bets"])
        key = message.get("key")

        def deal(uow: UnitOfWork, ctx: Context) -> Any:
            auth.authenticate(uow, hashed)
            if key is None:
                return service.deal(uow, ctx, player_id, seat_id, bets)
            return service.deal_once(uow, ctx, player_id, seat_id, bets, str(key))[0]

        return await desk.write(deal, seat_id)
    if action == "bets":
        bets = _message_bets(message.get("bets"))
        work: Any = lambda uow, ctx: service.place_bets(uow, ctx, player_id, seat_id, bets)  # noqa: E731
    elif action == "approve":
        work = lambda uow, ctx: service.approve(uow, ctx, player_id, seat_id)  # noqa: E731
    elif action == "auto_approve":
        on = message.get("on")
        if not isinstance(on, bool):
            raise ServiceError("invalid_body", "auto_approve needs on: true or false")
        work = lambda uow, ctx: service.set_auto_approve(uow, ctx, player_id, seat_id, on)  # noqa: E731
    elif action == "leave":
        work = lambda uow, ctx: service.leave(uow, ctx, player_id, seat_id)  # noqa: E731
    else:
        raise ServiceError(
            "invalid_body",
            "action is approve, auto_approve, bets, deal, leave, state or ping",
            action=str(action)[:40],
        )

    def checked(uow: UnitOfWork, ctx: Context) -> Any:
        auth.authenticate(uow, hashed)
        return work(uow, ctx)

    seen = await desk.write(checked, seat_id)
    return seen.for_player(player_id)


@router.websocket("/seats/ws")
async def lobby_socket(websocket: WebSocket) -> None:
    """The lobby: every seat's changes, as ``{"type": "seat", "seat": ...}`` (logged in)."""
    desk = _desk(websocket.app)
    client = await _open(websocket, None)
    if client is None:
        return
    limits = desk.casino.settings.limits
    desk.hub.add(None, client)
    writer = asyncio.get_running_loop().create_task(client.write_forever())
    try:
        first = await desk.read(lambda uow, ctx: service.lobby(uow, ctx, None))
        client.deliver({"type": "seats", "seats": first["seats"]})
        while not client.closed:
            try:
                text = await sockets.receive_text(websocket, limits)
            except sockets.MessageTooBig:
                client.close_soon(sockets.MESSAGE_TOO_BIG, "message too big")
                break
            except ServiceError:
                continue  # a binary frame: the lobby only answers pings
            if "ping" in text:
                client.deliver({"type": "pong"})
    except WebSocketDisconnect:
        pass
    finally:
        _sockets(websocket.app).release(client)
        desk.hub.remove(None, client)
        client.close_soon(1000, "bye")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 2)
        writer.cancel()
