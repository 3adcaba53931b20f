"""The money of a player-banked seat: every movement a balanced ledger transaction.

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
- ``banked_round``: the settlement, four pairs of entries: escrow -> banker (the reserve
  back), escrow -> banker (the player's stakes: the banker covers every bet), banker ->
  player (the stakes returned and the winnings), banker -> house (the casino's fee).
"""

from __future__ import annotations

from ..db.uow import UnitOfWork
from ..ledger import Posting, SystemAccounts, moves, player_account, post_round, transfer


def escrow(system: SystemAccounts, mode: str) -> int:
    return system.get(mode, "escrow")


def hold_bets(
    uow: UnitOfWork, system: SystemAccounts, seat_id: str, mode: str, player_id: int, delta: int
) -> None:
    """Move ``delta`` cents of bets into escrow (positive) or back to the player (negative).

    Refused with ``insufficient_funds`` if the player's balance does not cover more bets.
    """
    if delta == 0:
        return
    account, _ = player_account(uow, player_id, mode)
    if delta > 0:
        transfer(uow, "banked_bet", mode, account, escrow(system, mode), delta,
                 reference=seat_id, system=system)  # fmt: skip
    else:
        transfer(uow, "banked_bet_return", mode, escrow(system, mode), account, -delta,
                 reference=seat_id, system=system)  # fmt: skip


def reserve(
    uow: UnitOfWork, system: SystemAccounts, seat_id: str, mode: str, banker_id: int, amount: int
) -> None:
    account, _ = player_account(uow, banker_id, mode)
    transfer(uow, "banked_reserve", mode, account, escrow(system, mode), amount,
             reference=seat_id, system=system)  # fmt: skip


def release(
    uow: UnitOfWork, system: SystemAccounts, seat_id: str, mode: str, banker_id: int, amount: int
) -> None:
    if amount == 0:
        return
    account, _ = player_account(uow, banker_id, mode)
    transfer(uow, "banked_release", mode, escrow(system, mode), account, amount,
             reference=seat_id, system=system)  # fmt: skip


def settle_round(
    uow: UnitOfWork,
    system: SystemAccounts,
    round_id: str,
    mode: str,
    *,
    player_id: int,
    banker_id: int,
    reserve: int,
    stake: int,
    returned: int,
    fee: int,
) -> int:
    """The round's one settlement transaction; its id."""
    player, _ = player_account(uow, player_id, mode)
    banker, _ = player_account(uow, banker_id, mode)
    held, house = escrow(system, mode), system.get(mode, "house")
    postings = moves((held, banker, reserve), (held, banker, stake), (banker, player, returned),
                     (banker, house, fee))  # fmt: skip
    return post_round(uow, "banked_round", mode, round_id, postings, system=system)


def void_postings(
    uow: UnitOfWork,
    system: SystemAccounts,
    mode: str,
    *,
    player_id: int,
    banker_id: int,
    stake: int,
    returned: int,
    fee: int,
) -> list[Posting]:
    """A void: the player gets every stake back (less what was returned), the banker gives
    back the stakes it kept (less what it paid), and the casino returns its fee."""
    player, _ = player_account(uow, player_id, mode)
    banker, _ = player_account(uow, banker_id, mode)
    house = system.get(mode, "house")
    return moves((banker, player, stake), (player, banker, returned), (house, banker, fee))
