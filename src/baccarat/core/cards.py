"""Cards: rank, suit and baccarat value, with a text notation that round-trips."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Rank(enum.IntEnum):
    """Card ranks, numbered ace = 1 to king = 13."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        """The rank's letter: ``A 2-9 T J Q K``."""
        return RANK_SYMBOLS[self.value - 1]

    @property
    def value_points(self) -> int:
        """Baccarat value: ace 1, two to nine face value, ten and pictures 0."""
        # ``_value_`` is what ``value`` returns, without the enum descriptor (the deal's
        # hottest attribute: every score reads it).
        points: int = self._value_
        return points if points < 10 else 0

    @classmethod
    def from_symbol(cls, symbol: str) -> Rank:
        index = RANK_SYMBOLS.find(symbol.upper()) if len(symbol) == 1 else -1
        if index < 0:
            raise CardError(f"unknown rank {symbol!r}: use one of {' '.join(RANK_SYMBOLS)}")
        return cls(index + 1)


class Suit(enum.Enum):
    """Suits in the canonical order clubs, diamonds, hearts, spades."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @classmethod
    def from_symbol(cls, symbol: str) -> Suit:
        try:
            return cls(symbol.lower())
        except ValueError:
            raise CardError(f"unknown suit {symbol!r}: use one of c d h s") from None


RANK_SYMBOLS = "A23456789TJQK"
SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)


class CardError(ValueError):
    """A card or a list of cards could not be read."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card.

    >>> Card.parse("Td")
    Card.parse('Td')
    >>> Card.parse("Td").value
    0
    """

    rank: Rank
    suit: Suit

    @property
    def value(self) -> int:
        """Baccarat value of the card, 0..9."""
        return self.rank.value_points

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card such as ``Ah``, ``Td`` or ``9s``."""
        card = _BY_TEXT.get(text) if type(text) is str else None  # as ``format_cards`` writes
        if card is not None:
            return card
        token = text.strip()
        if len(token) != 2:
            several = " (for several cards use Card.parse_many)" if len(token.split()) > 1 else ""
            raise CardError(
                f"bad card {text!r}: a card is a rank and a suit, such as Ah or Td{several}"
            )
        return cls(Rank.from_symbol(token[0]), Suit.from_symbol(token[1]))

    @classmethod
    def parse_many(cls, text: str) -> tuple[Card, ...]:
        """Read cards separated by spaces or commas: ``"Ah Td 9s"``.

        >>> format_cards(Card.parse_many("Ah Td 9s"))
        'Ah Td 9s'
        """
        return tuple(cls.parse(token) for token in text.replace(",", " ").split())

    def __str__(self) -> str:
        # ``_value_`` is ``value`` without the enum descriptor (card text is on the hot path).
        text: str = RANK_SYMBOLS[self.rank._value_ - 1] + self.suit._value_
        return text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in notation, separated by spaces."""
    return " ".join(map(str, cards))


def new_deck() -> tuple[Card, ...]:
    """One 52-card deck in canonical order: suits c d h s, ranks A..K within a suit."""
    return tuple(Card(rank, suit) for suit in SUITS for rank in RANKS)


_BY_TEXT: dict[str, Card] = {str(card): card for card in new_deck()}


def new_shoe_order(decks: int) -> tuple[Card, ...]:
    """The canonical order of a shoe: deck by deck, each deck in canonical order."""
    return new_deck() * decks
