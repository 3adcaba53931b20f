"""The shoe: decks of cards dealt from the top, with burn and cut card."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from .cards import Card, new_shoe_order

MAX_DECKS = 8


class RandomSource(Protocol):
    """Anything with an unbiased ``randrange``: ``random.Random``, ``secrets.SystemRandom``."""

    def randrange(self, stop: int, /) -> int: ...


class ShoeError(ValueError):
    """A shoe cannot be built or cannot deal what was asked."""


class ShoeEmpty(ShoeError):
    """The shoe ran out of cards in the middle of a deal."""


def fisher_yates(cards: list[Card], random: RandomSource) -> None:
    """Shuffle in place, from the top index down, each swap uniform (no modulo bias)."""
    for i in range(len(cards) - 1, 0, -1):
        j = random.randrange(i + 1)
        cards[i], cards[j] = cards[j], cards[i]


def burn_count(first: Card) -> int:
    """Cards burned under the turned first card: its rank value, tens and pictures count 10."""
    return min(first.rank.value, 10)


class Shoe:
    """Cards in dealing order; ``position`` is the next card to deal.

    The cut card, when set, sits before index ``cut_card``: once the deal reaches it, the
    coup in progress is completed and the shoe is finished (no new coup starts).
    """

    __slots__ = ("_cards", "cut_card", "decks", "position")

    def __init__(self, cards: Iterable[Card], *, decks: int = 0, cut_card: int | None = None):
        self._cards = list(cards)
        self.decks = decks
        self.position = 0
        if cut_card is not None and not 0 <= cut_card <= len(self._cards):
            raise ShoeError(f"cut card at {cut_card} is outside a shoe of {len(self._cards)}")
        self.cut_card = cut_card

    @classmethod
    def new(cls, decks: int) -> Shoe:
        """An unshuffled shoe of ``decks`` decks in canonical order."""
        if not 1 <= decks <= MAX_DECKS:
            raise ShoeError(f"a shoe holds 1 to {MAX_DECKS} decks, not {decks}")
        return cls(new_shoe_order(decks), decks=decks)

    @classmethod
    def shuffled(cls, decks: int, random: RandomSource) -> Shoe:
        """A shoe of ``decks`` decks shuffled with the given random source."""
        shoe = cls.new(decks)
        fisher_yates(shoe._cards, random)
        return shoe

    @classmethod
    def stacked(cls, cards: Sequence[Card] | str) -> Shoe:
        """A shoe that deals exactly the given cards in the given order."""
        if isinstance(cards, str):
            cards = Card.parse_many(cards)
        return cls(cards)

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card of the shoe in dealing order, dealt or not."""
        return tuple(self._cards)

    @property
    def remaining(self) -> int:
        """Number of cards not yet dealt."""
        return len(self._cards) - self.position

    def remaining_cards(self) -> tuple[Card, ...]:
        """The undealt cards, in dealing order."""
        return tuple(self._cards[self.position :])

    def composition(self) -> tuple[int, ...]:
        """Counts of undealt cards by baccarat value 0..9."""
        counts = [0] * 10
        for card in self._cards[self.position :]:
            counts[card.value] += 1
        return tuple(counts)

    def cut(self, k: int) -> None:
        """A player's cut at position k: the order L becomes L[k:] + L[:k]. Only before dealing."""
        if self.position:
            raise ShoeError("a shoe is cut before the first card is dealt")
        if not 0 <= k < len(self._cards):
            raise ShoeError(f"cut position {k} is outside 0..{len(self._cards) - 1}")
        self._cards = self._cards[k:] + self._cards[:k]

    def place_cut_card(self, cards_before: int) -> None:
        """Put the cut card so that ``cards_before`` cards are dealt before it."""
        if not 0 <= cards_before <= len(self._cards):
            raise ShoeError(f"cut card at {cards_before} is outside a shoe of {len(self._cards)}")
        self.cut_card = cards_before

    def draw(self) -> Card:
        """Deal the top card."""
        if self.position >= len(self._cards):
            raise ShoeEmpty("the shoe has no cards left")
        card = self._cards[self.position]
        self.position += 1
        return card

    def burn(self, n: int) -> tuple[Card, ...]:
        """Discard the next n cards face down and return them."""
        if n > self.remaining:
            raise ShoeEmpty(f"cannot burn {n} cards from {self.remaining}")
        burned = tuple(self._cards[self.position : self.position + n])
        self.position += n
        return burned

    def burn_by_first_card(self) -> tuple[Card, ...]:
        """Land-casino burn: turn the first card and burn as many more as its value (T-K = 10)."""
        first = self.draw()
        return (first, *self.burn(burn_count(first)))

    @property
    def is_cut_card_reached(self) -> bool:
        """True once the deal has passed the cut card: no new coup from this shoe."""
        return self.cut_card is not None and self.position >= self.cut_card

    def __repr__(self) -> str:
        return (
            f"<Shoe decks={self.decks} cards={len(self._cards)} position={self.position} "
            f"cut_card={self.cut_card}>"
        )
