import pytest
from hypothesis import given
from hypothesis import strategies as st

from baccarat.core import Card, CardError, Rank, Suit, format_cards, new_deck, new_shoe_order

cards = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))


def test_parse_reads_rank_and_suit():
    card = Card.parse("Td")
    assert card.rank is Rank.TEN
    assert card.suit is Suit.DIAMONDS


@pytest.mark.parametrize(
    ("text", "value"),
    [("Ah", 1), ("2c", 2), ("5d", 5), ("9s", 9), ("Th", 0), ("Jc", 0), ("Qd", 0), ("Ks", 0)],
)
def test_card_values_follow_baccarat_counting(text, value):
    assert Card.parse(text).value == value


def test_parse_many_and_format_round_trip():
    assert format_cards(Card.parse_many("Ah Td 9s")) == "Ah Td 9s"


def test_parse_many_accepts_commas_and_lowercase_ranks():
    assert Card.parse_many("ah,td  9S") == Card.parse_many("Ah Td 9s")


@pytest.mark.parametrize("bad", ["", "A", "1h", "Ax", "10h", "Ahh", "Zz"])
def test_bad_card_is_refused_with_a_clear_error(bad):
    with pytest.raises(CardError):
        Card.parse(bad)


def test_parse_of_several_cards_points_to_parse_many():
    with pytest.raises(CardError, match="parse_many"):
        Card.parse("Ah Td 9s")


@given(st.lists(cards, max_size=20))
def test_notation_round_trips(hand):
    assert list(Card.parse_many(format_cards(hand))) == hand


@given(cards)
def test_repr_is_valid_code(card):
    assert eval(repr(card)) == card


def test_a_deck_has_fifty_two_distinct_cards_in_canonical_order():
    deck = new_deck()
    assert len(set(deck)) == 52
    assert format_cards(deck[:2]) == "Ac 2c"
    assert str(deck[13]) == "Ad"
    assert str(deck[-1]) == "Ks"


def test_a_shoe_is_deck_after_deck():
    shoe = new_shoe_order(6)
    assert len(shoe) == 312
    assert shoe[52:104] == new_deck()
