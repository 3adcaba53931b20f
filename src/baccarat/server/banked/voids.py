"""Voiding a player-banked round (``baccarat admin void``): everyone gets their money back."""

from __future__ import annotations

from .. import history
from ..db.uow import UnitOfWork
from ..errors import ServiceError
from ..ledger import SystemAccounts, post
from . import money
from .seats import add_points


def is_banked_round(uow: UnitOfWork, round_id: str) -> bool:
    found = uow.scalar("SELECT 1 FROM banked_rounds WHERE round_id = :id", {"id": round_id})
    return found is not None


def void_round(
    uow: UnitOfWork, system: SystemAccounts, round_id: str, reason: str
) -> history.RoundRecord:
    """Void a player-banked round: the player gets every stake back (less what the round
    returned), the banker gives back what it won (or gets back what it paid), the casino
    returns its fee, and the loyalty points of the round are undone."""
    reason = reason.strip()
    if not reason:
        raise ServiceError("void_not_possible", "a void needs a reason")
    row = uow.one(
        "SELECT r.player_id, r.mode, r.stake, r.win, r.void_reason, b.banker_id, b.fee, "
        "b.player_points, b.banker_points FROM rounds r JOIN banked_rounds b "
        "ON b.round_id = r.id WHERE r.id = :id" + uow.lock("r"),
        {"id": round_id},
    )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    player_id, mode, stake, win, voided, banker_id, fee, player_points, banker_points = row
    if voided is not None:
        raise ServiceError("void_not_possible", f"round {round_id} is already void: {voided}")
    postings = money.void_postings(
        uow, system, mode, player_id=int(player_id), banker_id=int(banker_id),
        stake=int(stake), returned=int(win), fee=int(fee),
    )  # fmt: skip
    try:
        tx_id = post(uow, "void", mode, postings, reference=round_id, memo=reason, system=system)
    except ServiceError as error:
        if error.code != "insufficient_funds":
            raise
        raise ServiceError(
            "void_not_possible",
            "a participant of this player-banked round no longer holds what the void takes back",
            **error.details,
        ) from None
    add_points(uow, int(player_id), mode, -int(player_points))
    add_points(uow, int(banker_id), mode, int(banker_points))
    uow.run(
        "UPDATE rounds SET void_reason = :r, voided_us = :now, void_transaction_id = :tx "
        "WHERE id = :id",
        {"r": reason, "now": uow.now, "tx": tx_id, "id": round_id},
    )
    return history.get_round(uow, None, round_id)
