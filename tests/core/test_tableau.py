"""Every cell of the third-card tableau (SPEC section 1), by stacked shoes."""

import pytest

from baccarat.core import Card, Shoe, banker_draws, deal_coup, player_draws

# SPEC section 1, banker when the player drew a third card worth p3: the values of p3 on
# which the banker draws, written out from the table rather than from the code.
BANKER_DRAWS_ON = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}

# One card for each value 0..9, to build hands with a given score.
VALUE_CARD = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}


def two_cards_scoring(score: int, suit: str) -> tuple[str, str]:
    """A ten-value card and a card of the score's value: a two-card hand of that score."""
    return f"T{suit}", f"{VALUE_CARD[score]}{suit}"


def stacked(player: tuple[str, str], banker: tuple[str, str], *rest: str) -> Shoe:
    # Deal order: player, banker, player, banker, then third cards.
    return Shoe.stacked(" ".join([player[0], banker[0], player[1], banker[1], *rest]))


@pytest.mark.parametrize("banker_score", range(8))
@pytest.mark.parametrize("p3", range(10))
def test_banker_tableau_cell_by_stacked_shoe(banker_score, p3):
    # Player 0 draws a third card of value p3; the banker holds banker_score.
    shoe = stacked(
        two_cards_scoring(0, "c"), two_cards_scoring(banker_score, "d"), f"{VALUE_CARD[p3]}h", "5s"
    )
    coup = deal_coup(shoe)
    assert len(coup.player.cards) == 3
    draws = len(coup.banker.cards) == 3
    assert draws == (p3 in BANKER_DRAWS_ON[banker_score])
    assert banker_draws(banker_score, p3) == draws


def test_banker_three_stands_on_player_eight():
    coup = deal_coup(stacked(("Tc", "Kc"), ("Td", "3d"), "8h", "5s"))
    assert [str(c) for c in coup.banker.cards] == ["Td", "3d"]
    assert coup.banker.score_text == "3:3"


def test_banker_six_draws_only_on_player_six_or_seven():
    assert deal_coup(stacked(("Tc", "Kc"), ("Td", "6d"), "7h", "5s")).banker.cards[
        -1
    ] == Card.parse("5s")
    assert len(deal_coup(stacked(("Tc", "Kc"), ("Td", "6d"), "5h", "5s")).banker.cards) == 2


@pytest.mark.parametrize("player_score", range(8))
def test_player_draws_on_zero_to_five_and_stands_on_six_and_seven(player_score):
    coup = deal_coup(stacked(two_cards_scoring(player_score, "c"), ("Td", "7d"), "2h", "3s"))
    assert (len(coup.player.cards) == 3) == (player_score <= 5)
    assert player_draws(player_score) == (player_score <= 5)


@pytest.mark.parametrize("banker_score", range(8))
def test_banker_when_player_stood_draws_on_zero_to_five(banker_score):
    coup = deal_coup(stacked(("Tc", "6c"), two_cards_scoring(banker_score, "d"), "2h"))
    assert len(coup.player.cards) == 2
    assert (len(coup.banker.cards) == 3) == (banker_score <= 5)
    assert banker_draws(banker_score, None) == (banker_score <= 5)


@pytest.mark.parametrize("natural", [("8c", "Kc"), ("9c", "Kc"), ("4c", "4h"), ("5c", "4h")])
def test_player_natural_stops_both_hands_even_a_banker_zero(natural):
    coup = deal_coup(stacked(natural, ("Td", "Kd"), "2h", "3s"))
    assert coup.natural
    assert coup.cards_used == 4
    assert coup.winner.value == "player"


@pytest.mark.parametrize("natural", [("8d", "Kd"), ("9d", "Kd")])
def test_banker_natural_stops_a_player_zero_from_drawing(natural):
    coup = deal_coup(stacked(("Tc", "Kc"), natural, "9h", "3s"))
    assert coup.natural
    assert len(coup.player.cards) == 2
    assert coup.winner.value == "banker"


def test_natural_eight_against_natural_eight_is_a_tie():
    coup = deal_coup(stacked(("8c", "Kc"), ("4d", "4s"), "9h"))
    assert coup.winner.value == "tie"
    assert coup.natural
