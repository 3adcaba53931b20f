"""``baccarat admin void``: a round is void, every stake returns, any payout is taken back.

A house round's void is here; a player-banked round's (where the banker and the casino's
fee are undone too) is ``banked.voids``. Both post through the round pipeline's ``void``.
"""

from __future__ import annotations

from ..core import format_money
from . import ledger, pipeline, responsible
from .banked import voids as banked
from .db.uow import UnitOfWork
from .errors import ServiceError
from .history import StoredRound, get_round
from .ledger import SystemAccounts


def void_round(uow: UnitOfWork, system: SystemAccounts, round_id: str, reason: str) -> StoredRound:
    """Void a round: every stake returns, any payout is taken back, the reason is shown."""
    if banked.is_banked_round(uow, round_id):
        return banked.void_round(uow, system, round_id, reason)
    reason = pipeline.void_reason(reason)
    row = uow.one(
        "SELECT player_id, mode, stake, win, void_reason, created_us FROM rounds WHERE id = :id"
        + uow.for_update,
        {"id": round_id},
    )
    if row is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    player_id, mode, stake, win, voided, played_us = row
    pipeline.require_not_void(round_id, voided)
    account_id, _ = ledger.player_account(uow, int(player_id), mode)
    house = system.get(mode, "house")
    postings = ledger.moves((house, account_id, int(stake)), (account_id, house, int(win)))
    pipeline.void(
        uow, system, round_id, mode, reason, postings,
        f"the player no longer holds the {format_money(int(win) - int(stake))} the void "
        "takes back",
    )  # fmt: skip
    responsible.unadmit_round(uow, int(player_id), mode, int(played_us), int(stake), int(win))
    return get_round(uow, None, round_id)
