"""Effect of removal: how each bet's house edge moves when one card of a rank leaves the shoe."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import RuleSet
from .composition import MIN_CARDS, full_composition, validate
from .exact import Analysis, analyse

# Ace to nine, then the ten-value cards (T J Q K), which all count zero and act alike.
REMOVAL_ORDER: tuple[tuple[str, int], ...] = (
    *((("A" if v == 1 else str(v)), v) for v in range(1, 10)),
    ("T", 0),
)


@dataclass(frozen=True, slots=True)
class RemovalEffect:
    """The change in each bet's house edge when one card of ``label`` is removed."""

    label: str
    value: int
    # None when no such card is left, or removing one would leave too few to deal.
    change: dict[str, Fraction] | None

    def to_json(self) -> dict[str, float] | None:
        if self.change is None:
            return None
        return {kind: float(delta) for kind, delta in self.change.items()}


def effect_of_removal(
    rules: RuleSet, composition: tuple[int, ...] | None = None
) -> tuple[RemovalEffect, ...]:
    """Each rank's effect of removal on each bet's house edge, exact, for a composition.

    Averaged over the cards of the shoe (weighted by how many of each there are) the effects
    sum to zero: removing a card unseen does not change the odds of what follows.
    """
    base_composition = full_composition(rules.decks) if composition is None else composition
    base = analyse(rules, validate(base_composition))
    return tuple(
        RemovalEffect(label, value, _change(rules, base, value)) for label, value in REMOVAL_ORDER
    )


def _change(rules: RuleSet, base: Analysis, value: int) -> dict[str, Fraction] | None:
    counts = list(base.composition)
    if counts[value] == 0 or sum(counts) - 1 < MIN_CARDS:
        return None
    counts[value] -= 1
    after = analyse(rules, tuple(counts))
    return {kind: after.bets[kind].house_edge - odds.house_edge for kind, odds in base.bets.items()}


def removal_json(effects: tuple[RemovalEffect, ...]) -> dict[str, Any]:
    """The effects keyed by rank label (A..9, T), as ``odds --json`` shows them under "eor"."""
    return {effect.label: effect.to_json() for effect in effects}
