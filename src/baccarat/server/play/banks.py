"""The casino covers the bets: the house's posting of a bettor's round, and the house's
``Bank`` (``round.Bank``), which every kind of table the casino banks uses as it is or
builds on (a house table's round; a shared coup's, whose void is a house round's)."""

from __future__ import annotations

from collections.abc import Sequence

from baccarat.server import responsible
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.history import StoredRound
from baccarat.server.money import Money, Move
from baccarat.server.play.round import Played, Settled


def house_posting(settled: Settled) -> Money:
    """A bettor's round against the house, as one posting: the stake to the house (and at
    a multiplier table the fee taken with it, a move of its own), what returns (stakes
    included, never the fee) back; the stake and fee must be covered before anything
    returns."""
    player = settled.player_id
    moves = (
        Move(player, "house", settled.stake),
        *((Move(player, "house", settled.fee),) if settled.fee else ()),
        Move("house", player, settled.returned),
    )
    return Money(moves, {player: settled.wagered})


def uncount(uow: UnitOfWork, mode: str, played_us: int, settled: Sequence[Settled]) -> None:
    """A voided round of the house leaves its bettors' responsible-gaming usage."""
    for one in settled:
        responsible.uncount(uow, one.player_id, mode, played_us, one.wagered, -one.net)


class HouseBank:
    """The casino covers the bets: each bettor's stake to the house, what returns back."""

    kind = "round"

    def admit(self, uow: UnitOfWork, mode: str, settled: Sequence[Settled]) -> None:
        for one in settled:
            # What the round wagers is its stakes and the fee taken with them.
            responsible.admit_round(uow, one.player_id, mode, one.wagered, one.returned)

    def unadmit(
        self, uow: UnitOfWork, mode: str, played_us: int, settled: Sequence[Settled]
    ) -> None:
        uncount(uow, mode, played_us, settled)

    def money(self, mode: str, settled: Sequence[Settled]) -> list[Money]:
        return [house_posting(one) for one in settled]

    def void_money(self, one: Settled) -> Money:
        return house_posting(one)  # nothing was held: the round moved its posting, no more

    def record(self, uow: UnitOfWork, mode: str, played: Sequence[Played]) -> None:
        return None

    def unrecord(self, uow: UnitOfWork, mode: str, rounds: Sequence[StoredRound]) -> None:
        return None
