"""A time-out or a self-exclusion is the person's, whatever the currency.

An operator's player is one player of ours per currency (``operator_players``: the
operator, the operator's id of its player, the currency: a round is in one currency), and
one person in all of them. So an exclusion taken as any of them is written to each of them;
a player of ours made later for the same person (a launch in another currency) starts with
the person's exclusion in force; and a launch of an excluded person is refused. A player of
our own (registered here) is a person alone.

Limits stay each player's, that is each currency's: deposit, loss and wager limits are
amounts in the currency's minor unit (adding yen to euros would need an exchange rate that
nobody agreed to), and the session limit and the reality check count the play of the
session they were set in (docs/responsible-gaming.md, "Operators").

PostgreSQL (READ COMMITTED): an exclusion and the making of a new player of the same person
may run at once. Each first locks the person's rows of ``operator_players``, then reads
them (and their exclusions) again, in a statement that sees what was committed while it
waited: whichever commits second sees the other, so that either the exclusion is written to
the new player or the new player inherits it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import iso_time
from baccarat.server.responsible.checks import audit, locked_profile, refuse_exclusion, save_profile

_PERSON = (
    "SELECT o.player_id FROM operator_players o JOIN operator_players me "
    "ON me.operator_id = o.operator_id AND me.external_player = o.external_player "
    "WHERE me.player_id = :p ORDER BY o.player_id"
)
# The person's exclusion in force: the latest end, a self-exclusion before a time-out.
_EXCLUDED = (
    "SELECT rp.excluded_until_us, rp.exclusion, o.player_id FROM operator_players o "
    "JOIN responsible_players rp ON rp.player_id = o.player_id "
    "WHERE o.operator_id = :o AND o.external_player = :x AND rp.excluded_until_us > :now "
    "ORDER BY rp.excluded_until_us DESC, "
    "CASE WHEN rp.exclusion = 'self_exclusion' THEN 0 ELSE 1 END, o.player_id LIMIT 1"
)


def players(uow: UnitOfWork, player_id: int) -> list[int]:
    """Every player of ours of the person ``player_id`` is, in id order (the player alone
    for one of our own), locked and read again after the lock (see above)."""
    if uow.lock("o"):
        uow.all(_PERSON + uow.lock("o"), {"p": player_id})
    return [int(row[0]) for row in uow.all(_PERSON, {"p": player_id})] or [player_id]


def exclude(uow: UnitOfWork, player_id: int, kind: str, until: int, **asked: int) -> None:
    """Exclude the person (every player of theirs) until ``until``; each one's audit log
    says so, the others' with the player it was taken as (``from_player``)."""
    for each in players(uow, player_id):
        shared = {} if each == player_id else {"from_player": player_id}
        _exclude_one(uow, each, kind, until, **asked, **shared)


def _exclude_one(uow: UnitOfWork, player_id: int, kind: str, until: int, **asked: Any) -> None:
    profile = locked_profile(uow, player_id)
    # An exclusion in force is never shortened: the later end stands.
    before = profile.excluded_until_us
    if (
        profile.excluded(uow.now)
        and before is not None
        and (before > until or (before == until and profile.exclusion == "self_exclusion"))
    ):
        effective, until = profile.exclusion or kind, before
    else:
        effective = kind
    save_profile(uow, player_id, replace(profile, excluded_until_us=until, exclusion=effective))
    audit(uow, player_id, kind, until=iso_time(until), kind_in_force=effective, **asked)


def _excluded(uow: UnitOfWork, operator_id: str, external: str) -> tuple[int, str, int] | None:
    row = uow.one(_EXCLUDED, {"o": operator_id, "x": external, "now": uow.now})
    return None if row is None else (int(row[0]), str(row[1]), int(row[2]))


def refuse_excluded_person(uow: UnitOfWork, operator_id: str, external: str) -> None:
    """Refuse (``timed_out``, ``self_excluded``) while the operator's player is excluded, in
    whichever currency they took it."""
    found = _excluded(uow, operator_id, external)
    if found is not None:
        until, kind, _ = found
        refuse_exclusion(until, kind, uow.now)


def inherit_exclusion(uow: UnitOfWork, player_id: int, operator_id: str, external: str) -> None:
    """A new player of ours of an operator's player (a new currency): the person's
    exclusion in force is theirs from the start."""
    players(uow, player_id)  # the lock, so that an exclusion taken meanwhile is seen
    found = _excluded(uow, operator_id, external)
    if found is not None:
        until, kind, source = found
        _exclude_one(uow, player_id, kind, until, from_player=source)
