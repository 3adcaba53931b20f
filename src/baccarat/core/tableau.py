"""The third-card rules (SPEC section 1). The tableau is law, so it is code."""

from __future__ import annotations


def hand_score(values: tuple[int, ...] | list[int]) -> int:
    """A hand's score: the sum of its card values modulo 10."""
    return sum(values) % 10


def is_natural(score: int) -> bool:
    """A two-card 8 or 9 is a natural: both hands stand."""
    return score >= 8


def player_draws(score: int) -> bool:
    """Player draws on 0-5 and stands on 6-7 (naturals are settled before this)."""
    return score <= 5


def banker_draws(score: int, player_third: int | None) -> bool:
    """Whether the banker draws, given its two-card score and the player's third card value.

    ``player_third`` is None when the player stood; then the banker draws on 0-5.
    """
    if player_third is None:
        # Banker, when the player stood: draws on 0-5, stands on 6-7.
        return score <= 5
    if score <= 2:
        # Banker 0-2 always draws.
        return True
    if score == 3:
        # Banker 3 draws unless the player's third card is an 8.
        return player_third != 8
    if score == 4:
        # Banker 4 draws on a player third card of 2-7.
        return 2 <= player_third <= 7
    if score == 5:
        # Banker 5 draws on a player third card of 4-7.
        return 4 <= player_third <= 7
    if score == 6:
        # Banker 6 draws only on a player third card of 6-7.
        return 6 <= player_third <= 7
    # Banker 7 stands.
    return False
