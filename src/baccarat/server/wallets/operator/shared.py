"""Bets at a shared table from an operator's session, on the operator's wallet
(docs/operator-api.md, "Shared tables"): the bettors whose money lives elsewhere.

A bettor's bets on a coup are one round on the operator's wallet (``operator_rounds`` with
its ``coup_id``), created when they are placed, in the same transaction as the bets
(``shared_bets``, which name it: ``operator_round``) and its bet call (the outbox): state
``bet``. Its bet answered ``RS_OK`` before the close -> ``placed``: the bets stand for the
coup. At the close (``OperatorCoups.close``, in the deal's transaction) a round still in
``bet`` is not played: its bets leave the coup and it is rolled back (the worker sends the
rollback until it is answered); the ``placed`` ones are settled by the one round function on
the coup's cards, each round's money step (``CoupWallet.settle``) moving it to ``win`` with
its win written (0 on a loss: it closes the round), which the worker sends until it lands.
The casino covers them as every bettor of the coup (``SharedBank``), their stakes not in
our escrow but taken by their bet calls: ``COUP_BANK``, a house round's posting each.

Replacing the bets during the window (the PUT) is what the contracts' calls allow safely:
the earlier round, if its bets change, is rolled back whole (a rollback of its bet) and the
new bets are a new round with a bet call of their whole stake; an empty map only rolls the
earlier round back. The contract has no partial refund, and a second bet on the same round
would need a win that refers to two bets.
"""

from __future__ import annotations

import json
from typing import Any

from baccarat.core import Bets
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.dealing import ShoeFactory
from baccarat.server.kinds.shared import bets as shared_bets
from baccarat.server.kinds.shared.bank import SharedBank
from baccarat.server.kinds.shared.clock import Batch, load_coup
from baccarat.server.ledger import record_elsewhere
from baccarat.server.money import Money, Posted
from baccarat.server.play.round import Dealer, Stake, new_round_id
from baccarat.server.tables import Table
from baccarat.server.wallets.operator import outbox
from baccarat.server.wallets.operator.contract import WalletProtocol
from baccarat.server.wallets.operator.outbox import DEFAULT_CONTRACT, Call, OperatorSession


class CoupWallet:
    """The wallet port toward the operators' wallets for a shared coup's bettors: the stake
    is the bet call the placement wrote (nothing is held here: it does not reserve), and the
    coup's settlement of a bettor writes their round's win. None of the port's capabilities
    (``money``): a coup of its bettors is settled a round at a time, and never voided here."""

    reserving = reversing = batching = None

    def __init__(self, session: OperatorSession | None = None) -> None:
        self.session = session

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int:
        return 0 if self.session is None else self.session.balance or 0

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        row = uow.one(
            "SELECT operator_id, state, stake, balance, currency FROM operator_rounds "
            "WHERE round_id = :r",
            {"r": reference},
        )
        assert row is not None and row[1] == outbox.PLACED, (reference, row)
        operator_id, _, stake, balance, currency = row
        (player,) = money.players
        returned = money.covers[player] + money.net(player)
        tx_id = record_elsewhere(uow, mode, reference, f"on the wallet of operator {operator_id}")
        uow.run(
            "UPDATE operator_rounds SET state = 'win', win = :win, attempts = 0, "
            "next_us = :now, lease_us = 0 WHERE round_id = :r",
            {"win": returned, "now": uow.now, "r": reference},
        )
        # The operator's balance once the bet was applied, the win added (as shown; the
        # player's sessions show it too until the win's answer gives the operator's).
        after = (int(balance) if balance is not None else int(stake)) + returned
        outbox.show_balance(uow, player, None, plus=returned)
        return Posted(tx_id, {player: after}, str(currency))


# The casino covers an operator's bettor at a shared coup: a house round's posting (the
# stake debited, the return credited), on the operator's wallet; nothing in escrow.
COUP_BANK = SharedBank(escrowed=False)


def _previous(uow: UnitOfWork, coup_id: int, player_id: int) -> tuple[Bets, str | None]:
    row = uow.one(
        "SELECT bets, operator_round FROM shared_bets WHERE coup_id = :c AND player_id = :p "
        "AND mode = 'real'",
        {"c": coup_id, "p": player_id},
    )
    return (Bets({}), None) if row is None else (Bets(json.loads(row[0])), row[1])


def _held(uow: UnitOfWork, table: Table, coup_id: int, player_id: int) -> tuple[Bets, str | None]:
    """The bettor's bets on the coup and the round holding them, locked (PostgreSQL) in the
    order every writer takes them: the coup (shared), the round, then the bets (the deal
    and a call's answer lock the round before the bets too)."""
    if uow.locks_rows:
        load_coup(uow, table, coup_id, lock=uow.for_share)
    before, earlier = _previous(uow, coup_id, player_id)
    while earlier is not None and uow.locks_rows:
        uow.one("SELECT 1 FROM operator_rounds WHERE round_id = :r FOR UPDATE", {"r": earlier})
        # Another placement may have replaced the round before we held it.
        before, again = _previous(uow, coup_id, player_id)
        if again == earlier:
            break
        earlier = again
    return before, earlier


def place(
    uow: UnitOfWork, session: OperatorSession, table: Table, player_id: int, lease_s: float,
    contract: WalletProtocol = DEFAULT_CONTRACT, *, shoes: ShoeFactory, coup_id: int, bets: Bets,
) -> tuple[dict[str, Any], list[Call]]:  # fmt: skip
    """The bettor's bets on the coup, replacing theirs (checked as every bettor's), on the
    operator's wallet (its ``contract``): the answer, and the calls to send in order (the
    earlier round's rollback, then the new round's bet), all written here."""
    before, earlier = _held(uow, table, coup_id, player_id)
    dealer = Dealer(shoes, CoupWallet(session))
    answer = shared_bets.place(uow, dealer, table, coup_id, player_id, "real", bets)
    calls: list[Call] = []
    if earlier is not None and before == bets:
        state, _ = outbox.state_of(uow, earlier)
        if state in ("bet", outbox.PLACED):
            return answer | {"operator_round": earlier}, calls  # the same bets: they stand
    if earlier is not None:
        withdrawn = outbox.withdraw(uow, earlier, lease_s)
        if withdrawn is not None:
            calls.append(withdrawn)
    round_id = None
    if bets.total:
        round_id = new_round_id(uow.now)
        calls.append(outbox.coup_bet(uow, session, table.id, coup_id, round_id, bets,
                                     table.wagered(bets), lease_s, contract))  # fmt: skip
        uow.run(
            "UPDATE shared_bets SET operator_round = :r WHERE coup_id = :c AND player_id = :p "
            "AND mode = 'real'",
            {"r": round_id, "c": coup_id, "p": player_id},
        )
    return answer | {"operator_round": round_id}, calls


class OperatorCoups:
    """The shared tables' bettors on operators' wallets, at a coup's close
    (``clock.Elsewhere``)."""

    def __init__(self, shoes: ShoeFactory) -> None:
        self.dealer = Dealer(shoes, CoupWallet())

    def close(self, uow: UnitOfWork, coup_id: int) -> list[Batch]:
        """The coup closes: its bets not applied by now are not played (rolled back); the
        others, the batch to settle on its cards."""
        rows = uow.all(
            "SELECT round_id, state FROM operator_rounds WHERE coup_id = :c "
            "AND state IN ('bet', 'placed') ORDER BY round_id" + uow.for_update,
            {"c": coup_id},
        )
        stands = uow.all(
            "SELECT sb.player_id, sb.bets, sb.operator_round FROM shared_bets sb "
            "JOIN operator_rounds o ON o.round_id = sb.operator_round "
            "WHERE sb.coup_id = :c AND sb.mode = 'real' AND sb.stake > 0 "
            "AND o.state = 'placed' ORDER BY sb.player_id",
            {"c": coup_id},
        )
        played = {str(r) for _, _, r in stands}
        for round_id, _ in rows:
            # Not applied by the close (or, placed, no longer holding bets on the coup: never
            # left so): not played, rolled back.
            if str(round_id) not in played:
                outbox.roll_back_later(uow, str(round_id))
        if not stands:
            return []
        stakes = [Stake(int(p), Bets(json.loads(b))) for p, b, _ in stands]
        return [Batch(self.dealer, COUP_BANK, "real", stakes, [str(r) for _, _, r in stands])]

    def cancel(self, uow: UnitOfWork, coup_id: int) -> None:
        """The coup will never be dealt (its table is retired): every round on it that is
        not final is rolled back."""
        for (round_id,) in uow.all(
            "SELECT round_id FROM operator_rounds WHERE coup_id = :c "
            "AND state IN ('bet', 'placed') ORDER BY round_id" + uow.for_update,
            {"c": coup_id},
        ):
            outbox.roll_back_later(uow, str(round_id))
