"""Rule sets: everything a casino may vary, as frozen, validated data, and named presets."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .money import Rounding
from .shoe import MAX_DECKS


class ShufflePolicy(enum.Enum):
    """When the cards are shuffled."""

    # A new shuffled shoe before every round (seeds 000, 002, 003, 004).
    FRESH = "fresh"
    # A shoe dealt through to a cut card, then reshuffled (seed 001, land casinos).
    CUT_SHOE = "cut-shoe"


class RuleSetError(ValueError):
    """A rule set is invalid or unknown."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One variant of Punto Banco. Pays are "to one": winnings per unit staked."""

    name: str
    decks: int
    shuffle: ShufflePolicy = ShufflePolicy.FRESH
    # Cut-shoe only: the share of the shoe dealt before the cut card.
    penetration: Fraction | None = None
    # Cut-shoe only: burn under the turned first card of every new shoe.
    burn: bool = False
    player_pays: Fraction = Fraction(1)
    banker_pays: Fraction = Fraction(1)
    banker_commission: Fraction = Fraction(1, 20)
    tie_pays: Fraction = Fraction(8)
    rounding: Rounding = Rounding.DOWN
    description: str = ""
    source: str = ""
    aliases: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise RuleSetError("a rule set needs a name")
        if not 1 <= self.decks <= MAX_DECKS:
            raise RuleSetError(f"decks must be 1..{MAX_DECKS}, not {self.decks}")
        if self.shuffle is ShufflePolicy.CUT_SHOE:
            if self.penetration is None or not 0 < self.penetration < 1:
                raise RuleSetError("a cut shoe needs a penetration strictly between 0 and 1")
        elif self.penetration is not None or self.burn:
            raise RuleSetError("penetration and burn apply to cut shoes only")
        for label, pay in (
            ("player_pays", self.player_pays),
            ("banker_pays", self.banker_pays),
            ("tie_pays", self.tie_pays),
        ):
            if pay <= 0:
                raise RuleSetError(f"{label} must be positive, not {pay}")
        if not 0 <= self.banker_commission < 1:
            raise RuleSetError("banker_commission must be in [0, 1)")

    @property
    def cards_per_shoe(self) -> int:
        return 52 * self.decks

    @property
    def cut_card_position(self) -> int | None:
        """Cards dealt before the cut card, or None on fresh-shuffle tables."""
        if self.penetration is None:
            return None
        return int(self.cards_per_shoe * self.penetration)

    @property
    def banker_win_multiplier(self) -> Fraction:
        """Winnings per unit on a winning banker bet: 19/20 with 5% commission."""
        return self.banker_pays * (1 - self.banker_commission)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "decks": self.decks,
            "shuffle": self.shuffle.value,
            "penetration": None if self.penetration is None else str(self.penetration),
            "burn": self.burn,
            "player_pays": str(self.player_pays),
            "banker_pays": str(self.banker_pays),
            "banker_commission": str(self.banker_commission),
            "tie_pays": str(self.tie_pays),
            "rounding": self.rounding.value,
            "description": self.description,
            "source": self.source,
        }


PRESETS: tuple[RuleSet, ...] = (
    RuleSet(
        name="online-6deck-tie9",
        decks=6,
        tie_pays=Fraction(9),
        description="6 decks, fresh shuffle every round, tie 9:1 (tables I-III)",
        source="seed 000",
        aliases=("seed-000",),
    ),
    RuleSet(
        name="mini",
        decks=8,
        shuffle=ShufflePolicy.CUT_SHOE,
        penetration=Fraction(7, 8),
        burn=True,
        description="Mini Baccarat: 8-deck shoe cut by the player, dealt to a cut card, tie 8:1",
        source="seed 001",
        aliases=("mini-baccarat", "seed-001"),
    ),
    RuleSet(
        name="single-deck",
        decks=1,
        description="one 52-card deck, fresh shuffle every round, tie 8:1",
        source="seed 002",
        aliases=("seed-002",),
    ),
    RuleSet(
        name="classic-6deck",
        decks=6,
        description="6 decks, fresh shuffle every round, tie 8:1",
        source="seed 003",
        aliases=("seed-003",),
    ),
    RuleSet(
        name="online-8deck-tie8",
        decks=8,
        description="8 decks, fresh shuffle every round, tie 8:1, tables with tie limits",
        source="seed 004",
        aliases=("seed-004",),
    ),
    RuleSet(
        name="classic-8deck",
        decks=8,
        shuffle=ShufflePolicy.CUT_SHOE,
        penetration=Fraction(7, 8),
        burn=True,
        description="land-casino standard: 8-deck shoe, burn, cut card, tie 8:1",
        source="land-casino standard",
        aliases=("standard", "8deck"),
    ),
)

_BY_NAME: dict[str, RuleSet] = {}
for _preset in PRESETS:
    for _key in (_preset.name, *_preset.aliases):
        _BY_NAME[_key] = _preset


def get_rules(name: str) -> RuleSet:
    """The preset with this name or alias."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        known = ", ".join(p.name for p in PRESETS)
        raise RuleSetError(f"unknown rule set {name!r}: choose one of {known}") from None


def rules_for_decks(decks: int) -> RuleSet:
    """A fresh-shuffle, tie 8:1 rule set with the given number of decks."""
    return RuleSet(name=f"{decks}-deck", decks=decks, description=f"{decks} decks, tie 8:1")
