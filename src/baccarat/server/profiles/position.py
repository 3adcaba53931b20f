"""The player's net position and the time spent in the session (UKGC RTS 2E and 13C; AGCO:
the net position in the session's currency), per mode, from the server's counts: the
responsible-gaming session (docs/responsible-gaming.md: play time across logins) and the
rounds played in it."""

from __future__ import annotations

from typing import Any

from baccarat.server import ledger
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.profiles import Profile
from baccarat.server.responsible.checks import (
    Session,
    current_session,
    locked_profile,
    session_result,
    settled_profile,
)


def _position(uow: UnitOfWork, player_id: int, mode: str, session: Session) -> dict[str, Any]:
    return session_result(uow, player_id, session, mode) | {
        "mode": mode, "currency": ledger.currency_of(uow, player_id)
    }  # fmt: skip


def peek(uow: UnitOfWork, player_id: int, mode: str) -> dict[str, Any] | None:
    """The position in a read, when the session needs nothing written first (else None)."""
    settled = settled_profile(uow, player_id)
    return None if settled is None else _position(uow, player_id, mode, settled[1])


def position(uow: UnitOfWork, player_id: int, mode: str) -> dict[str, Any]:
    """The position, in a write: a new session begins here if one is due."""
    _, session = current_session(uow, player_id, locked_profile(uow, player_id))
    return _position(uow, player_id, mode, session)


def after_round(uow: UnitOfWork, profile: Profile, player_id: int, mode: str) -> dict[str, Any]:
    """What a round's answer adds where the profile's felt shows the position (``screen``):
    ``{"position": ...}``, counted with the round in it, in a write (the round's own, or the
    one that records its wallet's answer), so that the felt shows it with the result and
    asks nothing again. Nothing elsewhere."""
    return {"position": position(uow, player_id, mode)} if profile.screen else {}
