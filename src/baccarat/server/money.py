"""The wallet port: what a round asks of wherever the players' balances live.

A round never knows where balances are kept. It says what moves, between whom, as
``Money``: moves between parties (a player by id, or one of the casino's own accounts by
kind: ``"house"``, ``"escrow"``), and what each player's balance must cover before anything
returns to them (the stakes debited). A ``Wallet`` moves it, all of it or none:

- ``reserve``: money held out of a player's balance while a round is open (a player-banked
  seat's bets placed, the banker's exposure), or given back (``amount`` negative);
- ``settle``: a round's stakes debited and what returns credited, as one posting;
- ``reverse``: a settled round rolled back (a void);
- ``balance``: a player's balance.

Our double-entry ledger is one adapter (``ledger.LedgerWallet``); an operator's seamless
wallet over HTTP is another kind of adapter of the same four calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from baccarat.server.db.uow import UnitOfWork

Party = int | str  # a player's id, or the kind of a casino account ("house", "escrow")


@dataclass(frozen=True, slots=True)
class Move:
    """``amount`` cents from ``source`` to ``target``."""

    source: Party
    target: Party
    amount: int

    def reversed(self) -> Move:
        return Move(self.target, self.source, self.amount)


@dataclass(frozen=True, slots=True)
class Money:
    """What a round moves: its moves, and what each player's balance must cover before
    anything returns (their stakes), by player id."""

    moves: tuple[Move, ...]
    covers: Mapping[int, int] = field(default_factory=dict)

    @property
    def players(self) -> list[int]:
        """The players the moves touch, in id order (the order their balances are locked)."""
        found = set(self.covers)
        for move in self.moves:
            if type(move.source) is int:
                found.add(move.source)
            if type(move.target) is int:
                found.add(move.target)
        return sorted(found)

    def net(self, party: Party) -> int:
        """What the moves add to (or take from) a party's balance."""
        return sum(m.amount for m in self.moves if m.target == party) - sum(
            m.amount for m in self.moves if m.source == party
        )

    def reversed(self) -> Money:
        """The same moves the other way, covering nothing (a void gives back)."""
        return Money(tuple(m.reversed() for m in self.moves))


@dataclass(frozen=True, slots=True)
class Posted:
    """A settled posting: its transaction's id, the balances after it by player id, and the
    currency it moved (ISO 4217)."""

    transaction_id: int
    balances: Mapping[int, int]
    currency: str = "USD"


class Wallet(Protocol):
    """Where balances live (the round calls nothing else to move money)."""

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int: ...

    def reserve(
        self, uow: UnitOfWork, kind: str, mode: str, reference: str, player_id: int, amount: int
    ) -> None:
        """Hold ``amount`` of the player's balance in escrow (negative: give it back)."""
        ...

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        """A round's money, all of it or none (``insufficient_funds`` if a player's balance
        does not cover their stakes)."""
        ...

    def reverse(
        self, uow: UnitOfWork, mode: str, reference: str, money: Money, memo: str
    ) -> Posted:
        """Roll a settled round's money back (``money`` is the round's, not yet reversed)."""
        ...
