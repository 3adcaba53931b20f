"""Shoe compositions: how many cards of each baccarat value 0..9 remain, and of each face.

A value composition (ten counts) is all the tableau needs. The pair bets need ranks and
suits: a face composition counts the cards of each face (rank and suit), 52 counts in the
order ranks A..K, each rank's suits c d h s (``face_index``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import MAX_DECKS, Card, Rank, Shoe
from ..core.cards import RANKS, SUITS

# Per deck: sixteen 0-value cards (T J Q K) and four of each value 1..9.
DECK_COMPOSITION: tuple[int, ...] = (16, 4, 4, 4, 4, 4, 4, 4, 4, 4)
MIN_CARDS = 6
FACES = 52


class CompositionError(ValueError):
    """A composition that no shoe can have, or too small to deal from."""


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): ordered ways to draw k cards from n."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


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


def face_card(index: int) -> Card:
    """The card of a face composition's index."""
    return Card(Rank(index // 4 + 1), SUITS[index % 4])


# Each face's index and value, read once (a shoe trace counts faces after every coup).
_FACE_INDEX = {face_card(i): i for i in range(FACES)}
_FACE_VALUE = tuple(face_card(i).value for i in range(FACES))


def face_index(card: Card) -> int:
    """A card's place in a face composition: rank-major, suits c d h s.

    >>> face_index(Card.parse("Ac")), face_index(Card.parse("Ks"))
    (0, 51)
    """
    return _FACE_INDEX[card]


def faces_of(cards: Iterable[Card]) -> tuple[int, ...]:
    """The face composition of some cards."""
    counts = [0] * FACES
    for card in cards:
        counts[_FACE_INDEX[card]] += 1
    return tuple(counts)


def full_faces(decks: int) -> tuple[int, ...]:
    """Counts by face of a full shoe of ``decks`` decks."""
    full_composition(decks)  # checks the number of decks
    return (decks,) * FACES


def shoe_faces(decks: int, removed: Iterable[Card] = ()) -> tuple[int, ...]:
    """A full shoe of ``decks`` decks less the ``removed`` cards, by face."""
    counts = list(full_faces(decks))
    for card in removed:
        counts[face_index(card)] -= 1
        if counts[face_index(card)] < 0:
            raise CompositionError(f"cannot remove {card}: a {decks}-deck shoe has no more of it")
    return tuple(counts)


def values_of_faces(faces: tuple[int, ...]) -> tuple[int, ...]:
    """The value composition of a face composition."""
    counts = [0] * 10
    for value, n in zip(_FACE_VALUE, faces, strict=True):
        counts[value] += n
    return tuple(counts)


def ranks_of_faces(faces: tuple[int, ...]) -> tuple[int, ...]:
    """Counts by rank (A..K) of a face composition."""
    return tuple(sum(faces[4 * r : 4 * r + 4]) for r in range(len(RANKS)))


def validate_faces(faces: Iterable[int]) -> tuple[int, ...]:
    """Check a face composition: 52 counts from 0 to 8 decks, enough cards to deal."""
    counts = tuple(faces)
    if len(counts) != FACES or any(type(n) is not int or not 0 <= n <= MAX_DECKS for n in counts):
        raise CompositionError(
            f"a face composition is {FACES} counts of 0 to {MAX_DECKS}, ranks A..K by suit"
        )
    validate(values_of_faces(counts))
    return counts


def whole_decks(composition: tuple[int, ...]) -> int | None:
    """The number of decks when a value composition is a full shoe, else None."""
    decks, extra = divmod(composition[1], 4)
    if extra or not 1 <= decks <= MAX_DECKS or composition != full_composition(decks):
        return None
    return decks
