"""The compiled simulation kernel: shuffles and deals whole shoes of integer card ids.

Everything here is jitted with numba, which ignores annotations, so the functions are left
unannotated (and marked so for mypy); ``simulate.py`` is the typed front. The kernel is
deterministic: the same random state and the same calls deal the same cards, whatever the
chunking of the rounds.

Cards are ids ``0 .. 52 * decks - 1`` in the canonical shoe order of
``baccarat.core.new_shoe_order`` (deck by deck, suits c d h s, ranks A..K), so an id maps
back to a ``Card``. Tables built from the core give each id its baccarat value, its rank
and its face (rank and suit: equal for identical cards of different decks); who draws a
third card comes from a table built with the core's ``player_draws`` and ``banker_draws``,
so the tableau is written once.

The random source is xoshiro256** (Blackman and Vigna), its state four uint64 words; a
bounded draw in ``[0, n)`` uses the upper 32 bits of one output and Lemire's
multiply-and-reject method, so it is exactly uniform.

Shuffling is a Fisher-Yates from the front: step ``i`` swaps position ``i`` with a uniform
position in ``[i, n)``. After ``k`` steps the first ``k`` cards are a uniform random
sequence of the shoe whatever order the array was in, so a shoe shuffles only the prefix
that can be dealt (the cut card position plus the five cards a last coup may need), and a
fresh-shuffle round shuffles only six cards.

Outcome classes: a coup is counted by one index that keeps what a bet can be settled on:
final scores, whether each hand drew a third card, and the kind of each hand's first two
cards (no pair, pair of ranks, or identical cards, which a multi-deck shoe can hold). That
settles every bet there is (naturals, margins and the number of cards follow from scores
and third cards), so side bets cost the dealing loop nothing.
``class = ((((p * 10 + b) * 2 + p3) * 2 + b3) * 3 + ppair) * 3 + bpair``.
"""

from __future__ import annotations

import numba
import numpy as np

N_CLASSES = 3600
CLASS_SHAPE = (10, 10, 2, 2, 3, 3)
RECORD_FIELDS = 3  # start position, class, cards used

_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@numba.njit(cache=True, inline="always")
def _rotl(x, k):  # type: ignore[no-untyped-def]
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(cache=True, inline="always")
def _next(s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    """One xoshiro256** step: the output and the new state."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@numba.njit(cache=True)
def _redraw(n, m, s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    """The rare path of ``_below``: draw again while the product is in the biased zone."""
    threshold = (_TWO32 - n) % n
    while (m & _MASK32) < threshold:
        r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
        m = (r >> np.uint64(32)) * n
    return m, s0, s1, s2, s3


@numba.njit(cache=True, inline="always")
def _below(n, s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    """A uniform integer in ``[0, n)`` for a uint64 ``1 <= n <= 2**32`` (Lemire), and the state.

    The upper 32 bits ``x`` of one output give ``m = x * n``; ``m >> 32`` is the draw. It is
    exactly uniform once the products whose low half is below ``2**32 mod n`` are rejected;
    only a low half below ``n`` can be one, so the modulo is computed on that rare path.
    """
    r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    m = (r >> np.uint64(32)) * n
    if (m & _MASK32) < n:
        m, s0, s1, s2, s3 = _redraw(n, m, s0, s1, s2, s3)
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@numba.njit(cache=True)
def next_u64(state):  # type: ignore[no-untyped-def]
    """The next raw output of the generator (for checking it against the reference)."""
    r, state[0], state[1], state[2], state[3] = _next(state[0], state[1], state[2], state[3])
    return r


@numba.njit(cache=True)
def below(state, n):  # type: ignore[no-untyped-def]
    """A uniform integer in ``[0, n)`` drawn from ``state`` (advanced in place)."""
    x, state[0], state[1], state[2], state[3] = _below(
        np.uint64(n), state[0], state[1], state[2], state[3]
    )
    return x


@numba.njit(cache=True, inline="always")
def _shuffle_prefix(shoe, k, s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    n = shoe.shape[0]
    for i in range(k):
        j, s0, s1, s2, s3 = _below(np.uint64(n - i), s0, s1, s2, s3)
        j += i
        tmp = shoe[i]
        shoe[i] = shoe[j]
        shoe[j] = tmp
    return s0, s1, s2, s3


@numba.njit(cache=True)
def shuffle_prefix(state, shoe, k):  # type: ignore[no-untyped-def]
    """Fisher-Yates from the front over the first ``k`` positions of ``shoe``, in place."""
    state[0], state[1], state[2], state[3] = _shuffle_prefix(
        shoe, min(k, shoe.shape[0] - 1), state[0], state[1], state[2], state[3]
    )


@numba.njit(cache=True, inline="always")
def _new_shoe(shoe, value, burn, prefix, s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    """A new cut shoe: shuffled, then burned; where its first coup starts, and the state.

    Dealers reshuffle between coups, never inside one: the coup that crossed the cut card
    was completed; no coup starts at or past it (nor short of six cards)."""
    s0, s1, s2, s3 = _shuffle_prefix(shoe, prefix, s0, s1, s2, s3)
    pos = 0
    if burn:
        # Turn the first card, burn as many more as its value; T-K burn ten.
        first = value[shoe[0]]
        pos = 1 + (first if first > 0 else 10)
    return pos, s0, s1, s2, s3


@numba.njit(cache=True, inline="always")
def _deal(shoe, pos, value, tableau):  # type: ignore[no-untyped-def]
    """The coup at ``pos``: final scores, whether each hand drew a third card."""
    # Deal order: player, banker, player, banker; the fifth card is the player's third
    # when the player draws, else the banker's. The deal is branch-free: the tableau
    # table says who draws, and the sixth card counts only when both do.
    p = (value[shoe[pos]] + value[shoe[pos + 2]]) % 10
    b = (value[shoe[pos + 1]] + value[shoe[pos + 3]]) % 10
    v5 = np.int64(value[shoe[pos + 4]])
    v6 = np.int64(value[shoe[pos + 5]])
    draws = tableau[(p * 10 + b) * 10 + v5]
    p3 = draws & 1
    b3 = draws >> 1
    banker_card = v5 + p3 * (v6 - v5)
    return (p + p3 * v5) % 10, (b + b3 * banker_card) % 10, p3, b3


@numba.njit(cache=True)
def run(  # type: ignore[no-untyped-def]
    state,  # uint64[4]: the generator, advanced in place
    shoe,  # uint16[n]: card ids in dealing order, permuted in place
    position,  # int64[1]: next card to deal; -1 when a new shoe is due
    rounds,  # coups to deal in this call
    counts,  # int64[N_CLASSES]: coups by outcome class, added to
    value,  # uint8[n]: baccarat value of each card id
    rank,  # uint8[n]: rank of each card id
    face,  # uint8[n]: rank and suit of each card id, equal only for identical cards
    tableau,  # uint8[1000]: who draws, by [(player * 10 + banker) * 10 + fifth card]
    fresh,  # True: a new shuffle before every coup
    cut,  # cut-shoe: a coup starts only while position < cut
    burn,  # cut-shoe: burn under the first card of every shoe
    prefix,  # cards shuffled per shoe: every card a coup may use
    record,  # int64[k, RECORD_FIELDS]: the first k coups of this call, for checking
):
    """Deal ``rounds`` coups, counting each by outcome class; return the coups dealt."""
    n = shoe.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    pos = position[0]
    done = 0
    n_record = record.shape[0]
    while done < rounds:
        # A new shuffle or a new shoe before the coup (run_multiplier starts its coups the
        # same way: a helper for these lines measured 8% slower here, the hottest loop).
        if fresh:
            s0, s1, s2, s3 = _shuffle_prefix(shoe, 6, s0, s1, s2, s3)
            pos = 0
        elif pos < 0 or pos >= cut or pos + 6 > n:
            pos, s0, s1, s2, s3 = _new_shoe(shoe, value, burn, prefix, s0, s1, s2, s3)
            continue
        p, b, p3, b3 = _deal(shoe, pos, value, tableau)
        c0 = shoe[pos]
        c1 = shoe[pos + 1]
        c2 = shoe[pos + 2]
        c3 = shoe[pos + 3]
        used = 4 + p3 + b3
        ppair = (rank[c0] == rank[c2]) * (1 + (face[c0] == face[c2]))
        bpair = (rank[c1] == rank[c3]) * (1 + (face[c1] == face[c3]))
        cls = ((((p * 10 + b) * 2 + p3) * 2 + b3) * 3 + ppair) * 3 + bpair
        counts[cls] += 1
        if done < n_record:
            record[done, 0] = pos
            record[done, 1] = cls
            record[done, 2] = used
        pos += used
        done += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    position[0] = pos
    return done


# The multiplier game's bets, in the rows of ``run_multiplier``'s counts.
MULTIPLIER_ROWS = ("player", "banker", "tie", "player_pair", "banker_pair")
# A row's columns: lost, pushed, then won with each possible multiplier (``products``).
LOST, PUSHED, WON = 0, 1, 2
# What ``run_multiplier`` records of a coup: where it starts, the cards it used, K, the six
# card ids from its start, the multiplier cards' identities and multipliers (five places,
# 0 when unused), and each bet's multiplier (``MULTIPLIER_ROWS``).
MULTIPLIER_RECORD = 24


@numba.njit(cache=True, inline="always")
def _pick(cumulative, denominator, s0, s1, s2, s3):  # type: ignore[no-untyped-def]
    """An index of a published distribution: a uniform integer below the common denominator
    against the cumulative numerators."""
    x, s0, s1, s2, s3 = _below(np.uint64(denominator), s0, s1, s2, s3)
    i = 0
    while x >= cumulative[i]:
        i += 1
    return i, s0, s1, s2, s3


@numba.njit(cache=True)
def run_multiplier(  # type: ignore[no-untyped-def]
    state,  # uint64[4]: the generator, advanced in place
    shoe,  # uint16[n]: card ids in dealing order, permuted in place
    position,  # int64[1]: next card to deal; -1 when a new shoe is due
    rounds,  # coups to deal in this call
    counts,  # int64[5, 2 + len(products)]: each bet's rounds lost, pushed, won by multiplier
    value,  # uint8[n]: baccarat value of each card id
    rank,  # uint8[n]: rank of each card id
    face,  # uint8[n]: rank and suit of each card id (4 .. 55), its identity
    tableau,  # uint8[1000]: who draws, by [(player * 10 + banker) * 10 + fifth card]
    fresh,  # True: a new shuffle before every coup
    cut,  # cut-shoe: a coup starts only while position < cut
    burn,  # cut-shoe: burn under the first card of every shoe
    prefix,  # cards shuffled per shoe: every card a coup may use
    identities,  # uint8[52]: the identities (faces), permuted in place
    count_cumulative,  # int64[]: cumulative numerators of the number of multiplier cards
    count_keys,  # int64[]: the numbers of multiplier cards
    count_denominator,  # their common denominator
    value_cumulative,  # int64[]: cumulative numerators of the multipliers
    value_keys,  # int64[]: the multipliers
    value_denominator,  # their common denominator
    products,  # int64[]: every multiplier a bet can have, sorted
    record,  # int64[k, MULTIPLIER_RECORD]: the first k coups, for checking
):
    """Deal ``rounds`` coups of multiplier baccarat, each after its multiplier cards: K,
    then K distinct identities (a partial Fisher-Yates), then each one's multiplier. Each
    bet's result is counted by its multiplier; return the coups dealt."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    pos = position[0]
    done = 0
    n_record = record.shape[0]
    n = shoe.shape[0]
    multiplier = np.ones(64, dtype=np.int64)
    while done < rounds:
        if fresh:
            s0, s1, s2, s3 = _shuffle_prefix(shoe, 6, s0, s1, s2, s3)
            pos = 0
        elif pos < 0 or pos >= cut or pos + 6 > n:
            pos, s0, s1, s2, s3 = _new_shoe(shoe, value, burn, prefix, s0, s1, s2, s3)
            continue
        k, s0, s1, s2, s3 = _pick(count_cumulative, count_denominator, s0, s1, s2, s3)
        k = count_keys[k]
        s0, s1, s2, s3 = _shuffle_prefix(identities, k, s0, s1, s2, s3)
        for i in range(k):
            v, s0, s1, s2, s3 = _pick(value_cumulative, value_denominator, s0, s1, s2, s3)
            multiplier[identities[i]] = value_keys[v]
        p, b, p3, b3 = _deal(shoe, pos, value, tableau)
        used = 4 + p3 + b3
        c0 = shoe[pos]
        c1 = shoe[pos + 1]
        c2 = shoe[pos + 2]
        c3 = shoe[pos + 3]
        c4 = shoe[pos + 4]
        banker_third = shoe[pos + 4 + p3]
        mp = multiplier[face[c0]] * multiplier[face[c2]]
        mb = multiplier[face[c1]] * multiplier[face[c3]]
        # A third card multiplies when it was drawn (a card not drawn counts 1).
        mp_all = mp * (multiplier[face[c4]] if p3 else 1)
        mb_all = mb * (multiplier[face[banker_third]] if b3 else 1)
        won = (mp_all, mb_all, mp_all * mb_all, mp, mb)
        # Each bet's result: 1 won, 0 lost, -1 pushed (Player and Banker on a tie).
        tie = -1 if p == b else 0
        results = (
            1 if p > b else tie,
            1 if b > p else tie,
            1 if p == b else 0,
            1 if rank[c0] == rank[c2] else 0,
            1 if rank[c1] == rank[c3] else 0,
        )
        for row in range(5):
            if results[row] == 1:
                counts[row, WON + np.searchsorted(products, won[row])] += 1
            elif results[row] == -1:
                counts[row, PUSHED] += 1
            else:
                counts[row, LOST] += 1
        if done < n_record:
            record[done, 0] = pos
            record[done, 1] = used
            record[done, 2] = k
            for i in range(6):
                record[done, 3 + i] = shoe[pos + i]
            for i in range(k):
                record[done, 9 + i] = identities[i]
                record[done, 14 + i] = multiplier[identities[i]]
            for row in range(5):
                record[done, 19 + row] = won[row]
        for i in range(k):
            multiplier[identities[i]] = 1
        pos += used
        done += 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    position[0] = pos
    return done
