"""The wallet port (``money.Wallet``) on our double-entry ledger: every call one balanced
transaction of this database (``ledger.post_money``), in the caller's unit of work.

It has every capability of the port: the money is in this database, so it holds stakes in
escrow (``reserve``), rolls a settled round back (``reverse``: a void), reads a posting's
balance ahead and settles a coup's rounds in one batch (``prefetch``, ``settle_many``).
"""

from __future__ import annotations

from collections.abc import Sequence

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.ledger import (
    POSTING,
    ROUND_KINDS,
    LedgerError,
    SystemAccounts,
    player_account,
    post_money,
    post_monies,
)
from baccarat.server.money import Batching, Money, Move, Posted, Reserving, Reversing


class LedgerWallet:
    """Balances in our ledger, on the casino's accounts ``system``."""

    def __init__(self, system: SystemAccounts) -> None:
        self.system = system
        # Every capability of the port (``money``): the wallet itself.
        self.reserving: Reserving = self
        self.reversing: Reversing = self
        self.batching: Batching = self

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int:
        return player_account(uow, player_id, mode)[1]

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        _check_round_kind(kind)
        return post_money(uow, kind, mode, reference, money, system=self.system)

    def reserve(
        self, uow: UnitOfWork, kind: str, mode: str, reference: str, player_id: int, amount: int
    ) -> None:
        if amount:
            held = Move(player_id, "escrow", amount)
            moved = Money((held if amount > 0 else Move("escrow", player_id, -amount),))
            post_money(uow, kind, mode, reference, moved, system=self.system, with_id=False)

    def reverse(
        self, uow: UnitOfWork, mode: str, reference: str, money: Money, memo: str
    ) -> Posted:
        return post_money(uow, "void", mode, reference, money.reversed(), system=self.system,
                          memo=memo)  # fmt: skip

    def prefetch(self, uow: UnitOfWork, mode: str, player_id: int) -> None:
        """The player's balance, read and locked ahead of a round's posting (``POSTING``)."""
        POSTING.ahead(uow, (player_id, mode))

    def settle_many(
        self, uow: UnitOfWork, kind: str, mode: str, monies: Sequence[tuple[str, Money]]
    ) -> list[Posted]:
        _check_round_kind(kind)
        return post_monies(uow, kind, mode, monies, system=self.system)


def _check_round_kind(kind: str) -> None:
    if kind not in ROUND_KINDS:
        raise LedgerError(f"{kind!r} is not a round's transaction: {ROUND_KINDS}")
