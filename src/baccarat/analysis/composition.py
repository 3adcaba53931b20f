"""Shoe compositions: how many cards of each baccarat value 0..9 remain."""

from __future__ import annotations

from collections.abc import Iterable

from ..core import MAX_DECKS, Card, Shoe

# Per deck: sixteen 0-value cards (T J Q K) and four of each value 1..9.
DECK_COMPOSITION: tuple[int, ...] = (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
MIN_CARDS = 6


class CompositionError(ValueError):
    """A composition that no shoe can have, or too small to deal from."""


def full_composition(decks: int) -> tuple[int, ...]:
    """Counts by value of a full shoe of ``decks`` decks.

    >>> full_composition(1)
    (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
    """
    if not 1 <= decks <= MAX_DECKS:
        raise CompositionError(f"a shoe holds 1 to {MAX_DECKS} decks, not {decks}")
    return tuple(n * decks for n in DECK_COMPOSITION)


def remove_cards(composition: tuple[int, ...], cards: Iterable[Card]) -> tuple[int, ...]:
    """The composition after the given cards have left the shoe."""
    counts = list(composition)
    for card in cards:
        counts[card.value] -= 1
        if counts[card.value] < 0:
            raise CompositionError(f"cannot remove {card}: no card of value {card.value} is left")
    return tuple(counts)


def shoe_composition(decks: int, removed: Iterable[Card] = ()) -> tuple[int, ...]:
    """A full shoe of ``decks`` decks less the ``removed`` cards, checked card by card."""
    removed = list(removed)
    remaining = list(Shoe.new(decks).cards) if removed else []
    for card in removed:
        try:
            remaining.remove(card)
        except ValueError:
            raise CompositionError(
                f"cannot remove {card}: a {decks}-deck shoe has no more of it"
            ) from None
    return remove_cards(full_composition(decks), removed)


def validate(composition: Iterable[int]) -> tuple[int, ...]:
    """Check a composition: ten non-negative counts, at least six cards, at most 8 decks."""
    counts = tuple(composition)
    if len(counts) != 10 or any(type(n) is not int or n < 0 for n in counts):
        raise CompositionError("a composition is ten non-negative counts, for values 0..9")
    limit = full_composition(MAX_DECKS)
    if any(n > m for n, m in zip(counts, limit, strict=True)):
        raise CompositionError(f"a composition holds at most {MAX_DECKS} decks of each value")
    if sum(counts) < MIN_CARDS:
        raise CompositionError(f"at least {MIN_CARDS} cards must remain to deal a coup")
    return counts
