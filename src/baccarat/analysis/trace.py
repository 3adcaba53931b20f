"""A shoe trace: one whole shoe dealt by the rules engine, with the exact odds after each coup."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import Card, Coup, RandomSource, RuleSet, Shoe, ShufflePolicy, deal_coup
from .composition import MIN_CARDS, faces_of
from .exact import Analysis, analyse

# A fresh-shuffle rule set has no cut card; its trace deals to the land-casino standard's
# (the classic-8deck preset's penetration).
STANDARD_PENETRATION = Fraction(7, 8)


@dataclass(frozen=True, slots=True)
class TracedCoup:
    """A coup of the trace and the exact odds of the cards left after it."""

    number: int
    # Cards dealt from the shoe (burn included) before this coup.
    position: int
    coup: Coup
    remaining: int
    # None when fewer than six cards remain: no coup can be dealt from them.
    analysis: Analysis | None

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "position": self.position,
            "coup": self.coup.to_json(),
            "remaining": self.remaining,
            "composition": None if self.analysis is None else list(self.analysis.composition),
            "house_edge": house_edges(self.analysis),
        }


def house_edges(analysis: Analysis | None) -> dict[str, float] | None:
    """Each bet's house edge by name, as floats, or None without an analysis."""
    if analysis is None:
        return None
    return {kind: float(odds.house_edge) for kind, odds in analysis.bets.items()}


@dataclass(frozen=True, slots=True)
class ShoeTrace:
    """One shoe from shuffle to cut card: the burn, every coup, and the odds along the way."""

    rules: RuleSet
    cards: int
    cut_card: int
    # The cut card's place comes from the standard, not the rule set (fresh-shuffle games).
    standard_cut: bool
    burned: tuple[Card, ...]
    start: Analysis
    coups: tuple[TracedCoup, ...]
    undealt: int

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.name,
            "decks": self.rules.decks,
            "cards": self.cards,
            "cut_card": self.cut_card,
            "standard_cut": self.standard_cut,
            "burned": [str(c) for c in self.burned],
            "start": {
                "composition": list(self.start.composition),
                "house_edge": house_edges(self.start),
            },
            "coups": [c.to_json() for c in self.coups],
            "undealt": self.undealt,
        }


def trace_shoe(rules: RuleSet, random: RandomSource) -> ShoeTrace:
    """Deal one shoe of ``rules`` with the core engine, analysing the rest after every coup.

    The shoe is ``Shoe.shuffled(decks, random)``. A cut-shoe rule set burns (if it does) by
    ``Shoe.burn_by_first_card`` and places the cut card at ``rules.cut_card_position``. A
    fresh-shuffle rule set, which never deals a second coup from a shoe, is dealt here
    through to a cut card at the land-casino standard penetration (7/8), without a burn.
    """
    shoe = Shoe.shuffled(rules.decks, random)
    burned: tuple[Card, ...] = ()
    if rules.shuffle is ShufflePolicy.CUT_SHOE:
        if rules.burn:
            burned = shoe.burn_by_first_card()
        cut = rules.cut_card_position
        assert cut is not None  # a cut shoe always has a penetration
        standard = False
    else:
        cut = int(rules.cards_per_shoe * STANDARD_PENETRATION)
        standard = True
    shoe.place_cut_card(cut)
    start = analyse(rules, faces_of(shoe.remaining_cards()))
    coups: list[TracedCoup] = []
    while not shoe.is_cut_card_reached and shoe.remaining >= MIN_CARDS:
        position = shoe.position
        coup = deal_coup(shoe)
        remaining = shoe.remaining
        analysis = (
            analyse(rules, faces_of(shoe.remaining_cards())) if remaining >= MIN_CARDS else None
        )
        coups.append(TracedCoup(len(coups) + 1, position, coup, remaining, analysis))
    return ShoeTrace(
        rules, rules.cards_per_shoe, cut, standard, burned, start, tuple(coups), shoe.remaining
    )
