"""Exact odds of every bet: published golden vectors, and a plain enumeration by rank and suit."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from baccarat.analysis import CompositionError, analyse, faces_of, full_composition, full_faces
from baccarat.analysis.composition import face_card, falling
from baccarat.analysis.exact import bet_odds
from baccarat.core import (
    BET_TYPES,
    PRESETS,
    Card,
    Shoe,
    ShoeEmpty,
    get_rules,
    play_coup,
    rules_for_decks,
)


def rounded(x: Fraction, places: int) -> Decimal:
    return round(Decimal(x.numerator) / Decimal(x.denominator), places)


def held(x: Fraction, printed: str, *, scale: int = 1) -> bool:
    """Whether x (times scale) shows as ``printed`` to its printed digits."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return rounded(x * scale, places) == Decimal(printed)


def _vectors(golden: dict[str, Any]) -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = golden["side_bets"]
    return vectors


def _analysis(vector: dict[str, Any]) -> Any:
    rules = get_rules(vector["rules"]) if "rules" in vector else rules_for_decks(vector["decks"])
    assert rules.decks == vector["decks"]
    return analyse(rules, full_faces(vector["decks"]))


def test_every_golden_vector_names_its_source(golden: dict[str, Any]) -> None:
    assert len(_vectors(golden)) >= 10
    assert all(v["source"] and v["decks"] in (4, 6, 8) for v in _vectors(golden))


@pytest.mark.parametrize("index", range(12))
def test_golden_side_bet_vectors_hold_exactly(golden: dict[str, Any], index: int) -> None:
    vector = _vectors(golden)[index]
    analysis = _analysis(vector)
    lines, bets = analysis.lines, analysis.bets
    total = vector.get("combinations_of", analysis.counts.total)
    for bet, counts in vector.get("combinations", {}).items():
        for line, count in counts.items():
            chance = sum(lines[bet, part] for part in line.split(" or "))
            assert chance * total == count, (bet, line)
    for bet, printed in vector.get("house_edge_percent", {}).items():
        assert held(bets[bet].house_edge, printed, scale=100), bet
    for key, printed in vector.get("probability_percent", {}).items():
        assert held(lines[tuple(key.split("."))], printed, scale=100), key
    for key, printed in vector.get("probability", {}).items():
        assert held(lines[tuple(key.split("."))], printed), key
    for bet, printed in vector.get("return", {}).items():
        assert held(-bets[bet].house_edge, printed), bet
    for at in vector.get("house_edge_percent_at", []):
        # The publisher's own pays on our line chances.
        chances = {line: lines["perfect_pair", line] for line in at["pays"]}
        edge = (1 - sum(chances.values())) - sum(c * at["pays"][k] for k, c in chances.items())
        assert held(edge, at["house_edge_percent"], scale=100)


def test_no_commission_main_bets_use_their_own_lines() -> None:
    # The old single banker pay would give EZ's banker 1:1 on every win: a player edge.
    ez = analyse(get_rules("ez-8deck")).bets["banker"].house_edge
    plain = analyse(get_rules("online-8deck-tie8")).bets["banker"].house_edge
    assert 0 < ez < plain
    super6 = analyse(get_rules("no-commission-8deck")).bets["banker"].house_edge
    assert super6 > plain


def lines_by_enumeration(faces: tuple[int, ...]) -> dict[tuple[str, str], Fraction]:
    """Every ordered deal of actual cards (rank and suit), each coup judged by the core's
    judges: the chance of every (bet, line). Slow and plainly right."""
    counts = list(faces)
    n = sum(counts)
    tally: Counter[tuple[str, str]] = Counter()

    def walk(prefix: list[Card], weight: int) -> None:
        if len(prefix) >= 4:
            try:
                coup = play_coup(prefix)
            except ShoeEmpty:
                pass
            else:
                ways = weight * falling(n - len(prefix), 6 - len(prefix))
                for name, kind in BET_TYPES.items():
                    line = kind.judge(coup)
                    if line is not None:
                        tally[name, line] += ways
                return
        for index, count in enumerate(counts):
            if count:
                counts[index] -= 1
                walk([*prefix, face_card(index)], weight * count)
                counts[index] += 1

    walk([], 1)
    return {key: Fraction(ways, falling(n, 6)) for key, ways in tally.items()}


def small_shoe(seed: int) -> tuple[int, ...]:
    """A few faces of a two-deck shoe, some twice: pairs, identical pairs, all values."""
    rng = random.Random(seed)
    faces = rng.sample(range(52), rng.randint(5, 7))
    cards = [face_card(f) for f in faces for _ in range(rng.randint(1, 2))]
    while len(cards) < 7:
        cards.append(face_card(faces[0]))
    return faces_of(cards)


SHOES = [
    faces_of(Card.parse_many("Ah 2d 5s 5h Kc Kd Qh 9c")),  # one deck: pairs, no identical
    faces_of(Card.parse_many("Ah Ah Kd Kd Ks 5c 5c 4h 9s")),  # two decks
    *(small_shoe(seed) for seed in range(4)),
]


@pytest.mark.parametrize("faces", SHOES)
def test_every_line_equals_a_plain_enumeration_by_rank_and_suit(faces: tuple[int, ...]) -> None:
    brute = lines_by_enumeration(faces)
    analysis = analyse(get_rules("classic-8deck"), faces)
    assert set(brute) <= set(analysis.lines)
    for key, chance in analysis.lines.items():
        assert chance == brute.get(key, 0), key
    everything = {k: brute.get(k, Fraction(0)) for k in analysis.lines}
    for rules in PRESETS:
        assert analyse(rules, faces).bets == bet_odds(rules, everything), rules.name


def test_a_random_two_deck_shoe_with_cards_removed_equals_the_enumeration() -> None:
    rng = random.Random(11)
    shoe = Shoe.shuffled(2, rng)
    # Seven cards of a shuffled two-deck shoe, with one card doubled for an identical pair.
    cards = [*shoe.cards[:6], shoe.cards[0]]
    faces = faces_of(cards)
    analysis = analyse(get_rules("classic-6deck"), faces)
    brute = lines_by_enumeration(faces)
    assert all(analysis.lines[k] == brute.get(k, 0) for k in analysis.lines)


def test_a_value_composition_serves_pair_bets_only_as_whole_decks() -> None:
    rules = get_rules("classic-8deck")
    assert analyse(rules, full_composition(8)).bets == analyse(rules).bets
    partial = tuple(n - (v == 5) for v, n in enumerate(full_composition(8)))
    with pytest.raises(CompositionError):
        analyse(rules, partial)
    # Without pair bets, values are enough.
    assert analyse(get_rules("ez-8deck"), partial).bets["dragon7"].house_edge > 0


def test_faces_must_be_a_real_shoe() -> None:
    with pytest.raises(CompositionError):
        analyse(get_rules("classic-8deck"), (9,) * 52)
    with pytest.raises(CompositionError):
        analyse(get_rules("classic-8deck"), (1,) + (0,) * 51)
