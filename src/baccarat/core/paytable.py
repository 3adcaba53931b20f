"""What each bet is and what it pays, as data.

A bet type is a name, the lines of a pay table its judge can give, and the judge: a pure
function of the dealt coup (its cards, not only the winner) naming the line the coup hits,
or None when the bet loses. A pay table prices the lines of one bet for one rule set: a pay
"to one" (winnings per unit staked) or ``PUSH`` (the stake is returned). A line the pay
table does not price loses.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .coup import Coup, Hand
from .tableau import is_natural

# The pay of a line on which the stake is returned.
PUSH = None

Pay = Fraction | None


class BetResult(enum.Enum):
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


class BetError(ValueError):
    """Bets that cannot be placed: unknown, not offered, negative, fractional or empty."""


@dataclass(frozen=True, slots=True)
class BetType:
    """One bet: its name, the lines its judge can name, and the judge."""

    name: str
    title: str
    lines: tuple[str, ...]
    judge: Callable[[Coup], str | None] = field(compare=False)
    # The three bets of every game (Player, Banker, Tie); the others are side bets.
    main: bool = False


def _scores(coup: Coup) -> tuple[int, int]:
    return coup.player.score, coup.banker.score


def _judge_player(coup: Coup) -> str | None:
    p, b = _scores(coup)
    if p > b:
        return "win"
    return "tie" if p == b else None


def _judge_banker(coup: Coup) -> str | None:
    p, b = _scores(coup)
    if b > p:
        if b == 6:
            # No-commission games pay a banker win with 6 at 1:2.
            return "win_with_6"
        if b == 7 and len(coup.banker.cards) == 3:
            # EZ Baccarat pushes a banker win with a three-card 7 (its Dragon 7).
            return "win_three_card_7"
        return "win"
    return "tie" if p == b else None


def _judge_tie(coup: Coup) -> str | None:
    p, b = _scores(coup)
    return "tie" if p == b else None


def _is_pair(hand: Hand) -> bool:
    """The hand's first two cards have the same rank (K-K yes, K-Q no)."""
    return hand.cards[0].rank is hand.cards[1].rank


def _is_perfect_pair(hand: Hand) -> bool:
    """The hand's first two cards have the same rank and suit (several decks)."""
    return hand.cards[0] == hand.cards[1]


def _judge_player_pair(coup: Coup) -> str | None:
    return "pair" if _is_pair(coup.player) else None


def _judge_banker_pair(coup: Coup) -> str | None:
    return "pair" if _is_pair(coup.banker) else None


def _judge_either_pair(coup: Coup) -> str | None:
    return "pair" if _is_pair(coup.player) or _is_pair(coup.banker) else None


def _judge_perfect_pair(coup: Coup) -> str | None:
    player, banker = _is_perfect_pair(coup.player), _is_perfect_pair(coup.banker)
    if player and banker:
        return "both"
    return "one" if player or banker else None


DRAGON_MARGINS = (9, 8, 7, 6, 5, 4)


def _dragon(own: Hand, other: Hand) -> str | None:
    """Dragon Bonus on ``own``: a natural win, a natural tie, or a win by 4 or more."""
    mine, theirs = own.score, other.score
    if mine > theirs:
        if is_natural(own.two_card_score):
            return "natural_win"
        margin = mine - theirs
        return f"win_by_{margin}" if margin >= 4 else None
    if mine == theirs and is_natural(own.two_card_score):
        return "natural_tie"
    return None


def _judge_player_dragon(coup: Coup) -> str | None:
    return _dragon(coup.player, coup.banker)


def _judge_banker_dragon(coup: Coup) -> str | None:
    return _dragon(coup.banker, coup.player)


def _judge_big(coup: Coup) -> str | None:
    return "big" if coup.cards_used >= 5 else None


def _judge_small(coup: Coup) -> str | None:
    return "small" if coup.cards_used == 4 else None


def _judge_dragon7(coup: Coup) -> str | None:
    p, b = _scores(coup)
    return "dragon_7" if b > p and b == 7 and len(coup.banker.cards) == 3 else None


def _judge_panda8(coup: Coup) -> str | None:
    p, b = _scores(coup)
    return "panda_8" if p > b and p == 8 and len(coup.player.cards) == 3 else None


def _judge_super6(coup: Coup) -> str | None:
    p, b = _scores(coup)
    return "win_with_6" if b > p and b == 6 else None


_DRAGON_LINES = ("natural_win", "natural_tie", *(f"win_by_{m}" for m in DRAGON_MARGINS))

# Every bet there is, main bets first; the order is the order of records and displays.
BET_TYPES: Mapping[str, BetType] = MappingProxyType(
    {
        t.name: t
        for t in (
            BetType("player", "Player", ("win", "tie"), _judge_player, main=True),
            BetType(
                "banker",
                "Banker",
                ("win", "win_with_6", "win_three_card_7", "tie"),
                _judge_banker,
                main=True,
            ),
            BetType("tie", "Tie", ("tie",), _judge_tie, main=True),
            BetType("player_pair", "Player Pair", ("pair",), _judge_player_pair),
            BetType("banker_pair", "Banker Pair", ("pair",), _judge_banker_pair),
            BetType("either_pair", "Either Pair", ("pair",), _judge_either_pair),
            BetType("perfect_pair", "Perfect Pair", ("one", "both"), _judge_perfect_pair),
            BetType("player_dragon", "Player Dragon Bonus", _DRAGON_LINES, _judge_player_dragon),
            BetType("banker_dragon", "Banker Dragon Bonus", _DRAGON_LINES, _judge_banker_dragon),
            BetType("big", "Big", ("big",), _judge_big),
            BetType("small", "Small", ("small",), _judge_small),
            BetType("dragon7", "Dragon 7", ("dragon_7",), _judge_dragon7),
            BetType("panda8", "Panda 8", ("panda_8",), _judge_panda8),
            BetType("super6", "Super 6", ("win_with_6",), _judge_super6),
        )
    }
)

MAIN_BETS: tuple[str, ...] = tuple(name for name, t in BET_TYPES.items() if t.main)


def bet_type(name: str) -> BetType:
    """The bet with this name."""
    try:
        return BET_TYPES[name]
    except KeyError:
        known = ", ".join(BET_TYPES)
        raise BetError(f"unknown bet {name!r}: bet on one of {known}") from None


@dataclass(frozen=True, slots=True)
class Paytable:
    """What one bet pays in one rule set: a pay "to one" per line, or ``PUSH``.

    >>> table = Paytable("player_pair", (("pair", Fraction(11)),))
    >>> table.pay("pair"), table.pays_on("pair")
    (Fraction(11, 1), True)
    """

    bet: str
    pays: tuple[tuple[str, Pay], ...]
    _by_line: Mapping[str, Pay] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kind = bet_type(self.bet)
        lines = [line for line, _ in self.pays]
        if not lines:
            raise BetError(f"the pay table of {self.bet} pays on nothing")
        if len(set(lines)) != len(lines):
            raise BetError(f"the pay table of {self.bet} prices a line twice")
        for line, pay in self.pays:
            if line not in kind.lines:
                raise BetError(f"{self.bet} has no line {line!r}: its lines are {kind.lines}")
            if pay is not PUSH and (type(pay) is not Fraction or pay <= 0):
                raise BetError(f"{self.bet} {line}: a pay is a positive Fraction or PUSH")
        object.__setattr__(self, "_by_line", MappingProxyType(dict(self.pays)))

    @property
    def type(self) -> BetType:
        return BET_TYPES[self.bet]

    def pays_on(self, line: str | None) -> bool:
        """Whether the line wins or pushes (a line not priced loses)."""
        return line in self._by_line

    def pay(self, line: str) -> Pay:
        """The pay of a priced line: a Fraction to one, or ``PUSH``."""
        return self._by_line[line]

    def to_json(self) -> dict[str, Any]:
        """``{line: "11" | "19/20" | "push"}``."""
        return {line: "push" if pay is PUSH else str(pay) for line, pay in self.pays}


def paytable(bet: str, **pays: Pay | int) -> Paytable:
    """A pay table from keyword lines; whole numbers may be given as int."""
    return Paytable(bet, tuple((line, p if p is PUSH else Fraction(p)) for line, p in pays.items()))


# The side bets of commercial games, with the pays most casinos use (Wizard of Odds' tables).
PLAYER_PAIR = paytable("player_pair", pair=11)
BANKER_PAIR = paytable("banker_pair", pair=11)
EITHER_PAIR = paytable("either_pair", pair=5)
PERFECT_PAIR = paytable("perfect_pair", one=25, both=200)
_DRAGON_PAYS: dict[str, Pay | int] = {
    "natural_win": 1,
    "natural_tie": PUSH,
    "win_by_9": 30,
    "win_by_8": 10,
    "win_by_7": 6,
    "win_by_6": 4,
    "win_by_5": 2,
    "win_by_4": 1,
}
PLAYER_DRAGON = paytable("player_dragon", **_DRAGON_PAYS)
BANKER_DRAGON = paytable("banker_dragon", **_DRAGON_PAYS)
BIG = paytable("big", big=Fraction(27, 50))
SMALL = paytable("small", small=Fraction(3, 2))
DRAGON7 = paytable("dragon7", dragon_7=40)
PANDA8 = paytable("panda8", panda_8=25)
SUPER6 = paytable("super6", win_with_6=12)

# The side bets a classic (commission) game offers.
CLASSIC_SIDE_BETS: tuple[Paytable, ...] = (
    PLAYER_PAIR,
    BANKER_PAIR,
    EITHER_PAIR,
    PERFECT_PAIR,
    PLAYER_DRAGON,
    BANKER_DRAGON,
    BIG,
    SMALL,
)
