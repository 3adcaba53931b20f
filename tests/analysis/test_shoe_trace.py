"""The shoe trace: one shoe dealt by the rules engine, with exact odds after every coup."""

from __future__ import annotations

import random

import pytest

from baccarat.analysis import analyse, full_composition, remove_cards, shoe_faces
from baccarat.analysis.trace import STANDARD_PENETRATION, trace_shoe
from baccarat.core import Shoe, burn_count, deal_coup, get_rules


@pytest.mark.parametrize("seed", [1, 77])
def test_trace_deals_the_seeded_shoe_to_the_cut_card(seed: int) -> None:
    rules = get_rules("classic-8deck")
    trace = trace_shoe(rules, random.Random(seed))
    shoe = Shoe.shuffled(8, random.Random(seed))
    assert trace.burned == shoe.burn_by_first_card()
    assert len(trace.burned) == 1 + burn_count(trace.burned[0])
    assert trace.cut_card == rules.cut_card_position and not trace.standard_cut
    for traced in trace.coups:
        assert traced.position == shoe.position < trace.cut_card
        assert traced.coup == deal_coup(shoe)
        assert traced.remaining == shoe.remaining
    assert shoe.position >= trace.cut_card and trace.undealt == shoe.remaining
    assert 60 < len(trace.coups) < 90


def test_each_coup_shows_the_exact_odds_of_the_cards_left() -> None:
    rules = get_rules("mini")
    trace = trace_shoe(rules, random.Random(3))
    composition = remove_cards(full_composition(8), trace.burned)
    removed = list(trace.burned)
    assert trace.start.composition == composition
    for traced in trace.coups:
        composition = remove_cards(composition, traced.coup.cards_in_deal_order)
        removed.extend(traced.coup.cards_in_deal_order)
        assert traced.analysis is not None
        assert traced.analysis.composition == composition
        # Pair bets are priced by rank and suit: the analysis knows which cards are gone.
        assert traced.analysis.faces == shoe_faces(8, removed)
        assert traced.analysis.bets == analyse(rules, shoe_faces(8, removed)).bets
    # The odds move with the cards: not every coup leaves the banker's edge where it was.
    edges = {t.analysis.bets["banker"].house_edge for t in trace.coups if t.analysis}
    assert len(edges) > 10


def test_a_fresh_shuffle_game_is_traced_to_the_standard_cut_card_without_burn() -> None:
    assert get_rules("classic-8deck").penetration == STANDARD_PENETRATION
    rules = get_rules("online-6deck-tie9")
    trace = trace_shoe(rules, random.Random(5))
    assert trace.standard_cut and trace.burned == ()
    assert trace.cut_card == int(312 * STANDARD_PENETRATION)
    assert trace.coups[0].position == 0


def test_a_single_deck_trace_stops_its_analysis_when_too_few_cards_remain() -> None:
    rules = get_rules("single-deck")
    traces = [trace_shoe(rules, random.Random(seed)) for seed in range(20)]
    last = [t.coups[-1] for t in traces]
    assert all(c.analysis is None for c in last if c.remaining < 6)
    assert all(c.analysis is not None for c in last if c.remaining >= 6)
    assert any(c.remaining < 6 for c in last)


def test_trace_json_lists_every_coup_with_its_house_edges() -> None:
    data = trace_shoe(get_rules("classic-8deck"), random.Random(9)).to_json()
    assert data["rules"] == "classic-8deck" and data["cut_card"] == 364
    assert len(data["burned"]) >= 2
    first = data["coups"][0]
    assert set(first) == {"number", "position", "coup", "remaining", "composition", "house_edge"}
    assert list(first["house_edge"]) == list(get_rules("classic-8deck").bets)
    assert sum(first["composition"]) == first["remaining"]
