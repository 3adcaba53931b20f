"""Effect of removal: how each bet's house edge moves when one card of a rank leaves the shoe."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import RuleSet
from ..core.cards import RANK_SYMBOLS
from .composition import MIN_CARDS, face_card, full_faces, validate_faces
from .exact import analyse

# Ace to king: ten, jack, queen and king all count zero, but only their own rank makes a pair.
REMOVAL_ORDER: tuple[str, ...] = tuple(RANK_SYMBOLS)


@dataclass(frozen=True, slots=True)
class RemovalEffect:
    """The change in each bet's house edge when one card of rank ``label`` is removed."""

    label: str
    value: int
    # None when no such card is left, or removing one would leave too few to deal.
    change: dict[str, Fraction] | None

    def to_json(self) -> dict[str, float] | None:
        if self.change is None:
            return None
        return {kind: float(delta) for kind, delta in self.change.items()}


def effect_of_removal(
    rules: RuleSet, faces: tuple[int, ...] | None = None
) -> tuple[RemovalEffect, ...]:
    """Each rank's effect of removal on each bet's house edge, exact, for a face composition.

    The card removed is any one of the rank's cards left, each as likely (the suits matter to
    the perfect pair only). Weighted by how many cards of each rank the shoe holds, the
    effects sum to zero: removing a card unseen does not change the odds of what follows.
    """
    faces = validate_faces(full_faces(rules.decks) if faces is None else faces)
    base = analyse(rules, faces).bets
    return tuple(
        RemovalEffect(label, face_card(4 * rank).value, _change(rules, faces, base, rank))
        for rank, label in enumerate(REMOVAL_ORDER)
    )


def _change(
    rules: RuleSet, faces: tuple[int, ...], base: dict[str, Any], rank: int
) -> dict[str, Fraction] | None:
    held = {index: faces[index] for index in range(4 * rank, 4 * rank + 4) if faces[index]}
    if not held or sum(faces) - 1 < MIN_CARDS:
        return None
    total = sum(held.values())
    change = dict.fromkeys(base, Fraction(0))
    for index, n in held.items():
        after = analyse(rules, (*faces[:index], n - 1, *faces[index + 1 :])).bets
        for kind, odds in base.items():
            change[kind] += Fraction(n, total) * (after[kind].house_edge - odds.house_edge)
    return change


def removal_json(effects: tuple[RemovalEffect, ...]) -> dict[str, Any]:
    """The effects keyed by rank (A..9, T, J, Q, K), as ``odds --json`` shows them."""
    return {effect.label: effect.to_json() for effect in effects}
