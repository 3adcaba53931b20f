"""The wallet port: what a round asks of wherever the players' balances live.

A round never knows where balances are kept. It says what moves, between whom, as
``Money``: moves between parties (a player by id, or one of the casino's own accounts by
kind: ``"house"``, ``"escrow"``), and what each player's balance must cover before anything
returns to them (the stakes debited). A ``Wallet`` moves it, all of it or none. Every wallet:

- ``settle``: a round's stakes debited and what returns credited, as one posting;
- ``balance``: a player's balance.

Some wallets do more, each a capability of its own:

- ``Reserving.reserve``: money held out of a player's balance while a round is open (a
  player-banked seat's bets placed, the banker's exposure, a shared coup's bets), or given
  back (``amount`` negative);
- ``Reversing.reverse``: a settled round rolled back (a void);
- ``Batching``: a posting's reads sent ahead (``prefetch``), many rounds of a coup settled
  in one batch (``settle_many``).

A wallet declares what it can do: its ``reserving``, ``reversing`` and ``batching`` are the
wallet itself, seen as that capability, or None. A caller asks (``wallet.reversing``) and
refuses, or goes without, what the wallet cannot do; the types keep a wallet from declaring
a capability it does not implement, and from leaving a method of the port blank.

Our double-entry ledger is one adapter (``wallets.ledger.LedgerWallet``: every capability);
an operator's seamless wallet over HTTP is another (``wallets.operator``: none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    """Where balances live (the round calls nothing else to move money), and what else the
    wallet can do (each capability the wallet itself, or None)."""

    @property
    def reserving(self) -> Reserving | None: ...

    @property
    def reversing(self) -> Reversing | None: ...

    @property
    def batching(self) -> Batching | None: ...

    def balance(self, uow: UnitOfWork, player_id: int, mode: str) -> int: ...

    def settle(self, uow: UnitOfWork, kind: str, mode: str, reference: str, money: Money) -> Posted:
        """A round's money, all of it or none (``insufficient_funds`` if a player's balance
        does not cover their stakes)."""
        ...


class Reserving(Protocol):
    """A wallet that holds money in escrow while a round is open (ours)."""

    def reserve(
        self, uow: UnitOfWork, kind: str, mode: str, reference: str, player_id: int, amount: int
    ) -> None:
        """Hold ``amount`` of the player's balance in escrow (negative: give it back)."""
        ...


class Reversing(Protocol):
    """A wallet that rolls a settled round back (ours: a void)."""

    def reverse(
        self, uow: UnitOfWork, mode: str, reference: str, money: Money, memo: str
    ) -> Posted:
        """Roll a settled round's money back (``money`` is the round's, not yet reversed)."""
        ...


class Batching(Protocol):
    """A wallet that sends a posting's reads ahead and settles a coup's rounds together."""

    def prefetch(self, uow: UnitOfWork, mode: str, player_id: int) -> None:
        """A posting of this player's money is coming: what it reads is sent ahead, with the
        round's other reads (PostgreSQL)."""
        ...

    def settle_many(
        self, uow: UnitOfWork, kind: str, mode: str, monies: Sequence[tuple[str, Money]]
    ) -> list[Posted]:
        """Many rounds of one coup (reference, money; each player in one), settled as
        ``settle`` settles one, in one batch."""
        ...
