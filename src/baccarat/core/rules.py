"""Rule sets: everything a casino may vary, as frozen, validated data, and named presets."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from .money import Rounding
from .multiplier import MULTIPLIER_BETS, MultiplierTerms, multiplier_terms
from .paytable import (
    CLASSIC_SIDE_BETS,
    DRAGON7,
    MAIN_BETS,
    PANDA8,
    PUSH,
    SUPER6,
    BetError,
    Pay,
    Paytable,
    paytable,
)
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
    """One variant of Punto Banco. Pays are "to one": winnings per unit staked.

    The main bets' pay tables follow from the pays and the commission; the side bets the
    game offers are pay tables given as data. ``paytables`` holds them all, main bets first.
    """

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
    # No-commission games: a banker win with 6 pays this (before commission) instead.
    banker_pays_with_6: Fraction | None = None
    # EZ Baccarat: a banker win with a three-card 7 pushes.
    banker_pushes_three_card_7: bool = False
    side_bets: tuple[Paytable, ...] = ()
    rounding: Rounding = Rounding.DOWN
    # Multiplier baccarat (``core.multiplier``): the fee and the multiplier cards' terms.
    multipliers: MultiplierTerms | None = None
    description: str = ""
    source: str = ""
    aliases: tuple[str, ...] = field(default=(), compare=False)
    paytables: tuple[Paytable, ...] = field(init=False, repr=False, compare=False)
    _by_bet: dict[str, Paytable] = field(init=False, repr=False, compare=False)

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
        if self.banker_pays_with_6 is not None and self.banker_pays_with_6 <= 0:
            raise RuleSetError("banker_pays_with_6 must be positive")
        side = [t.bet for t in self.side_bets]
        if len(set(side)) != len(side) or set(side) & set(MAIN_BETS):
            raise RuleSetError("side bets must be distinct and not Player, Banker or Tie")
        if self.multipliers is not None:
            other = [bet for bet in side if bet not in MULTIPLIER_BETS]
            if other:
                raise RuleSetError(f"a multiplier game offers no {', '.join(other)}")
            if self.banker_pays_with_6 is not None or self.banker_pushes_three_card_7:
                raise RuleSetError("a multiplier game's banker bet pays one way")
        tables = (*self._main_paytables(), *self.side_bets)
        object.__setattr__(self, "paytables", tables)
        object.__setattr__(self, "_by_bet", {t.bet: t for t in tables})

    def _main_paytables(self) -> tuple[Paytable, ...]:
        commission = 1 - self.banker_commission
        banker_win = self.banker_win_multiplier
        with_6 = banker_win if self.banker_pays_with_6 is None else self.banker_pays_with_6
        three_card_7: Pay = PUSH if self.banker_pushes_three_card_7 else banker_win
        return (
            Paytable("player", (("win", self.player_pays), ("tie", PUSH))),
            Paytable(
                "banker",
                (
                    ("win", banker_win),
                    ("win_with_6", with_6 * commission if self.banker_pays_with_6 else with_6),
                    ("win_three_card_7", three_card_7),
                    ("tie", PUSH),
                ),
            ),
            Paytable("tie", (("tie", self.tie_pays),)),
        )

    @property
    def bets(self) -> tuple[str, ...]:
        """The names of the bets this game offers, main bets first."""
        return tuple(self._by_bet)

    def offers(self, bet: str) -> bool:
        return bet in self._by_bet

    def paytable(self, bet: str) -> Paytable:
        """The pay table of a bet this game offers."""
        table = self._by_bet.get(bet)
        if table is None:
            offered = ", ".join(self._by_bet)
            raise BetError(f"{self.name} does not offer {bet!r}: it offers {offered}")
        return table

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
            "bets": {t.bet: t.to_json() for t in self.paytables},
            "rounding": self.rounding.value,
            "description": self.description,
            "source": self.source,
        } | ({} if self.multipliers is None else {"multipliers": self.multipliers.to_json()})


# One deck holds no two identical cards: no perfect pair there.
SINGLE_DECK_SIDE_BETS = tuple(t for t in CLASSIC_SIDE_BETS if t.bet != "perfect_pair")

# Multiplier baccarat's published terms: the fee, then how many multiplier cards a coup gets
# and each one's multiplier (docs/multiplier.md derives each bet's exact RTP from them).
MULTIPLIER_TERMS = multiplier_terms(
    Fraction(1, 5),
    counts={
        1: Fraction(1, 10),
        2: Fraction(1, 5),
        3: Fraction(2, 5),
        4: Fraction(1, 5),
        5: Fraction(1, 10),
    },
    values={
        2: Fraction(1, 4),
        3: Fraction(1, 4),
        4: Fraction(3, 10),
        5: Fraction(1, 10),
        8: Fraction(1, 10),
    },
)
# Multiplier baccarat's pairs pay 9:1 (times the pair's multiplier).
MULTIPLIER_SIDE_BETS = (paytable("player_pair", pair=9), paytable("banker_pair", pair=9))
_MULTIPLIER_GAME = (
    "Multiplier baccarat: 8 decks; a fee of 1/5 of each stake; before each coup 1 to 5 "
    "multiplier cards (2x-8x) multiply the pay of a winning hand that holds them; tie 5:1, "
    "pairs 9:1"
)

MULTIPLIER = RuleSet(
    name="multiplier",
    decks=8,
    tie_pays=Fraction(5),
    side_bets=MULTIPLIER_SIDE_BETS,
    multipliers=MULTIPLIER_TERMS,
    description=f"{_MULTIPLIER_GAME}; fresh shuffle every round",
    source="commercial variant (multiplier baccarat)",
    aliases=("lightning",),
)


def _in_a_shoe(rules: RuleSet, **changes: Any) -> RuleSet:
    """The rules dealt from a land casino's shoe: burn, and a cut card at 7/8 of it."""
    return replace(
        rules, shuffle=ShufflePolicy.CUT_SHOE, penetration=Fraction(7, 8), burn=True, **changes
    )


PRESETS: tuple[RuleSet, ...] = (
    RuleSet(
        name="online-6deck-tie9",
        decks=6,
        tie_pays=Fraction(9),
        description="6 decks, fresh shuffle every round, tie 9:1 (tables I-III)",
        source="seed 000",
        side_bets=CLASSIC_SIDE_BETS,
        aliases=("seed-000",),
    ),
    _in_a_shoe(
        RuleSet(
            name="mini",
            decks=8,
            description="Mini Baccarat: 8-deck shoe cut by the player, dealt to a cut card, "
            "tie 8:1",
            source="seed 001",
            side_bets=CLASSIC_SIDE_BETS,
            aliases=("mini-baccarat", "seed-001"),
        )
    ),
    RuleSet(
        name="single-deck",
        decks=1,
        description="one 52-card deck, fresh shuffle every round, tie 8:1",
        source="seed 002",
        side_bets=SINGLE_DECK_SIDE_BETS,
        aliases=("seed-002",),
    ),
    RuleSet(
        name="classic-6deck",
        decks=6,
        description="6 decks, fresh shuffle every round, tie 8:1",
        source="seed 003",
        side_bets=CLASSIC_SIDE_BETS,
        aliases=("seed-003",),
    ),
    RuleSet(
        name="online-8deck-tie8",
        decks=8,
        description="8 decks, fresh shuffle every round, tie 8:1, tables with tie limits",
        source="seed 004",
        side_bets=CLASSIC_SIDE_BETS,
        aliases=("seed-004",),
    ),
    _in_a_shoe(
        RuleSet(
            name="classic-8deck",
            decks=8,
            description="land-casino standard: 8-deck shoe, burn, cut card, tie 8:1",
            source="land-casino standard",
            aliases=("standard", "8deck"),
            side_bets=CLASSIC_SIDE_BETS,
        )
    ),
    RuleSet(
        name="ez-8deck",
        decks=8,
        banker_commission=Fraction(0),
        banker_pushes_three_card_7=True,
        side_bets=(DRAGON7, PANDA8),
        description="EZ Baccarat: 8 decks, fresh shuffle, no commission; a banker win with a "
        "three-card 7 pushes; Dragon 7 and Panda 8",
        source="commercial variant (EZ Baccarat)",
        aliases=("ez",),
    ),
    RuleSet(
        name="no-commission-8deck",
        decks=8,
        banker_commission=Fraction(0),
        banker_pays_with_6=Fraction(1, 2),
        side_bets=(SUPER6,),
        description="no-commission: 8 decks, fresh shuffle; a banker win with 6 pays 1:2; Super 6",
        source="commercial variant (no-commission, Super 6)",
        aliases=("no-commission", "super6"),
    ),
    MULTIPLIER,
    _in_a_shoe(
        MULTIPLIER,
        name="multiplier-shoe",
        description=f"{_MULTIPLIER_GAME}; an 8-deck shoe dealt to a cut card, burn (shared tables)",
        aliases=(),
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
    return RuleSet(
        name=f"{decks}-deck",
        decks=decks,
        description=f"{decks} deck{'' if decks == 1 else 's'}, tie 8:1",
        side_bets=SINGLE_DECK_SIDE_BETS if decks == 1 else CLASSIC_SIDE_BETS,
    )
