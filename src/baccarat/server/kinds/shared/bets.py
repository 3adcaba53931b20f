"""A bettor's bets on a shared coup, during its window.

``place`` replaces what the bettor had on the coup in a mode (an empty map withdraws it):
the table's limits and the responsible-gaming checks apply at once, and the difference
moves between the balance and escrow at once through the wallet port (``shared_bet``, or
``shared_bet_return``), so a bet the balance cannot cover is refused. At a multiplier table
the fee goes with the stake (held in escrow with it, and given back with it while the
window is open: it is taken for good when the coup is settled). After the close
nothing changes: ``betting_closed``, nothing taken. A table the back office switched off
takes no new bets (``table_disabled``; bets can be withdrawn, a coup with bets is dealt),
and its changed limits apply to the next bets. The coup's row is locked (shared) for
the placement, and exclusively by its deal: a placement that was waiting when the coup was
dealt finds it dealt and is refused; one that got in first is settled with the coup. The
bettor's own row of bets is locked (for update) before the difference is computed from it:
two placements of one bettor run one after the other, the second from what the first left.
"""

from __future__ import annotations

import json
from typing import Any

from baccarat.core import Bets, format_money
from baccarat.server import responsible, switches
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds.shared.clock import load_coup, require_shared
from baccarat.server.ledger import check_mode
from baccarat.server.play.round import Dealer
from baccarat.server.tables import Table


def placed(
    uow: UnitOfWork, coup_id: int, player_id: int, mode: str, *, lock: bool = False
) -> tuple[Bets, int]:
    """The bettor's bets on the coup in a mode, and what they took from the balance (their
    stake, and at a multiplier table the fee taken with it); with ``lock``, their row
    locked (PostgreSQL) until the commit, so that a placement computes from what it holds."""
    row = uow.one(
        "SELECT bets, stake + fee FROM shared_bets WHERE coup_id = :c AND player_id = :p "
        "AND mode = :m" + (uow.for_update if lock else ""),
        {"c": coup_id, "p": player_id, "m": mode},
    )
    if row is None:
        return Bets({}), 0
    return Bets(json.loads(row[0])), int(row[1])


def place(
    uow: UnitOfWork, dealer: Dealer, table: Table, coup_id: int, player_id: int, mode: str,
    bets: Bets,
) -> dict[str, Any]:  # fmt: skip
    """The bettor's bets on the coup, replacing theirs; the answer of the PUT."""
    check_mode(mode)
    require_shared(table)
    coup = load_coup(uow, table, coup_id, lock=uow.for_share)
    if coup.dealt_us is not None or uow.now >= coup.closes_us:
        raise ServiceError(
            "betting_closed",
            f"betting on coup {coup_id} closed at the server's clock: nothing was taken",
            table=table.id, coup=coup_id, closed_at=coup.closes_us, server_time=uow.now,
        )  # fmt: skip
    # What the wallet moves is computed from the bets held: their row is read locked, so a
    # placement of the same bettor on another connection (PostgreSQL's READ COMMITTED)
    # waits here for this one's commit and then reads what it left, not a value it
    # replaced. Where there is no row yet, two placements both insert and the second's
    # unique key fails: the writer runs it again, and it reads the first one's row.
    _, before = placed(uow, coup_id, player_id, mode, lock=True)
    key = {"c": coup_id, "p": player_id, "m": mode}
    wagered = 0
    if bets.total:
        # The back office's kill switch and limits (a bet can still be withdrawn).
        table = switches.in_play(uow, table)
        table.check_bets(bets)
        wagered = table.wagered(bets)
        if before:
            # The limits see the new bets in place of these (unsettled bets count as used).
            uow.run(
                "UPDATE shared_bets SET stake = 0, fee = 0 WHERE coup_id = :c AND player_id = :p "
                "AND mode = :m",
                key,
            )
        responsible.check_stake(uow, player_id, mode, wagered)
    delta, fee = wagered - before, wagered - bets.total
    # A wallet that holds no stakes here (an operator's) takes them by its own bet call.
    escrow = dealer.wallet.reserving
    if delta and escrow is not None:
        kind = "shared_bet" if delta > 0 else "shared_bet_return"
        try:
            escrow.reserve(uow, kind, mode, f"coup {coup_id}", player_id, delta)
        except ServiceError as error:
            if error.code != "insufficient_funds":
                raise
            balance = dealer.wallet.balance(uow, player_id, mode)
            raise ServiceError(
                "insufficient_funds",
                f"the bets need {format_money(delta)} more than you have on this coup; "
                f"the {mode} balance is {format_money(balance)}",
                stake=wagered, placed=before, balance=balance,
            ) from None  # fmt: skip
    if not bets.total:
        # Only the row read (and locked) above: where none was read, a placement committed
        # since on another connection is not this one's to delete (its stake is in escrow).
        if before:
            uow.run(
                "DELETE FROM shared_bets WHERE coup_id = :c AND player_id = :p AND mode = :m", key
            )
    elif before:
        uow.run(
            "UPDATE shared_bets SET bets = :b, stake = :s, fee = :f, updated_us = :now "
            "WHERE coup_id = :c AND player_id = :p AND mode = :m",
            key | {"b": _stakes(bets), "s": bets.total, "f": fee, "now": uow.now},
        )
    else:
        uow.run(
            "INSERT INTO shared_bets (coup_id, player_id, mode, bets, stake, fee, updated_us) "
            "VALUES (:c, :p, :m, :b, :s, :f, :now)",
            key | {"b": _stakes(bets), "s": bets.total, "f": fee, "now": uow.now},
        )
    return {
        "table_id": table.id,
        "coup": coup_id,
        "mode": mode,
        "bets": dict(bets.placed()),
        "stake": bets.total,
        "fee": fee,
        "balance": dealer.wallet.balance(uow, player_id, mode),
        "closes_at": coup.closes_us,
        "server_time": uow.now,
    }


def _stakes(bets: Bets) -> str:
    return json.dumps(dict(bets.placed()), separators=(",", ":"))
