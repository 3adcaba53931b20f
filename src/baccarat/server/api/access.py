"""Which kinds of session each route admits: one table (``SESSION_KINDS``), enforced at one
place (``admit_session``, a dependency of every route of the app).

A session is one of three kinds, told apart by its token's prefix without a read
(``operators.launch.session_kind``): a player's own (``OURS``: registered, logged in), an
operator's on the operator's wallet (``OPERATOR``: ``opr.``) and an operator's demo session
(``OPERATOR_DEMO``: ``opd.``, fun money of ours). An operator's session is for play on the
operator's wallet: it reaches the tables, the rounds and their history, the fairness of its
rounds and the responsible-gaming settings, never our own wallet's cashier, the
player-banked seats (a banker's escrow is ours) or the account of a player of ours. Every
route it may not use refuses it with 403 ``operator_session_not_allowed`` before anything
else is read, the body included (the OpenAPI document lists it on each such route, from
this table: ``errors.install``). The table is docs/operator-api.md's "What a session of an
operator may use"; a test walks the app's routes, so that a route without an entry here
fails it (and is closed to operators' sessions meanwhile).
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import WebSocket
from fastapi.exceptions import WebSocketException
from starlette.requests import HTTPConnection

from baccarat.server.api.deps import session_token
from baccarat.server.errors import ServiceError
from baccarat.server.jsontext import compact
from baccarat.server.wallets.operator.launch import session_kind

OURS = "ours"
OPERATOR = "operator"
OPERATOR_DEMO = "operator_demo"
# session_kind's answer (a token's prefix) -> the kind.
_KINDS = {"": OURS, "real": OPERATOR, "demo": OPERATOR_DEMO}

# What a route answers a session it does not admit (403).
REFUSED = "operator_session_not_allowed"

# Routes of play, and reads every player may make: every kind of session.
PLAY = frozenset({OURS, OPERATOR, OPERATOR_DEMO})
# Our own wallet's money, the player-banked seats, a registered player's account.
OWN = frozenset({OURS})
# Fun money of ours: a player's, and an operator's demo session's (it plays on it).
FUN = frozenset({OURS, OPERATOR_DEMO})
# Routes that read no session of a player (public, signed by an operator, or the back
# office's, whose staff have a session of their own): nothing to admit or refuse here.
NO_PLAYER_SESSION = PLAY

# "METHOD /path" (a WebSocket's method: WS) -> the kinds of session it admits.
SESSION_KINDS: dict[str, frozenset[str]] = {
    # Accounts and sessions: registering and logging in read no session; ending one's own
    # session is anyone's; the rest is a registered player's account.
    "POST /api/accounts": NO_PLAYER_SESSION,
    "POST /api/sessions": NO_PLAYER_SESSION,
    "DELETE /api/sessions": PLAY,
    "GET /api/sessions": OWN,
    "DELETE /api/sessions/all": OWN,
    "DELETE /api/sessions/{session_id}": OWN,
    "PUT /api/password": OWN,
    "GET /api/me": PLAY,
    "GET /api/session": PLAY,
    # The tables and their rounds (on the operator's wallet in an operator's session); each
    # kind adds its own routes' (``admit_routes``: a shared table's coups, log and socket).
    "GET /api/tables": PLAY,
    "GET /api/tables/{table_id}": PLAY,
    "POST /api/tables/{table_id}/rounds": PLAY,
    "GET /api/tables/{table_id}/state": PLAY,
    "GET /api/tables/{table_id}/shoe": PLAY,
    "POST /api/tables/{table_id}/shoe": PLAY,
    "GET /api/tables/{table_id}/roads": PLAY,
    # The wallet: its balances (the operator's, in its session); the rest is our own.
    "GET /api/wallet": PLAY,
    "POST /api/wallet/fun/top-up": FUN,
    "POST /api/wallet/deposits": OWN,
    "POST /api/wallet/withdrawals": OWN,
    "GET /api/wallet/deposits": OWN,
    "GET /api/wallet/withdrawals": OWN,
    "GET /api/wallet/statement": OWN,
    # The rounds played, and their fairness.
    "GET /api/history": PLAY,
    "GET /api/rounds/{round_id}": PLAY,
    "GET /api/history/export": PLAY,
    "GET /api/history/recall": PLAY,
    "GET /api/fairness": PLAY,
    "GET /api/fairness/keys": NO_PLAYER_SESSION,  # the casino's public keys, to anyone
    "GET /api/fairness/receipt": PLAY,
    "PUT /api/fairness/client-seed": PLAY,
    "POST /api/fairness/rotate": PLAY,
    "GET /api/fairness/seeds": PLAY,
    # Responsible gaming: a player may always restrict their own play (limits, a time-out,
    # an exclusion), and acknowledges the reality check to play on; none moves money.
    "GET /api/responsible": PLAY,
    "PUT /api/responsible/limits": PLAY,
    "PUT /api/responsible/reality-check": PLAY,
    "POST /api/responsible/reality-check/ack": PLAY,
    "POST /api/responsible/time-out": PLAY,
    "POST /api/responsible/self-exclusion": PLAY,
    "GET /api/health": NO_PLAYER_SESSION,
    # The operator's metrics: its own token, no player's session.
    "GET /metrics": NO_PLAYER_SESSION,
    # Jurisdiction profiles (docs/jurisdictions.md) and the features they allow.
    "GET /api/profiles": NO_PLAYER_SESSION,
    "GET /api/session/position": PLAY,
    "POST /api/tables-at-once": PLAY,
    "GET /api/favourites/{kind}": PLAY,
    "PUT /api/favourites/{kind}/{name}": PLAY,
    "DELETE /api/favourites/{kind}/{name}": PLAY,
    "POST /api/bench/commit": FUN,  # BACCARAT_BENCH=1 alone (moves a cent of its mode)
    # The operator API: signed by the operator; the launch code's exchange.
    "POST /operator/v1/launch": NO_PLAYER_SESSION,
    "GET /operator/v1/rounds": NO_PLAYER_SESSION,
    "POST /api/sessions/launch": NO_PLAYER_SESSION,
    "GET /play/{code}": NO_PLAYER_SESSION,
    "GET /api/operator/session": PLAY,
    "POST /api/operator/messages/{message_id}": PLAY,  # an operator's message answered
    # The back office: its staff's own sessions, never a player's.
    "POST /admin/api/sessions": NO_PLAYER_SESSION,
    "DELETE /admin/api/sessions": NO_PLAYER_SESSION,
    "GET /admin/api/me": NO_PLAYER_SESSION,
    "GET /admin/api/session": NO_PLAYER_SESSION,
    "GET /admin/api/events": NO_PLAYER_SESSION,
    "GET /admin/api/audit": NO_PLAYER_SESSION,
    "GET /admin/api/staff": NO_PLAYER_SESSION,
    "PUT /admin/api/staff/{name}/switch": NO_PLAYER_SESSION,
    "PUT /admin/api/staff/{name}/role": NO_PLAYER_SESSION,
    "POST /admin/api/staff/{name}/password": NO_PLAYER_SESSION,
    "POST /admin/api/staff/{name}/second-factor": NO_PLAYER_SESSION,
    "PUT /admin/api/me/password": NO_PLAYER_SESSION,
    "GET /admin/api/reports/ggr": NO_PLAYER_SESSION,
    "GET /admin/api/reports/rtp": NO_PLAYER_SESSION,
    "GET /admin/api/reports/liability": NO_PLAYER_SESSION,
    "GET /admin/api/reports/events/{kind}": NO_PLAYER_SESSION,
    "GET /admin/api/software": NO_PLAYER_SESSION,
    "GET /admin/api/operators/rounds": NO_PLAYER_SESSION,
    "GET /admin/api/operators/rounds/{round_id}/calls": NO_PLAYER_SESSION,
    "GET /admin/api/players": NO_PLAYER_SESSION,
    "GET /admin/api/players/{player_id}": NO_PLAYER_SESSION,
    "GET /admin/api/rounds/{round_id}": NO_PLAYER_SESSION,
    "POST /admin/api/rounds/{round_id}/void": NO_PLAYER_SESSION,
    "GET /admin/api/voids": NO_PLAYER_SESSION,
    "POST /admin/api/voids/{proposal_id}": NO_PLAYER_SESSION,
    "GET /admin/api/cashier": NO_PLAYER_SESSION,
    "POST /admin/api/cashier/{request_id}": NO_PLAYER_SESSION,
    "GET /admin/api/tables": NO_PLAYER_SESSION,
    "PUT /admin/api/tables/{table_id}/switch": NO_PLAYER_SESSION,
    "PUT /admin/api/tables/{table_id}/limits": NO_PLAYER_SESSION,
    "GET /admin/api/settings": NO_PLAYER_SESSION,
    "PUT /admin/api/settings": NO_PLAYER_SESSION,
    "GET /docs": NO_PLAYER_SESSION,
}


def admit_routes(entries: Mapping[str, frozenset[str]]) -> None:
    """Add a table kind's routes to the table (``TableKind.routes``, by ``create_app``)."""
    SESSION_KINDS.update(entries)


def refuses_operators(key: str) -> bool:
    """Whether the route (``"METHOD /path"``) refuses an operator's session of either kind
    (``REFUSED``, by ``admit_session``)."""
    return not {OPERATOR, OPERATOR_DEMO} <= SESSION_KINDS.get(key, OWN)


def kind_of(token: str) -> str:
    """The kind of the session of a token (``OURS`` for none: the route asks for one)."""
    return _KINDS[session_kind(token)]


def caller_kind(connection: HTTPConnection) -> str:
    """The kind of the player's session a request carries, read as ``deps.caller_of``
    reads it (``deps.session_token``)."""
    token, _ = session_token(connection)
    return kind_of(token or "")


def refusal(kind: str) -> ServiceError:
    return ServiceError(
        REFUSED,
        "a session launched by an operator plays on the operator's wallet only: this is "
        "not open to it (our own cashier, player-banked seats and accounts are not)",
        session=kind,
    )


async def admit_session(connection: HTTPConnection) -> None:
    """Refuse a session of a kind the route does not admit (``SESSION_KINDS``; a route
    missing there admits a player's own session alone). A socket is accepted, told why
    and closed with 4403, as every socket refused (``api.sockets.refuse``)."""
    socket = connection if isinstance(connection, WebSocket) else None
    method = "WS" if socket is not None else connection.scope["method"]
    admitted = SESSION_KINDS.get(f"{method} {connection.scope['route'].path}", OWN)
    if admitted is PLAY:
        return
    kind = caller_kind(connection)
    if kind in admitted:
        return
    error = refusal(kind)
    if socket is None:
        raise error
    await socket.accept()
    await socket.send_text(compact({"type": "error", **error.to_json()}))
    raise WebSocketException(4000 + error.status, error.code)
