"""Exact odds and simulation of baccarat for any rule set and shoe composition.

The simulator lives in ``baccarat.analysis.simulate`` (it loads numba, so it is imported
only where it is used).
"""

from .composition import (
    CompositionError,
    faces_of,
    full_composition,
    full_faces,
    remove_cards,
    shoe_composition,
    shoe_faces,
)
from .eor import RemovalEffect, effect_of_removal
from .exact import (
    Analysis,
    BetOdds,
    OutcomeCounts,
    analyse,
    bet_odds,
    count_outcomes,
    count_outcomes_by_enumeration,
)
from .trace import ShoeTrace, TracedCoup, trace_shoe

__all__ = [
    "Analysis",
    "BetOdds",
    "CompositionError",
    "OutcomeCounts",
    "RemovalEffect",
    "ShoeTrace",
    "TracedCoup",
    "analyse",
    "bet_odds",
    "count_outcomes",
    "count_outcomes_by_enumeration",
    "effect_of_removal",
    "faces_of",
    "full_composition",
    "full_faces",
    "remove_cards",
    "shoe_composition",
    "shoe_faces",
    "trace_shoe",
]
