"""Voiding a player-banked round (``baccarat admin void``): everyone gets their money back."""

from __future__ import annotations

from .. import history, pipeline, responsible
from ..db.uow import UnitOfWork
from ..errors import ServiceError
from ..ledger import SystemAccounts
from . import money
from .seats import add_points


def is_banked_round(uow: UnitOfWork, round_id: str) -> bool:
    found = uow.scalar("SELECT 1 FROM banked_rounds WHERE round_id = :id", {"id": round_id})
    return found is not None


def void_round(
    uow: UnitOfWork, system: SystemAccounts, round_id: str, reason: str
) -> history.StoredRound:
    """Void a player-banked round: the player gets every stake back (less what the round
    returned), the banker gives back what it won (or gets back what it paid), the casino
    returns its fee, and the loyalty points of the round are undone."""
    reason = pipeline.void_reason(reason)
    row = uow.one(
        "SELECT r.player_id, r.mode, r.stake, r.win, r.void_reason, b.banker_id, b.fee, "
        "b.player_points, b.banker_points, r.created_us, b.banker_after - b.banker_before "
        "FROM rounds r JOIN banked_rounds b "
        "ON b.round_id = r.id WHERE r.id = :id" + uow.lock("r"),
        {"id": round_id},
    )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    (player_id, mode, stake, win, voided, banker_id, fee, player_points, banker_points,
     played_us, banker_net) = row  # fmt: skip
    pipeline.require_not_void(round_id, voided)
    postings = money.void_postings(
        uow, system, mode, player_id=int(player_id), banker_id=int(banker_id),
        stake=int(stake), returned=int(win), fee=int(fee),
    )  # fmt: skip
    pipeline.void(
        uow, system, round_id, mode, reason, postings,
        "a participant of this player-banked round no longer holds what the void takes back",
    )  # fmt: skip
    add_points(uow, int(player_id), mode, -int(player_points))
    add_points(uow, int(banker_id), mode, int(banker_points))
    responsible.unadmit_banked_round(
        uow, int(player_id), int(banker_id), mode, int(played_us), int(stake), int(win),
        int(banker_net),
    )  # fmt: skip
    return history.get_round(uow, None, round_id)
