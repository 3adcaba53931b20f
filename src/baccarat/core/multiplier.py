"""Multiplier baccarat: the published terms of the multiplier cards, a round's multiplier
cards, and the multiplier each bet is paid with.

Before each coup one to five multiplier ("lightning") cards are drawn: distinct card
identities (rank and suit) of a virtual 52-card deck, each with its own multiplier. A bet's
multiplier is the product, over the cards of the hand(s) it is paid on, of the multiplier of
every card whose rank and suit are a multiplier card's; 1 when none is there (docs/
multiplier.md). The draw itself is derived from the round's seeds (``fairness.derive``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cards import Card, CardError
from .coup import Coup

# A card identity: one of the 52 (rank and suit); an 8-deck shoe holds 8 cards of each.
IDENTITIES = 52


class MultiplierError(ValueError):
    """Multiplier terms or multiplier cards that cannot be."""


def _fraction_text(value: Fraction) -> str:
    """A probability as ``"n/d"`` (``"1/1"`` for one): always a fraction, never a float."""
    return f"{value.numerator}/{value.denominator}"


def _distribution(
    label: str, pairs: tuple[tuple[int, Fraction], ...], low: int, high: int | None
) -> None:
    keys = [key for key, _ in pairs]
    if not pairs:
        raise MultiplierError(f"the {label} need at least one entry")
    if keys != sorted(set(keys)):
        raise MultiplierError(f"the {label} must be distinct and in increasing order")
    for key, chance in pairs:
        if type(key) is not int or key < low or (high is not None and key > high):
            bound = f"{low} to {high}" if high is not None else f"from {low}"
            raise MultiplierError(f"the {label} are whole numbers {bound}, not {key!r}")
        if type(chance) is not Fraction or chance <= 0:
            raise MultiplierError(f"each of the {label} has a positive Fraction chance")
    if sum(chance for _, chance in pairs) != 1:
        raise MultiplierError(f"the chances of the {label} must add up to 1")


@dataclass(frozen=True, slots=True)
class MultiplierTerms:
    """What a multiplier table publishes, as exact fractions: the fee (of each stake, never
    returned), how many multiplier cards a coup gets (``counts``: K -> chance) and each
    card's multiplier (``values``: multiplier -> chance, drawn independently per card)."""

    fee: Fraction
    counts: tuple[tuple[int, Fraction], ...]
    values: tuple[tuple[int, Fraction], ...]

    def __post_init__(self) -> None:
        if type(self.fee) is not Fraction or not 0 <= self.fee < 1:
            raise MultiplierError("the fee is a Fraction of the stake in [0, 1)")
        _distribution("counts of multiplier cards", self.counts, 1, IDENTITIES)
        _distribution("multipliers", self.values, 2, None)

    @property
    def fee_unit(self) -> int:
        """The stakes whose fee is whole minor units are the multiples of this (5 for 1/5)."""
        return self.fee.denominator

    @property
    def max_count(self) -> int:
        return self.counts[-1][0]

    @property
    def max_value(self) -> int:
        return self.values[-1][0]

    def to_json(self) -> dict[str, Any]:
        """``{"fee": "1/5", "counts": {"1": "n/d", ...}, "values": {"2": "n/d", ...}}``."""
        return {
            "fee": _fraction_text(self.fee),
            "counts": {str(k): _fraction_text(p) for k, p in self.counts},
            "values": {str(v): _fraction_text(p) for v, p in self.values},
        }


def multiplier_terms(
    fee: Fraction, counts: Mapping[int, Fraction], values: Mapping[int, Fraction]
) -> MultiplierTerms:
    """Terms from mappings (sorted here)."""
    return MultiplierTerms(fee, tuple(sorted(counts.items())), tuple(sorted(values.items())))


@dataclass(frozen=True, slots=True)
class Lightning:
    """One multiplier card of a coup: a card identity (rank and suit) and its multiplier."""

    card: Card
    multiplier: int

    def __post_init__(self) -> None:
        if type(self.card) is not Card:
            raise MultiplierError(f"a multiplier card is a Card, not {self.card!r}")
        if type(self.multiplier) is not int or self.multiplier < 2:
            raise MultiplierError(f"a multiplier is a whole number from 2, not {self.multiplier!r}")

    def __str__(self) -> str:
        return f"{self.card} x{self.multiplier}"

    def to_json(self) -> dict[str, Any]:
        """``{"card": "Ah", "multiplier": 5}``."""
        return {"card": str(self.card), "multiplier": self.multiplier}

    @classmethod
    def from_json(cls, data: Any) -> Lightning:
        """Read ``{"card": "Ah", "multiplier": 5}``; raises ``MultiplierError``."""
        if not isinstance(data, dict):
            raise MultiplierError('a multiplier card is {"card": "Ah", "multiplier": 5}')
        card, multiplier = data.get("card"), data.get("multiplier")
        if not isinstance(card, str):
            raise MultiplierError('a multiplier card\'s "card" is a card such as "Ah"')
        try:
            parsed = Card.parse(card)
        except CardError as error:
            raise MultiplierError(str(error)) from None
        return cls(parsed, multiplier)  # type: ignore[arg-type]  # checked on construction


def check_lightning(lightning: Sequence[Lightning]) -> tuple[Lightning, ...]:
    """The multiplier cards of one coup: distinct identities."""
    cards = [one.card for one in lightning]
    if len(set(cards)) != len(cards):
        raise MultiplierError("the multiplier cards of a coup are distinct cards")
    return tuple(lightning)


# The cards each bet is paid on: Player the player's hand, Banker the banker's, Tie both
# hands, a pair bet its hand's first two cards.
PAID_CARDS: Mapping[str, Callable[[Coup], tuple[Card, ...]]] = {
    "player": lambda coup: coup.player.cards,
    "banker": lambda coup: coup.banker.cards,
    "tie": lambda coup: coup.player.cards + coup.banker.cards,
    "player_pair": lambda coup: coup.player.cards[:2],
    "banker_pair": lambda coup: coup.banker.cards[:2],
}
MULTIPLIER_BETS: tuple[str, ...] = tuple(PAID_CARDS)


def paid_cards(bet: str, coup: Coup) -> tuple[Card, ...]:
    """The cards of the hand(s) a bet is paid on."""
    cards = PAID_CARDS.get(bet)
    if cards is None:
        raise MultiplierError(f"{bet} has no multiplier: the bets are {', '.join(PAID_CARDS)}")
    return cards(coup)


def bet_multiplier(bet: str, coup: Coup, lightning: Sequence[Lightning]) -> int:
    """The product of the multipliers of the bet's paid cards that are multiplier cards (a
    card present twice multiplies twice); 1 when none is.

    >>> from baccarat.core import play_coup
    >>> coup = play_coup(Card.parse_many("Ah 9d Ah Kd"))  # player A A, banker 9 K
    >>> bet_multiplier("player", coup, [Lightning(Card.parse("Ah"), 3)])
    9
    """
    cards = paid_cards(bet, coup)
    if not lightning:
        return 1
    by_card = {one.card: one.multiplier for one in lightning}
    product = 1
    for card in cards:
        product *= by_card.get(card, 1)
    return product
