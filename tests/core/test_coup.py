import random

from hypothesis import given
from hypothesis import strategies as st

from baccarat.core import Card, Outcome, Shoe, ShoeEmpty, deal_coup, format_cards, play_coup


def test_cards_are_dealt_player_banker_player_banker_then_thirds():
    coup = deal_coup(Shoe.stacked("4h Kd 8s 2c 3d 9h"))
    assert format_cards(coup.player.cards) == "4h 8s 3d"
    assert format_cards(coup.banker.cards) == "Kd 2c 9h"
    assert format_cards(coup.cards_in_deal_order) == "4h Kd 8s 2c 3d 9h"


def test_scores_are_shown_as_two_card_and_final():
    coup = deal_coup(Shoe.stacked("4h Kd 8s 2c 3d 9h"))
    assert coup.player.score_text == "2:5"
    assert coup.banker.score_text == "2:1"
    assert coup.winner is Outcome.PLAYER
    assert not coup.natural
    assert coup.cards_used == 6


def test_spec_examples_of_hand_scores():
    # SPEC section 1: 8+8 = 16 -> 6; 7+6 -> 3; 9+K -> 9.
    assert play_coup(Card.parse_many("8h 7c 8d 6c 9s Ks")).player.two_card_score == 6
    assert play_coup(Card.parse_many("8h 7c 8d 6c 9s Ks")).banker.two_card_score == 3
    assert play_coup(Card.parse_many("9h 2c Kd 5c")).player.score == 9


def test_deal_advances_the_shoe_by_the_cards_used():
    shoe = Shoe.stacked("9h Kc Td 2c 7s 7d")
    coup = deal_coup(shoe)
    assert coup.cards_used == 4
    assert shoe.position == 4


def test_a_coup_that_runs_out_of_cards_is_an_error():
    try:
        play_coup(Card.parse_many("Th Kc 2d 3c"))
    except ShoeEmpty:
        return
    raise AssertionError("a player 2 must draw a fifth card")


@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=8))
def test_any_shuffled_shoe_gives_scores_0_to_9_and_4_to_6_cards(seed, decks):
    shoe = Shoe.shuffled(decks, random.Random(seed))
    while shoe.remaining >= 6:
        coup = deal_coup(shoe)
        assert 4 <= coup.cards_used <= 6
        assert 2 <= len(coup.player.cards) <= 3
        for hand in (coup.player, coup.banker):
            assert all(0 <= s <= 9 for s in hand.scores)
        assert coup.natural == (max(coup.player.two_card_score, coup.banker.two_card_score) >= 8)
        if coup.natural:
            assert coup.cards_used == 4
