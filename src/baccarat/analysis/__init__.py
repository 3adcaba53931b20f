"""Exact odds and simulation of baccarat for any rule set and shoe composition."""

from .composition import CompositionError, full_composition, remove_cards, shoe_composition
from .exact import (
    Analysis,
    BetOdds,
    OutcomeCounts,
    analyse,
    bet_odds,
    count_outcomes,
    count_outcomes_by_enumeration,
)

__all__ = [
    "Analysis",
    "BetOdds",
    "CompositionError",
    "OutcomeCounts",
    "analyse",
    "bet_odds",
    "count_outcomes",
    "count_outcomes_by_enumeration",
    "full_composition",
    "remove_cards",
    "shoe_composition",
]
