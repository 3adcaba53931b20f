"""Favourite bets (docs/jurisdictions.md): a player's named bet layouts, up to ``MOST`` per
table kind, kept with the account; the page places one with a click (the table still
checks its bets when they are dealt or placed)."""

from __future__ import annotations

import json
from typing import Any

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.profiles import Profile
from baccarat.server.tables import bets_from

MOST = 5
NAME_MOST = 24


def require(profile: Profile) -> None:
    """Refuse favourites where the profile switches them off."""
    if not profile.favourites:
        raise ServiceError(
            "favourites_not_allowed",
            f"favourite bets are off under the {profile.name} profile",
            rule="favourites", profile=profile.name,
        )  # fmt: skip


def listed(uow: UnitOfWork, player_id: int, kind: str) -> list[dict[str, Any]]:
    """The player's layouts for a table kind, oldest first."""
    rows = uow.all(
        "SELECT name, bets FROM favourite_bets WHERE player_id = :p AND kind = :k "
        "ORDER BY created_us, name",
        {"p": player_id, "k": kind},
    )
    return [{"name": str(name), "bets": json.loads(bets)} for name, bets in rows]


def _name(name: str) -> str:
    text = name.strip()
    if not 1 <= len(text) <= NAME_MOST or not text.isprintable():
        raise ServiceError(
            "invalid_favourite", f"a favourite's name is 1 to {NAME_MOST} printable characters",
            field="name",
        )  # fmt: skip
    return text


def save(
    uow: UnitOfWork, player_id: int, kind: str, name: str, stakes: dict[str, int]
) -> list[dict[str, Any]]:
    """Save (or replace) a named layout; a sixth name is refused (``favourites_full``)."""
    text = _name(name)
    bets = bets_from(stakes)
    if not bets.to_json():
        raise ServiceError("invalid_favourite", "a favourite holds at least one bet",
                           field="bets")  # fmt: skip
    key = {"p": player_id, "k": kind, "n": text}
    # The player's row first: two saves at once count one after the other.
    uow.one("SELECT id FROM players WHERE id = :p" + uow.for_update, {"p": player_id})
    known = uow.scalar(
        "SELECT COUNT(*) FROM favourite_bets WHERE player_id = :p AND kind = :k AND name <> :n",
        key,
    )
    if int(known or 0) >= MOST:
        raise ServiceError(
            "favourites_full", f"you keep {MOST} favourites at most for these tables: delete "
            "one first", most=MOST, kind=kind,
        )  # fmt: skip
    changed = uow.run(
        "UPDATE favourite_bets SET bets = :b WHERE player_id = :p AND kind = :k AND name = :n",
        key | {"b": json.dumps(bets.to_json())},
    )
    if not changed:
        uow.run(
            "INSERT INTO favourite_bets (player_id, kind, name, bets, created_us) "
            "VALUES (:p, :k, :n, :b, :now)",
            key | {"b": json.dumps(bets.to_json()), "now": uow.now},
        )
    return listed(uow, player_id, kind)


def delete(uow: UnitOfWork, player_id: int, kind: str, name: str) -> list[dict[str, Any]]:
    """Delete a named layout (``not_found`` if there is none of that name)."""
    gone = uow.run(
        "DELETE FROM favourite_bets WHERE player_id = :p AND kind = :k AND name = :n",
        {"p": player_id, "k": kind, "n": name.strip()},
    )
    if not gone:
        raise ServiceError("not_found", f"you have no favourite {name!r} for these tables")
    return listed(uow, player_id, kind)
