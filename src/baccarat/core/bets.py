"""Bets and their settlement, in integer cents."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .coup import Outcome
from .rules import RuleSet


class BetKind(enum.Enum):
    """The three spots of the table."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


# The kinds in order with their names, read once (enum iteration and ``.value`` are slow,
# and every round validates, checks and settles its bets).
_KINDS: tuple[tuple[BetKind, str], ...] = tuple((kind, kind.value) for kind in BetKind)


class BetResult(enum.Enum):
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


class BetError(ValueError):
    """Bets that cannot be placed: negative, fractional or empty."""


@dataclass(frozen=True, slots=True)
class Bets:
    """Stakes in cents on each spot; a zero stake means no bet there."""

    player: int = 0
    banker: int = 0
    tie: int = 0

    def __post_init__(self) -> None:
        for _, name in _KINDS:
            stake = getattr(self, name)
            if type(stake) is not int:
                raise BetError(f"the {name} stake must be whole cents, not {stake!r}")
            if stake < 0:
                raise BetError(f"the {name} stake cannot be negative")

    @classmethod
    def from_mapping(cls, stakes: Mapping[str, int]) -> Bets:
        unknown = set(stakes) - {k.value for k in BetKind}
        if unknown:
            raise BetError(f"unknown bet {sorted(unknown)[0]!r}: bet on player, banker or tie")
        return cls(**stakes)

    def stake(self, kind: BetKind) -> int:
        stake: int = getattr(self, kind.value)
        return stake

    def placed(self) -> Iterator[tuple[BetKind, int]]:
        """The bets with a stake, in the order player, banker, tie."""
        for kind, name in _KINDS:
            stake: int = getattr(self, name)
            if stake:
                yield kind, stake

    @property
    def total(self) -> int:
        return self.player + self.banker + self.tie

    def to_json(self) -> dict[str, int]:
        return {kind.value: stake for kind, stake in self.placed()}


@dataclass(frozen=True, slots=True)
class BetSettlement:
    """One bet's fate: its stake, result and the amount returned (stake included)."""

    kind: BetKind
    stake: int
    result: BetResult
    returned: int

    @property
    def net(self) -> int:
        return self.returned - self.stake

    def to_json(self) -> dict[str, Any]:
        return {"stake": self.stake, "result": self.result.value, "returned": self.returned}


@dataclass(frozen=True, slots=True)
class Settlement:
    """All bets of a round, settled."""

    bets: tuple[BetSettlement, ...]

    @property
    def staked(self) -> int:
        return sum(b.stake for b in self.bets)

    @property
    def returned(self) -> int:
        return sum(b.returned for b in self.bets)

    @property
    def net(self) -> int:
        """What the player won (positive) or lost (negative) on the round."""
        return self.returned - self.staked

    def for_kind(self, kind: BetKind) -> BetSettlement | None:
        return next((b for b in self.bets if b.kind is kind), None)

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {b.kind.value: b.to_json() for b in self.bets}


def winnings(rules: RuleSet, kind: BetKind, stake: int) -> int:
    """Winnings (stake not included) on a winning bet, rounded by the rule set's rounding."""
    multiplier = {
        BetKind.PLAYER: rules.player_pays,
        # Banker pays 1:1 less commission, rounded down per bet (0.50 wins 0.47).
        BetKind.BANKER: rules.banker_win_multiplier,
        BetKind.TIE: rules.tie_pays,
    }[kind]
    return rules.rounding.apply(stake * multiplier)


def settle_bet(rules: RuleSet, kind: BetKind, stake: int, winner: Outcome) -> BetSettlement:
    """Settle one bet against the coup's winner."""
    if winner is Outcome.TIE and kind is not BetKind.TIE:
        # On a tie, Player and Banker bets are returned.
        return BetSettlement(kind, stake, BetResult.PUSH, stake)
    if kind.value == winner.value:
        return BetSettlement(kind, stake, BetResult.WIN, stake + winnings(rules, kind, stake))
    return BetSettlement(kind, stake, BetResult.LOSE, 0)


def settle(rules: RuleSet, bets: Bets, winner: Outcome) -> Settlement:
    """Settle every placed bet of a round.

    >>> from baccarat.core.rules import get_rules
    >>> settle(get_rules("single-deck"), Bets(banker=50), Outcome.BANKER).returned
    97
    """
    return Settlement(tuple(settle_bet(rules, k, s, winner) for k, s in bets.placed()))
