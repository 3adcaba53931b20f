"""What happens at a shared table, as frozen records (PokerKit's operations).

Each record is made by the transaction that does what it says (``clock.advance`` returns
those of a transition; a placement's is ``BetsChanged``) and emitted in it through the one
event bus (``play.events``: PostgreSQL's NOTIFY at its commit, heard by every worker; in one
process, the event loop after the commit). Every worker's feed (``feed``) tells its sockets
from them: nothing rebuilds what happened by comparing two reads of the table.

- ``ShoeChanged``: a new shoe is in play (committed; with a beacon, waiting for its round),
  or the shoe ended, its seed revealed;
- ``WindowOpened``: the coup's betting window, with its deadline on the server's clock;
- ``BetsChanged``: the bets on the table's coup changed (placed, replaced, withdrawn, or
  refused by an operator's wallet);
- ``CoupDealt``: the closed coup dealt, once (its cards) and every bettor settled.

On the bus an event is JSON (``to_json``, ``parse``): ``{"type": ..., "table_id": ...}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, dataclass, fields
from typing import Any, ClassVar


class Event:
    """A shared table's event: its ``type`` on the bus and its fields."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # every event is a dataclass
    type: ClassVar[str]
    table_id: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type} | {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class ShoeChanged(Event):
    """A new shoe is the table's, or its shoe ended (``shoe``: as ``clock.shoe_json`` shows
    it, the seed in it once revealed)."""

    type: ClassVar[str] = "shoe_changed"
    table_id: str
    shoe: dict[str, Any]


@dataclass(frozen=True, slots=True)
class WindowOpened(Event):
    """The coup's window opened: bets are taken until ``closes_at`` (the server's clock, us)."""

    type: ClassVar[str] = "window_opened"
    table_id: str
    coup: int
    number: int
    closes_at: int


@dataclass(frozen=True, slots=True)
class BetsChanged(Event):
    """The bets on the table's coup changed: its totals are to be told again."""

    type: ClassVar[str] = "bets_changed"
    table_id: str


@dataclass(frozen=True, slots=True)
class CoupDealt(Event):
    """The closed coup is dealt (its cards, winner and the shoe's position before it; at a
    multiplier table its multiplier cards, as the rows record them) and its bettors
    settled; the next window opens at ``next_at`` at the earliest."""

    type: ClassVar[str] = "coup_dealt"
    table_id: str
    coup: int
    player_cards: str
    banker_cards: str
    winner: str
    position: int
    next_at: int
    lightning: str | None = None


SharedEvent = ShoeChanged | WindowOpened | BetsChanged | CoupDealt
TYPES: dict[str, type[SharedEvent]] = {
    kind.type: kind for kind in (ShoeChanged, WindowOpened, BetsChanged, CoupDealt)
}


def parse(data: Mapping[str, Any]) -> SharedEvent | None:
    """An event as the bus carried it (None: not one of these)."""
    kind = TYPES.get(str(data.get("type")))
    if kind is None:
        return None
    return kind(**{f.name: data[f.name] for f in fields(kind) if f.name in data})
