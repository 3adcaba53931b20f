"""The rules of a profile that the server enforces inside a round's transaction, and the
profile a session plays under."""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.profiles import Profile, ProfileSet


def market_of(uow: UnitOfWork, token_hash: str | None) -> str | None:
    """The market an operator's launch named for this session (None: none named)."""
    if token_hash is None:
        return None
    found = uow.scalar(
        "SELECT market FROM operator_sessions WHERE token_hash = :h", {"h": token_hash}
    )
    return None if found is None else str(found)


def session_profile(
    uow: UnitOfWork, profiles: ProfileSet, token_hash: str | None, operator: bool
) -> Profile:
    """The profile a session plays under: its launch's market for an operator's session,
    else the deployment's (a player of ours reads nothing for it)."""
    return profiles.of_market(market_of(uow, token_hash) if operator else None)


def admit_house_round(uow: UnitOfWork, profile: Profile, player_id: int) -> None:
    """Refuse a round that would start within the profile's least time (``min_cycle_ms``)
    of the start of the player's last round, in either mode (``cycle_too_soon``, naming the
    rule and when the next may start). The player's row is locked first: two rounds sent at
    once are checked one after the other."""
    if not profile.min_cycle_ms:
        return
    uow.one("SELECT id FROM players WHERE id = :p" + uow.for_update, {"p": player_id})
    last = uow.one(
        "SELECT (SELECT created_us FROM rounds WHERE player_id = :p AND mode = 'fun' "
        "ORDER BY seq DESC LIMIT 1), (SELECT created_us FROM rounds WHERE player_id = :p "
        "AND mode = 'real' ORDER BY seq DESC LIMIT 1)",
        {"p": player_id},
    )
    starts = [int(v) for v in last or () if v is not None]
    if not starts:
        return
    allowed = max(starts) + profile.min_cycle_ms * 1000
    if uow.now < allowed:
        wait_ms = -(-(allowed - uow.now) // 1000)
        raise ServiceError(
            "cycle_too_soon",
            f"a round starts at least {profile.min_cycle_ms / 1000:g} seconds after the start "
            f"of the one before ({profile.name} rules): the next may start in "
            f"{wait_ms / 1000:.1f} seconds",
            rule="min_cycle", profile=profile.name, min_cycle_ms=profile.min_cycle_ms,
            seconds=profile.min_cycle_ms / 1000, wait_ms=wait_ms,
        )  # fmt: skip


def admit_autoplay(profile: Profile, number: int) -> None:
    """Refuse the ``number``-th round of an autoplay where the profile allows no autoplay,
    or fewer rounds (``autoplay_not_allowed``, naming the rule)."""
    if number > profile.autoplay_rounds:
        most = profile.autoplay_rounds
        raise ServiceError(
            "autoplay_not_allowed",
            f"the {profile.name} rules allow no autoplay: start each round yourself" if not most
            else f"an autoplay plays {most} rounds at most under the {profile.name} rules",
            rule="autoplay_rounds", profile=profile.name, most=most, round=number,
        )  # fmt: skip


def admit_tables_at_once(profile: Profile, tables: int) -> None:
    """Refuse a screen of more tables than the profile allows at once
    (``multi_table_not_allowed``, naming the rule)."""
    if tables > profile.tables_at_once:
        most = profile.tables_at_once
        raise ServiceError(
            "multi_table_not_allowed",
            f"the {profile.name} rules allow one table at a time: play them one after the other"
            if most == 1 else f"the {profile.name} rules allow {most} tables at once at most",
            rule="tables_at_once", profile=profile.name, most=most, tables=tables,
        )  # fmt: skip
