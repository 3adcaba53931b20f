"""Launches: an operator's signed launch becomes a single-use code (60 s), and the code a
game session of ours for the operator's player (one player of ours per operator, player and
currency: a round is in one currency).

A signed launch could be sent again by whoever saw it on its way: so it carries its time,
and is accepted only within ``WINDOW_US`` of our clock either way; and its ``request_uuid``
is remembered with the launch, so that a repeat of it in that window answers the first
answer (the same code, not a second session) and the same ``request_uuid`` with another body
is refused (``request_uuid_reused``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from baccarat.server import auth, responsible
from baccarat.server.accounts import open_player
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import iso_time
from baccarat.server.kinds import find_kind
from baccarat.server.ledger import SystemAccounts
from baccarat.server.play import idempotency
from baccarat.server.profiles import ProfileSet
from baccarat.server.tables import Table, TableSet
from baccarat.server.wallets.operator.config import Operator
from baccarat.server.wallets.operator.contract import web_address as web_address
from baccarat.server.wallets.operator.outbox import OperatorSession
from baccarat.server.wallets.operator.report import iso_us

CODE_TTL_US = 60 * 1_000_000
# A launch's ``timestamp`` is accepted this far from our clock, either way (the clocks of
# two hosts differ; NTP keeps them within a second or so). A launch is remembered by its
# ``request_uuid`` as long as its code is kept (``CODE_TTL_US + KEEP_ENDED_US``, an hour
# and a minute), longer than the twice ``WINDOW_US`` in which its timestamp is accepted:
# a repeat of it is found or refused for its time, never taken for a new launch.
WINDOW_US = 5 * 60 * 1_000_000
# A code past its time (used or not) is kept an hour, so that a late opening of its link
# still says why and leads back to the lobby; then a launch purges a few (bounded work: the
# table holds about an hour of launches).
KEEP_ENDED_US = 3600 * 1_000_000
PURGE_PER_LAUNCH = 8
LANGUAGES = ("en", "de", "da", "sv")
# An operator session's token starts so: its kind is known without a read (a real session's
# rounds go to the operator's wallet, a demo session's are fun money of ours).
SESSION_PREFIXES = {"opr.": "real", "opd.": "demo"}


def session_kind(token: str) -> str:
    """ "real" or "demo" for a session an operator launched, else "" (one of ours)."""
    return SESSION_PREFIXES.get(token[:4], "")


def page_session(session: OperatorSession) -> dict[str, Any]:
    """What the game's page is told of a session an operator launched (``GET /api/session``):
    it plays in the session's mode alone (the operator's money, or play money for a demo),
    in its currency, and leads back to the operator's lobby when the launch gave one."""
    return {
        "operator": session.operator_id, "mode": "fun" if session.demo else "real",
        "currency": session.currency, "language": session.language, "table": session.table_id,
        "lobby_url": web_address(session.lobby_url),
    }  # fmt: skip


def offer(operator: Operator, table: Table, currency: str) -> Table | None:
    """The table with its chips and limits in the currency if the operator offers it in it
    (never a player-banked one: a banker's escrow is the casino's; a shared one in its own
    currency alone, ``HOME``: the totals on its spots are one pot's)."""
    if not find_kind(table.kind).any_wallet or not operator.offers(table.id):
        return None
    return table.in_currency(currency)


def offered(operator: Operator, tables: TableSet, currency: str) -> list[Table]:
    """The tables an operator offers in a currency, with their chips and limits in it."""
    return [t for t in (offer(operator, t, currency) for t in tables.values()) if t is not None]


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "replace")).hexdigest()


def _text(body: dict[str, Any], name: str, most: int, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= most or not value.isprintable():
        raise ServiceError(
            "invalid_body", f"{name} is 1 to {most} printable characters", field=name
        )
    return value


def _timestamp(uow: UnitOfWork, body: dict[str, Any]) -> None:
    """Refuse a launch whose ``timestamp`` is missing, not a time, or out of the window."""
    sent = body.get("timestamp")
    moment = iso_us(sent) if isinstance(sent, str) and len(sent) <= 64 else None
    if moment is None:
        raise ServiceError("invalid_body", "timestamp is the launch's time in ISO 8601, like "
                           "2026-12-01T10:00:00Z", field="timestamp")  # fmt: skip
    if abs(moment - uow.now) > WINDOW_US:
        raise ServiceError(
            "launch_out_of_window",
            f"the launch's timestamp {sent} is more than {WINDOW_US // 60_000_000} minutes "
            f"from the game's clock ({iso_time(uow.now)}): launch again, with the time now",
            timestamp=sent, server_time=iso_time(uow.now), window_s=WINDOW_US // 1_000_000,
        )  # fmt: skip


def _code(operator: Operator, request_uuid: str, created_us: int) -> str:
    """A launch's code: as unguessable as a random one without the operator's secret, and
    made again the same for a repeat of the launch, so that only its hash is stored."""
    message = f"launch\n{operator.id}\n{request_uuid}\n{created_us}".encode()
    mac = hmac.new(operator.secret.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode()


def _first_answer(uow: UnitOfWork, operator: Operator, request_uuid: str, hashed: str
                  ) -> str | None:  # fmt: skip
    """The code a launch with this ``request_uuid`` was answered, if there was one; refused
    if that launch was another (its body, the time aside, differs)."""
    row = uow.one(
        "SELECT code_hash, request_hash, created_us FROM operator_launches "
        "WHERE operator_id = :o AND request_uuid = :u",
        {"o": operator.id, "u": request_uuid},
    )
    if row is None:
        return None
    code = _code(operator, request_uuid, int(row[2]))
    # A secret changed since (a restart with a new one) cannot make the first code again.
    if row[1] != hashed or not hmac.compare_digest(_hash(code), row[0]):
        raise ServiceError(
            "request_uuid_reused",
            f"request_uuid {request_uuid} was sent with another launch: a launch has a "
            "request_uuid of its own",
            request_uuid=request_uuid,
        )
    return code


def create(uow: UnitOfWork, operator: Operator, tables: TableSet, body: Any) -> str:
    """A launch code for the operator's player (checked: time, currency, language, table);
    a repeat of a launch (its ``request_uuid``, the same body) gets the first one's code."""
    if not isinstance(body, dict):
        raise ServiceError("invalid_body", "a launch is a JSON object")
    request_uuid = str(_text(body, "request_uuid", 64))
    player = _text(body, "player", 64)
    token = _text(body, "token", 512)
    currency = _text(body, "currency", 3)
    language = _text(body, "language", 2)
    table_id = _text(body, "table", 64, required=False)
    lobby_url = _text(body, "lobby_url", 2000, required=False)
    # A profile's name (the route checks it); none named: the operator's own default, if any.
    market = _text(body, "market", 16, required=False) or operator.market
    if lobby_url is not None and web_address(lobby_url) is None:
        raise ServiceError("invalid_body", "lobby_url is an http or https address, like "
                           "https://casino.example/lobby", field="lobby_url")  # fmt: skip
    demo = body.get("demo", False)
    if not isinstance(demo, bool):
        raise ServiceError("invalid_body", "demo is true or false", field="demo")
    if language not in LANGUAGES:
        raise ServiceError("invalid_body", f"language is one of {', '.join(LANGUAGES)}",
                           field="language")  # fmt: skip
    _timestamp(uow, body)
    # The launch as sent, but its time: one sent again later with a new time is the same.
    launched = {name: value for name, value in body.items() if name != "timestamp"}
    hashed = idempotency.request_hash("POST", "/operator/v1/launch", launched)
    first = _first_answer(uow, operator, request_uuid, hashed)
    if first is not None:
        return first
    # A time-out or self-exclusion taken in any currency holds in every other (and for fun).
    responsible.refuse_excluded_person(uow, operator.id, str(player))
    if currency not in operator.currencies:
        raise ServiceError(
            "unsupported_currency",
            f"operator {operator.id} offers {', '.join(operator.currencies)}, not {currency}",
            currency=currency,
        )
    if table_id is not None:
        table = tables.require(table_id)
        if not find_kind(table.kind).any_wallet:
            raise ServiceError(
                "player_banked_table",
                f"table {table_id} is player-banked: it plays on the casino's own wallet only",
                table=table_id,
            )
        if not operator.offers(table_id):
            raise ServiceError("table_not_offered",
                               f"operator {operator.id} does not offer table {table_id}",
                               table=table_id)  # fmt: skip
        if offer(operator, table, str(currency)) is None:
            raise ServiceError(
                "unsupported_currency",
                f"table {table_id} has no limits in {currency}",
                currency=currency, table=table_id,
            )  # fmt: skip
    elif not offered(operator, tables, str(currency)):
        raise ServiceError("unsupported_currency", f"no table has limits in {currency}",
                           currency=currency)  # fmt: skip
    purge(uow)
    code = _code(operator, request_uuid, uow.now)
    stored = uow.run(
        "INSERT INTO operator_launches (code_hash, operator_id, external_player, token, "
        "currency, language, table_id, lobby_url, demo, created_us, expires_us, request_uuid, "
        "request_hash, market) VALUES (:h, :o, :p, :tok, :c, :l, :t, :u, :d, :now, :exp, :ru, "
        ":rh, :mk) ON CONFLICT (operator_id, request_uuid) DO NOTHING",
        {"h": _hash(code), "o": operator.id, "p": player, "tok": token, "c": currency,
         "l": language, "t": table_id, "u": lobby_url, "d": int(demo), "now": uow.now,
         "exp": uow.now + CODE_TTL_US, "ru": request_uuid, "rh": hashed,
         "mk": market},
    )  # fmt: skip
    if not stored:
        # The same launch, taken by another process meanwhile (PostgreSQL: the insert waited
        # for its commit): its answer is the first.
        first = _first_answer(uow, operator, request_uuid, hashed)
        assert first is not None
        return first
    return code


def purge(uow: UnitOfWork, most: int = PURGE_PER_LAUNCH) -> int:
    """Delete up to ``most`` of the oldest codes that ended an hour ago or more (by the
    index on their expiry); how many."""
    return uow.run(
        "DELETE FROM operator_launches WHERE code_hash IN (SELECT code_hash FROM "
        "operator_launches WHERE expires_us <= :cutoff ORDER BY expires_us LIMIT :n)",
        {"cutoff": uow.now - KEEP_ENDED_US, "n": most},
    )


@dataclass(frozen=True, slots=True)
class Started:
    """A launch code exchanged: the session's token (give it once) and the session."""

    token: str
    csrf: str
    session: OperatorSession


def redeem(
    uow: UnitOfWork, code: str, system: SystemAccounts, ttl_s: int,
    profiles: ProfileSet | None = None,
) -> Started:  # fmt: skip
    """Exchange a launch code (once, within 60 s) for a game session, which plays under
    its market's profile (of ``profiles``: its inactivity time-out is the session's; None:
    no time-out)."""
    row = uow.one(
        "SELECT operator_id, external_player, token, currency, language, table_id, lobby_url, "
        "demo, expires_us, used_us, market FROM operator_launches WHERE code_hash = :h"
        + uow.for_update,
        {"h": _hash(code)},
    )
    reason = (
        "unknown" if row is None else "used" if row[9] is not None
        else "expired" if row[8] <= uow.now else None
    )  # fmt: skip
    if reason is not None or row is None:
        raise ServiceError(
            "invalid_launch_code",
            f"this launch code is {reason}: a code is used once, within 60 seconds",
            reason=reason,
        )
    taken = uow.run(
        "UPDATE operator_launches SET used_us = :now WHERE code_hash = :h AND used_us IS NULL",
        {"now": uow.now, "h": _hash(code)},
    )
    if not taken:
        raise ServiceError("invalid_launch_code", "this launch code is used", reason="used")
    operator_id, player, token, currency, language, table_id, lobby_url, demo = row[:8]
    player_id = _player(uow, operator_id, player, currency, system)
    prefix = "opd." if demo else "opr."
    idle_s = 0 if profiles is None else profiles.of_market(row[10]).inactivity_timeout_s
    session = auth.create_session(uow, player_id, ttl_s, prefix=prefix, idle_s=idle_s)
    hashed = auth.token_hash(session.token)
    uow.run(
        "INSERT INTO operator_sessions (token_hash, player_id, operator_id, token, currency, "
        "language, table_id, lobby_url, demo, created_us, market) VALUES (:h, :p, :o, :tok, "
        ":c, :l, :t, :u, :d, :now, :mk)",
        {"h": hashed, "p": player_id, "o": operator_id, "tok": token, "c": currency,
         "l": language, "t": table_id, "u": lobby_url, "d": demo, "now": uow.now,
         "mk": row[10]},
    )  # fmt: skip
    return Started(
        session.token, session.csrf,
        OperatorSession(hashed, player_id, operator_id, str(player), token, currency, language,
                        table_id, lobby_url, bool(demo), None),
    )  # fmt: skip


def ended(uow: UnitOfWork, code: str) -> tuple[str, str | None] | None:
    """The language and lobby address of a launch code that can no longer be used (None for
    a code never issued, or purged): what the page that says so is written with."""
    row = uow.one(
        "SELECT language, lobby_url FROM operator_launches WHERE code_hash = :h",
        {"h": _hash(code)},
    )
    return None if row is None else (str(row[0]), row[1])


def _player(
    uow: UnitOfWork, operator_id: str, player: str, currency: str, system: SystemAccounts
) -> int:
    """Our player for the operator's player in a currency (made on their first launch)."""
    key = {"o": operator_id, "x": player, "c": currency}
    found = uow.scalar(
        "SELECT player_id FROM operator_players WHERE operator_id = :o "
        "AND external_player = :x AND currency = :c",
        key,
    )
    if found is not None:
        return int(found)
    # Nobody logs in as this player (no password hash verifies), and no nickname of a
    # registered player has a ':'.
    player_id = int(
        uow.scalar(
            "INSERT INTO players (nickname, nickname_key, nickname_norm, password_hash, "
            "created_us) VALUES (:n, :k, NULL, '!', :now) RETURNING id",
            {"n": f"{operator_id}:{player}"[:64], "k": f"{operator_id}:{player}:{currency}",
             "now": uow.now},
        )
    )  # fmt: skip
    uow.run(
        "INSERT INTO operator_players (player_id, operator_id, external_player, currency) "
        "VALUES (:p, :o, :x, :c)",
        key | {"p": player_id},
    )
    # Its accounts of ours (a demo session's play money) are in the session's currency.
    open_player(uow, player_id, system, currency)
    # The person's time-out or self-exclusion, taken in another currency, is this one's too.
    responsible.inherit_exclusion(uow, player_id, operator_id, player)
    return player_id


def lobby_of(uow: UnitOfWork, token_hash: str | None) -> str | None:
    """The lobby address of an operator's session, live or ended (its page leads back)."""
    found = uow.scalar(
        "SELECT lobby_url FROM operator_sessions WHERE token_hash = :h", {"h": token_hash}
    )
    return None if found is None else web_address(str(found))


def session_of(uow: UnitOfWork, token_hash: str | None) -> OperatorSession:
    """The live operator session of a token, or ``not_authenticated`` (``session_inactive``
    past its inactivity time-out: ``auth.live_player``)."""
    row = None
    if token_hash is not None:
        row = uow.one(
            f"SELECT {', '.join(f's.{name}' for name in auth.SESSION_COLUMNS)}, o.operator_id, "
            "p.external_player, o.token, o.currency, o.language, o.table_id, o.lobby_url, "
            "o.demo, o.balance FROM operator_sessions o "
            "JOIN sessions s ON s.token_hash = o.token_hash "
            "JOIN operator_players p ON p.player_id = o.player_id WHERE o.token_hash = :h",
            {"h": token_hash},
        )
    player_id = auth.live_player(uow, row)
    assert row is not None and token_hash is not None
    operator_id, player, token, currency, language, table_id, lobby, demo, bal = row[
        len(auth.SESSION_COLUMNS) :
    ]
    return OperatorSession(
        token_hash, int(player_id), operator_id, str(player), token, currency, language, table_id,
        lobby, bool(demo), None if bal is None else int(bal),
    )  # fmt: skip
