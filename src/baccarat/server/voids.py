"""``baccarat admin void``: a round is void, every stake returns, any payout is taken back.

Every round is voided by ``round.void`` with the bank that covered it: the house
(``rounds.HOUSE``) or the seat's banker (``banked.bank.PlayerBank``, which also returns the
casino's fee and the round's loyalty points).
"""

from __future__ import annotations

from .banked.bank import PlayerBank
from .db.uow import UnitOfWork
from .errors import ServiceError
from .history import StoredRound, get_round
from .round import Dealer, void
from .rounds import HOUSE


def void_round(uow: UnitOfWork, dealer: Dealer, round_id: str, reason: str) -> StoredRound:
    """Void a round: every stake returns, any payout is taken back, the reason is shown."""
    player_id = uow.scalar(
        "SELECT player_id FROM rounds WHERE id = :id" + uow.for_update, {"id": round_id}
    )
    if player_id is None:
        raise ServiceError("unknown_round", f"there is no round {round_id!r}", round=round_id)
    elsewhere = uow.scalar(
        "SELECT operator_id FROM operator_rounds WHERE round_id = :id", {"id": round_id}
    )
    if elsewhere is not None:
        # Its money is on the operator's wallet: a void here would move none of it.
        raise ServiceError(
            "void_not_possible",
            f"round {round_id} is on the wallet of operator {elsewhere}: the operator settles "
            "it (baccarat admin operators calls shows its transactions)",
            round=round_id,
        )
    bank = PlayerBank.of_round(uow, round_id) or HOUSE
    return void(uow, dealer, bank, get_round(uow, None, round_id), int(player_id), reason)
