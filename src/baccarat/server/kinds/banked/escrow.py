"""What a player-banked seat holds in escrow, through the wallet port (``money.Wallet``).

The escrow account of the mode (one per mode; its balance is derived from its entries like
the house's, so that seats never wait for each other on it) holds what is in play at a
seat: the player's bets placed but not dealt, and the banker's exposure reserved while a
round is open (the most that round can cost the banker). So neither can spend that money
elsewhere meanwhile, and the settlement can never overdraw anyone.

Transactions (``kind``; ``reference`` is the seat, or the round for the settlement):
- ``banked_bet``: player -> escrow, the bets placed (or more of them);
- ``banked_bet_return``: escrow -> player, bets taken back, or returned undealt;
- ``banked_reserve``: banker -> escrow, the exposure, when the banker approves a round;
- ``banked_release``: escrow -> banker, the exposure, when a round ends undealt;
- ``banked_round``: the settlement (``bank.PlayerBank.money``): escrow -> banker (the
  reserve back), escrow -> banker (the player's stakes: the banker covers every bet),
  banker -> player (the stakes returned and the winnings), banker -> house (the fee).
"""

from __future__ import annotations

from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.money import Reserving, Wallet


def _escrow(wallet: Wallet) -> Reserving:
    """The wallet as one that holds money in escrow; refused if it holds none (a seat's
    money, the banker's exposure above all, cannot be split across wallets)."""
    escrow = wallet.reserving
    if escrow is None:
        raise ServiceError(
            "player_banked_table", "player-banked tables play on the casino's own wallet"
        )
    return escrow


def hold_bets(
    uow: UnitOfWork, wallet: Wallet, seat_id: str, mode: str, player_id: int, delta: int
) -> None:
    """Move ``delta`` cents of bets into escrow (positive) or back to the player (negative).

    Refused with ``insufficient_funds`` if the player's balance does not cover more bets.
    """
    kind = "banked_bet" if delta > 0 else "banked_bet_return"
    _escrow(wallet).reserve(uow, kind, mode, seat_id, player_id, delta)


def reserve(
    uow: UnitOfWork, wallet: Wallet, seat_id: str, mode: str, banker_id: int, amount: int
) -> None:
    _escrow(wallet).reserve(uow, "banked_reserve", mode, seat_id, banker_id, amount)


def release(
    uow: UnitOfWork, wallet: Wallet, seat_id: str, mode: str, banker_id: int, amount: int
) -> None:
    _escrow(wallet).reserve(uow, "banked_release", mode, seat_id, banker_id, -amount)
