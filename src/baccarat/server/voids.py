"""``baccarat admin void``: a round is void, every stake returns, any payout is taken back.

Every round is voided by ``round.void`` with the bank that covered it: the house
(``rounds.HOUSE``; ``shared.bank.SHARED`` at a shared table) or the seat's banker
(``banked.bank.PlayerBank``, which also returns the casino's fee and the round's loyalty
points). A shared table's coup is voided for every bettor of it (``void_coup``).
"""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.history import StoredRound, get_round
from baccarat.server.kinds.banked.bank import PlayerBank
from baccarat.server.kinds.house.service import HOUSE
from baccarat.server.kinds.shared.bank import SHARED
from baccarat.server.play.round import Bank, Dealer, void


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
    recorded = get_round(uow, None, round_id)
    return void(uow, dealer, bank_of(uow, recorded), recorded, int(player_id), reason)


def bank_of(uow: UnitOfWork, recorded: StoredRound) -> Bank:
    """The bank that covered a recorded round: the seat's banker, or the house (a shared
    table's, whose stakes came from escrow)."""
    return PlayerBank.of_round(uow, recorded.id) or (SHARED if recorded.shared else HOUSE)


def void_coup(uow: UnitOfWork, dealer: Dealer, coup_id: int, reason: str) -> list[StoredRound]:
    """Void a shared table's dealt coup: every bettor's round of it, each as a round is
    voided (stakes returned, payouts taken back); the coup is marked void (out of the
    table's roads)."""
    row = uow.one(
        "SELECT dealt_us, void_reason FROM shared_coups WHERE id = :id" + uow.for_update,
        {"id": coup_id},
    )
    if row is None:
        raise ServiceError("unknown_coup", f"there is no coup {coup_id}", coup=coup_id)
    if row[0] is None:
        raise ServiceError("void_not_possible", f"coup {coup_id} is not dealt yet", coup=coup_id)
    if row[1] is not None:
        raise ServiceError(
            "void_not_possible", f"coup {coup_id} is already void: {row[1]}", coup=coup_id
        )
    rounds = uow.all(
        "SELECT round_id FROM shared_bets WHERE coup_id = :c AND round_id IS NOT NULL "
        "ORDER BY player_id, mode",
        {"c": coup_id},
    )
    voided = [void_round(uow, dealer, str(round_id), reason) for (round_id,) in rounds]
    uow.run(
        "UPDATE shared_coups SET void_reason = :r WHERE id = :id",
        {"r": reason.strip(), "id": coup_id},
    )
    return voided
