import random
from collections import Counter
from itertools import permutations

import pytest

from baccarat.core import Card, Shoe, ShoeEmpty, ShoeError, fisher_yates, format_cards


def test_a_new_shoe_holds_every_card_of_its_decks():
    shoe = Shoe.new(8)
    assert shoe.remaining == 416
    assert shoe.composition() == (128, 32, 32, 32, 32, 32, 32, 32, 32, 32)


@pytest.mark.parametrize("decks", [0, 9, -1])
def test_a_shoe_holds_one_to_eight_decks(decks):
    with pytest.raises(ShoeError):
        Shoe.new(decks)


def test_shuffle_is_a_permutation_of_the_shoe():
    shoe = Shoe.shuffled(6, random.Random(7))
    assert Counter(shoe.cards) == Counter(Shoe.new(6).cards)
    assert shoe.cards != Shoe.new(6).cards


def test_shuffle_is_reproducible_from_the_injected_random_source():
    assert Shoe.shuffled(1, random.Random(3)).cards == Shoe.shuffled(1, random.Random(3)).cards
    assert Shoe.shuffled(1, random.Random(3)).cards != Shoe.shuffled(1, random.Random(4)).cards


def test_fisher_yates_gives_every_order_of_four_cards_equally_often():
    # 24 orders, 48,000 shuffles: chi-square with 23 degrees of freedom; the bound 49.7 is
    # the 0.1% critical value, so a correct shuffle fails this test once in a thousand seeds.
    cards = list(Card.parse_many("Ac 2c 3c 4c"))
    rng = random.Random(2024)
    tally: Counter[tuple[Card, ...]] = Counter()
    for _ in range(48_000):
        deck = cards.copy()
        fisher_yates(deck, rng)
        tally[tuple(deck)] += 1
    assert set(tally) == set(permutations(cards))
    expected = 48_000 / 24
    chi_square = sum((n - expected) ** 2 / expected for n in tally.values())
    assert chi_square < 49.7


def test_draw_and_burn_advance_and_report_the_composition_left():
    shoe = Shoe.stacked("Ah Td 9s 5c")
    assert shoe.draw() == Card.parse("Ah")
    assert format_cards(shoe.burn(2)) == "Td 9s"
    assert shoe.remaining == 1
    assert shoe.composition() == (0, 0, 0, 0, 0, 1, 0, 0, 0, 0)
    shoe.draw()
    with pytest.raises(ShoeEmpty):
        shoe.draw()


@pytest.mark.parametrize(("first", "burned"), [("Ah", 1), ("7c", 7), ("Td", 10), ("Ks", 10)])
def test_burn_turns_the_first_card_and_burns_its_value_more(first, burned):
    shoe = Shoe.stacked([Card.parse(first), *Shoe.new(1).cards[:20]])
    cards = shoe.burn_by_first_card()
    assert len(cards) == 1 + burned
    assert shoe.position == 1 + burned


def test_cut_moves_the_top_k_cards_under_the_rest():
    shoe = Shoe.stacked("Ah 2h 3h 4h 5h")
    shoe.cut(2)
    assert format_cards(shoe.cards) == "3h 4h 5h Ah 2h"


def test_cut_is_refused_after_the_deal_began():
    shoe = Shoe.stacked("Ah 2h 3h")
    shoe.draw()
    with pytest.raises(ShoeError):
        shoe.cut(1)


def test_cut_card_is_reached_once_the_deal_passes_it():
    shoe = Shoe.new(1)
    shoe.place_cut_card(10)
    shoe.burn(9)
    assert not shoe.is_cut_card_reached
    shoe.draw()
    assert shoe.is_cut_card_reached
