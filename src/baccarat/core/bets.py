"""Stakes by bet name, and their settlement against a dealt coup, in integer cents."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .coup import Coup
from .multiplier import Lightning, bet_multiplier, check_lightning
from .paytable import BET_TYPES, MAIN_BETS, PUSH, BetError, BetResult, Pay, bet_type
from .rules import RuleSet

# Each bet's place in the canonical order (main bets first), read once.
_ORDER = {name: index for index, name in enumerate(BET_TYPES)}


class Bets(Mapping[str, int]):
    """Stakes in cents by bet name, in the canonical order; a zero stake is no bet.

    Immutable and hashable, so it can key a cache.

    >>> Bets({"player_pair": 500}, banker=1000)
    Bets({'banker': 1000, 'player_pair': 500})
    >>> Bets(banker=1000).total
    1000
    """

    __slots__ = ("_items", "_stakes", "_total")

    _stakes: dict[str, int]
    _items: tuple[tuple[str, int], ...]
    _total: int

    def __init__(self, stakes: Mapping[str, int] | None = None, /, **named: int) -> None:
        given = {**(stakes or {}), **named}
        for name, stake in given.items():
            if name not in _ORDER:
                bet_type(name)  # raises, naming the bets there are
            if type(stake) is not int:
                raise BetError(f"the {name} stake must be whole cents, not {stake!r}")
            if stake < 0:
                raise BetError(f"the {name} stake cannot be negative")
        items = tuple((name, given[name]) for name in _ORDER if given.get(name))
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_stakes", dict(items))
        object.__setattr__(self, "_total", sum(stake for _, stake in items))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Bets are immutable")

    def __getitem__(self, name: str) -> int:
        return self._stakes[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._stakes)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Bets):
            return self._items == other._items
        return NotImplemented

    def __repr__(self) -> str:
        return f"Bets({self._stakes!r})"

    def doubled(self) -> Bets:
        """Every stake twice (the felt's DOUBLE).

        >>> Bets(banker=1000, tie=100).doubled()
        Bets({'banker': 2000, 'tie': 200})
        """
        twice = object.__new__(Bets)
        items = tuple((name, 2 * stake) for name, stake in self._items)
        object.__setattr__(twice, "_items", items)
        object.__setattr__(twice, "_stakes", dict(items))
        object.__setattr__(twice, "_total", 2 * self._total)
        return twice

    def stake(self, name: str) -> int:
        """The stake on a bet, 0 when there is none."""
        return self._stakes.get(name, 0)

    def placed(self) -> tuple[tuple[str, int], ...]:
        """The bets with a stake, ``(name, stake)`` in the canonical order."""
        return self._items

    @property
    def total(self) -> int:
        return self._total

    @property
    def side(self) -> bool:
        """Whether any side bet is placed."""
        return any(name not in MAIN_BETS for name in self._stakes)

    def to_json(self) -> dict[str, int]:
        return dict(self._items)


@dataclass(frozen=True, slots=True)
class BetSettlement:
    """One bet's fate: its stake, the pay-table line hit, result and the amount returned
    (stake included)."""

    bet: str
    stake: int
    result: BetResult
    returned: int
    line: str | None = None

    @property
    def multiplier(self) -> int:
        """The multiplier the win was paid with (``MultipliedSettlement``): none here."""
        return 1

    @property
    def fee(self) -> int:
        """The fee taken with the stake (``MultipliedSettlement``): none here."""
        return 0

    @property
    def net(self) -> int:
        """Returned less the stake (a multiplier table's fee, apart from it, is not in it)."""
        return self.returned - self.stake

    def to_json(self) -> dict[str, Any]:
        return {"stake": self.stake, "result": self.result.value, "returned": self.returned}


@dataclass(frozen=True, slots=True)
class MultipliedSettlement(BetSettlement):
    """A multiplier table's bet: also the multiplier its win was paid with (1 unless it
    won) and its fee, taken with the stake and never returned. (A class of its own: the
    classic settlement, built for every bet of every round, keeps its five fields.)"""

    multiplier: int = 1
    fee: int = 0

    def to_json(self) -> dict[str, Any]:
        line = BetSettlement.to_json(self) | {"fee": self.fee}
        if self.multiplier != 1:
            line["multiplier"] = self.multiplier
        return line


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
    def fees(self) -> int:
        """The fees of a multiplier table's bets (0 elsewhere): taken with the stakes."""
        return sum(b.fee for b in self.bets)

    @property
    def net(self) -> int:
        """What the player won (positive) or lost (negative) on the round, fees included."""
        return self.returned - self.staked - self.fees

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {b.bet: b.to_json() for b in self.bets}


def winnings(rules: RuleSet, pay: Fraction, stake: int) -> int:
    """Winnings (stake not included) at a pay "to one", rounded by the rule set's rounding:
    a banker win at 19:20 on 0.50 wins 0.47."""
    return rules.rounding.apply(stake * pay)


def fee_of(rules: RuleSet, stake: int) -> int:
    """The fee a multiplier table takes with a stake (1/5 of it), 0 at other tables.

    >>> from baccarat.core import get_rules
    >>> fee_of(get_rules("multiplier"), 500), fee_of(get_rules("classic-8deck"), 500)
    (100, 0)
    """
    if rules.multipliers is None:
        return 0
    fee = stake * rules.multipliers.fee
    if fee.denominator != 1:
        unit = rules.multipliers.fee_unit
        raise BetError(
            f"a stake at this table is a whole multiple of {unit} minor units (its fee is "
            f"{rules.multipliers.fee} of it), not {stake}"
        )
    return int(fee)


def settle_line(
    rules: RuleSet, bet: str, stake: int, line: str | None, multiplier: int = 1
) -> BetSettlement:
    """Settle one bet given the line of its pay table that the coup hit (None: it lost) and,
    at a multiplier table, the bet's multiplier: a win's pay times it, rounded once."""
    if rules.multipliers is not None:
        return _multiplied(rules, bet, stake, line, multiplier)
    table = rules.paytable(bet)
    if line is None or not table.pays_on(line):
        return BetSettlement(bet, stake, BetResult.LOSE, 0, line)
    pay: Pay = table.pay(line)
    if pay is PUSH:
        return BetSettlement(bet, stake, BetResult.PUSH, stake, line)
    return BetSettlement(bet, stake, BetResult.WIN, stake + winnings(rules, pay, stake), line)


def _multiplied(
    rules: RuleSet, bet: str, stake: int, line: str | None, multiplier: int
) -> BetSettlement:
    """A multiplier table's bet: its fee, and a win's pay times its multiplier."""
    fee = fee_of(rules, stake)
    table = rules.paytable(bet)
    pay: Pay = table.pay(line) if line is not None and table.pays_on(line) else PUSH
    if pay is not PUSH:
        won = stake + winnings(rules, pay * multiplier, stake)
        return MultipliedSettlement(bet, stake, BetResult.WIN, won, line, multiplier, fee)
    if line is not None and table.pays_on(line):
        return MultipliedSettlement(bet, stake, BetResult.PUSH, stake, line, fee=fee)
    return MultipliedSettlement(bet, stake, BetResult.LOSE, 0, line, fee=fee)


def judge(bets: Bets, coup: Coup) -> tuple[str | None, ...]:
    """The line each placed bet hits on this coup, in the order of ``bets.placed()``.

    Everything a settlement depends on besides the rule set and the stakes: a cache of
    settlements may be keyed by (rule set, bets, these lines).
    """
    return tuple(BET_TYPES[name].judge(coup) for name, _ in bets.placed())


def settle(
    rules: RuleSet, bets: Bets, coup: Coup, lightning: Sequence[Lightning] = ()
) -> Settlement:
    """Settle every placed bet of a round against the dealt coup and, at a multiplier table,
    the coup's multiplier cards.

    >>> from baccarat.core import Card, get_rules, play_coup
    >>> coup = play_coup(Card.parse_many("2h 9d 3h Kd"))  # banker natural 9
    >>> settle(get_rules("single-deck"), Bets(banker=50), coup).returned
    97
    """
    if rules.multipliers is None and not lightning:
        return settle_judged(rules, bets, judge(bets, coup))
    if rules.multipliers is None:
        raise BetError(f"{rules.name} has no multiplier cards")
    cards = check_lightning(lightning)
    multipliers = tuple(bet_multiplier(name, coup, cards) for name, _ in bets.placed())
    return settle_judged(rules, bets, judge(bets, coup), multipliers)


def settle_judged(
    rules: RuleSet,
    bets: Bets,
    lines: tuple[str | None, ...],
    multipliers: tuple[int, ...] | None = None,
) -> Settlement:
    """Settle the placed bets given the lines ``judge`` found for them and, at a multiplier
    table, each bet's multiplier (``bet_multiplier``; in the order of ``bets.placed()``)."""
    if multipliers is None:
        return Settlement(
            tuple(
                settle_line(rules, name, stake, line)
                for (name, stake), line in zip(bets.placed(), lines, strict=True)
            )
        )
    return Settlement(
        tuple(
            settle_line(rules, name, stake, line, multiplier)
            for (name, stake), line, multiplier in zip(
                bets.placed(), lines, multipliers, strict=True
            )
        )
    )


def validate(rules: RuleSet, bets: Bets) -> None:
    """Refuse bets the game does not offer, no bet at all, and at a multiplier table a stake
    whose fee is not whole minor units."""
    if not bets:
        raise BetError("place a bet first")
    for name, stake in bets.placed():
        rules.paytable(name)
        if rules.multipliers is not None:
            fee_of(rules, stake)
