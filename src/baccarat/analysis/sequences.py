"""Every value sequence of a coup, the pay-table line each bet's judge gives it, grouped.

A coup is settled on its first six cards (p1, b1, p2, b2, fifth, sixth); counting follows
Wizard of Odds: a coup that used fewer is extended over every way to draw the unused ones.
Every bet except the pair bets is judged on the cards' values only, so the 10^6 value
sequences say everything about them. The sequences fall into coup classes, the same coup
to every such judge: both two-card scores and each third card's value (or none). The core's
judges are asked once per class, on a representative coup, so no rule is written twice.

The sequences are then grouped by their multiset of values (5,005 multisets): a multiset
is drawn from a composition c in prod_v c_v (c_v - 1) ... (c_v - m_v + 1) ways in any one
order, so the count of every line is a product of a weight vector with a fixed table, exact
in int64 (every 8-deck count is below 416^6 < 2^63).

The simulator's outcome classes (``outcomes``) get their representative coups here too.
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from ..core import BET_TYPES, Card, Coup, Rank, Suit, banker_draws, play_coup

# Bets judged on the rank and suit of the first two cards of each hand: ``pairs`` counts
# them from a face composition; every other bet is judged on values.
PAIR_BETS = ("player_pair", "banker_pair", "either_pair", "perfect_pair")

# The (bet, line) of every value-judged bet's pay-table lines: the columns of the table.
LINES: tuple[tuple[str, str], ...] = tuple(
    (name, line) for name, kind in BET_TYPES.items() if name not in PAIR_BETS for line in kind.lines
)

IntArray = npt.NDArray[np.int64]
SmallArray = npt.NDArray[np.int8]

# No third card, in a class key.
NONE = 10
# Class keys: two-card scores (10 x 10) and each third card (11 x 11).
CLASSES = 10 * 10 * 11 * 11


def banker_draw_table() -> npt.NDArray[np.bool_]:
    """``table[score, p3]``: the banker draws with this score on this player third card."""
    return np.array([[banker_draws(s, p3) for p3 in range(10)] for s in range(10)])


@functools.cache
def value_sequences() -> dict[str, SmallArray]:
    """Every value sequence (p1, b1, p2, b2, c5, c6) dealt by the tableau, as columns.

    Keys: ``values`` (N x 6), two-card scores ``ps``, ``bs``, third-card values ``p3``,
    ``b3`` (``NONE`` when not drawn), final scores ``pf``, ``bf``. Small integers (int8):
    the 10^6 sequences then take a few MB, not hundreds.
    """
    p1, b1, p2, b2, c5, c6 = np.indices((10,) * 6, dtype=np.int8).reshape(6, -1)
    ps, bs = (p1 + p2) % 10, (b1 + b2) % 10
    natural = (ps >= 8) | (bs >= 8)
    # Player draws on 0-5 unless either hand is a natural; the fifth card is the player's.
    pdraw = ~natural & (ps <= 5)
    # The banker's third card is the sixth card if the player drew, else the fifth.
    banker_card = np.where(pdraw, c6, c5)
    bdraw = ~natural & np.where(pdraw, banker_draw_table()[bs, c5], bs <= 5)
    none = np.int8(NONE)
    p3 = np.where(pdraw, c5, none)
    b3 = np.where(bdraw, banker_card, none)
    zero = np.int8(0)
    pf = (ps + np.where(pdraw, c5, zero)) % 10
    bf = (bs + np.where(bdraw, banker_card, zero)) % 10
    arrays = {"ps": ps, "bs": bs, "p3": p3, "b3": b3, "pf": pf, "bf": bf}
    arrays["values"] = np.stack([p1, b1, p2, b2, c5, c6], axis=1)
    for array in arrays.values():
        array.setflags(write=False)
    return arrays


def card_of_value(value: int, suit: Suit, *, picture: bool = False) -> Card:
    """A card of a baccarat value: a ten (or a jack, with ``picture``) for 0."""
    if value == 0:
        return Card(Rank.JACK if picture else Rank.TEN, suit)
    return Card(Rank(value), suit)


def representative_coup(
    values: tuple[int, ...], *, player_pair: int = 0, banker_pair: int = 0
) -> Coup:
    """A coup dealt from cards of these six values, with each hand's first two cards
    unpaired (0), a pair of ranks in two suits (1), or identical (2).

    Unpaired cards of one value are a ten and a jack (only value 0 has two ranks).
    """
    p1, b1, p2, b2, c5, c6 = values
    clubs, diamonds, hearts, spades = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES
    cards = [
        card_of_value(p1, clubs),
        card_of_value(b1, hearts),
        card_of_value(p2, clubs if player_pair == 2 else diamonds, picture=not player_pair),
        card_of_value(b2, hearts if banker_pair == 2 else spades, picture=not banker_pair),
        card_of_value(c5, clubs),
        card_of_value(c6, diamonds),
    ]
    return play_coup(cards)


def judge_lines(coup: Coup, lines: tuple[tuple[str, str], ...]) -> npt.NDArray[np.bool_]:
    """Whether the coup hits each (bet, line)."""
    hits = {name: BET_TYPES[name].judge(coup) for name in dict.fromkeys(n for n, _ in lines)}
    return np.array([hits[name] == line for name, line in lines], dtype=np.bool_)


@functools.cache
def line_table() -> tuple[IntArray, IntArray]:
    """``(multiplicities, counts)``: for each multiset of six values, how many of each value it
    holds (K x 10) and how many of its orderings hit each of ``LINES`` (K x len(LINES))."""
    seq = value_sequences()
    values = seq["values"]
    # A coup class: two-card scores and third-card values (0-9, or NONE), as one number;
    # any one sequence of each class is asked (a repeated index keeps one of them).
    key = ((seq["ps"].astype(np.int32) * 10 + seq["bs"]) * 11 + seq["p3"]) * 11 + seq["b3"]
    some = np.full(CLASSES, -1, dtype=np.int32)
    some[key] = np.arange(len(key), dtype=np.int32)
    hits = np.zeros((CLASSES, len(LINES)), dtype=np.bool_)
    for k in np.flatnonzero(some >= 0):
        hits[k] = judge_lines(representative_coup(tuple(int(v) for v in values[some[k]])), LINES)
    # A multiset's key: its multiplicities as digits base 7 (a value occurs at most 6 times;
    # 7^10 < 2^31). Every array here is int32: the table is built in little memory.
    powers = 7 ** np.arange(10, dtype=np.int32)
    mkey = np.zeros(len(key), dtype=np.int32)
    for position in values.T:
        mkey += powers[position]
    unique_keys, multiset = np.unique(mkey, return_inverse=True)
    del mkey
    # Sequences by (multiset, class), then by line (5,005 x 12,100 < 2^31).
    pairs, n = np.unique(multiset.astype(np.int32) * np.int32(CLASSES) + key, return_counts=True)
    del multiset, key
    pair_multiset, pair_class = np.divmod(pairs, CLASSES)
    counts = np.zeros((len(unique_keys), len(LINES)), dtype=np.int64)
    for column in range(len(LINES)):
        hit = hits[pair_class, column]
        counts[:, column] = np.bincount(
            pair_multiset[hit], weights=n[hit], minlength=len(unique_keys)
        ).astype(np.int64)
    multiplicities = (unique_keys.astype(np.int64)[:, None] // powers.astype(np.int64)) % 7
    multiplicities.setflags(write=False)
    counts.setflags(write=False)
    return multiplicities, counts
