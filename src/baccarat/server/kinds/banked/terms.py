"""The terms of player-banked tables (SPEC §7, seed 000 "Spielen als Geber"): arithmetic.

- The casino's fee: 1.5% of the total bets placed against the banker in a round, taken from
  the banker, rounded UP to the cent (in the house's favour, as the minimum balance is):
  $10 -> 0.15 (the help page's example), $5 -> 0.075 -> 0.08, $1 -> 0.015 -> 0.02.
- Loyalty points: one point per whole dollar of a round's total stake (the cents of the
  round's total are dropped: $12.50 -> 12 points); the player earns them, the banker loses
  as many, but never falls below zero points.
- The banker's exposure: the most a round can cost the banker (a bet's winnings plus the
  fee), over every combination of bets the table's limits allow. It is reserved from the
  banker's balance while a round is open, so a banker can never be overdrawn.
- The minimum banker balance: the help page's 9 x max bet + 1.5% x max bet (rounded up to
  the cent), never less than the table's configured minimum nor than the exposure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from baccarat.core import Bets, Outcome, RuleSet, ShufflePolicy, settle_judged
from baccarat.server.settings import BankedSettings, Settings
from baccarat.server.tables import Limits, Table, TableConfigError, money_amount

FEE_RATE = Fraction(3, 200)  # 1.5%
SEED_MULTIPLE = 9  # "9 * (Maximalwette) + 1,5% (Casino Provision) * (Maximalwette)"


def fee_for(stake: int, rate: Fraction = FEE_RATE) -> int:
    """The casino's fee on a round's total stake, in cents, rounded up.

    >>> fee_for(1000), fee_for(500), fee_for(100), fee_for(0)
    (15, 8, 2, 0)
    """
    return math.ceil(stake * rate)


def points_for(stake: int) -> int:
    """Loyalty points for a round's total stake in cents: one per whole dollar.

    >>> points_for(1000), points_for(1250), points_for(99)
    (10, 12, 0)
    """
    return stake // 100


def seed_min_balance(max_bet: int, rate: Fraction = FEE_RATE) -> int:
    """The help page's minimum banker balance: 9 x max bet + fee rate x max bet, rounded up.

    >>> seed_min_balance(5000)  # table II: 450.75
    45075
    """
    return math.ceil(SEED_MULTIPLE * max_bet + rate * max_bet)


def exposure(rules: RuleSet, max_bet: int, tie_max: int, rate: Fraction = FEE_RATE) -> int:
    """The most one round can cost the banker: the player's net win plus the fee.

    For a given outcome every stake moves the banker's loss one way only (more or less), so
    the worst case lies at a corner: each bet either absent or at its maximum; and for each
    bet, the line of its pay table (core's settlement) that pays most under that outcome
    (a Banker win by a three-card 7 pushes at EZ Baccarat, a Banker 6 pays 1:2 without
    commission: the ordinary win pays more).

    >>> from baccarat.core import get_rules
    >>> exposure(get_rules("ez-8deck"), 1000, 100)  # 1,000 on Banker wins 1,000, + 15 fee
    1015
    """
    worst = 0
    for player, banker, tie in product((0, max_bet), (0, max_bet), (0, tie_max)):
        bets = Bets(player=player, banker=banker, tie=tie)
        if not bets.total:
            continue
        for outcome in Outcome:
            choices = [_lines_under(rules, name, outcome) for name, _ in bets.placed()]
            for lines in product(*choices):
                returned = settle_judged(rules, bets, lines).returned
                worst = max(worst, returned - bets.total + fee_for(bets.total, rate))
    return worst


def _lines_under(rules: RuleSet, bet: str, outcome: Outcome) -> tuple[str | None, ...]:
    """The lines a main bet can hit when ``outcome`` wins (None: the bet loses): a tie is
    the "tie" line; any other line of a bet on the winning hand is a win of that hand."""
    table = rules.paytable(bet)
    if outcome is Outcome.TIE:
        lines = [line for line in table.type.lines if line == "tie"]
    elif bet == outcome.value:
        lines = [line for line in table.type.lines if line != "tie"]
    else:
        lines = []
    return (*lines, None)


@dataclass(frozen=True, slots=True)
class BankedTerms:
    """What makes a table player-banked: its seats, the banker's requirements and the
    decision times (the server's settings, ``BankedSettings``)."""

    seats: int
    min_points: int
    min_balance: int  # effective: max(configured, the help page's formula, exposure)
    configured_min_balance: int
    exposure: int
    player_seconds: int
    banker_seconds: int
    fee_rate: Fraction = FEE_RATE

    @classmethod
    def build(
        cls,
        rules: RuleSet,
        max_bet: int,
        tie_max: int,
        *,
        seats: int,
        min_points: int,
        configured_min_balance: int,
        player_seconds: int,
        banker_seconds: int,
        fee_rate: Fraction = FEE_RATE,
    ) -> BankedTerms:
        worst = exposure(rules, max_bet, tie_max, fee_rate)
        minimum = max(configured_min_balance, seed_min_balance(max_bet, fee_rate), worst)
        return cls(
            seats, min_points, minimum, configured_min_balance, worst,
            player_seconds, banker_seconds, fee_rate,
        )  # fmt: skip

    def seconds(self, role: str) -> int:
        """The time the player (bets and deal) or the banker (approval) has to decide."""
        return self.banker_seconds if role == "banker" else self.player_seconds

    def fee(self, stake: int) -> int:
        return fee_for(stake, self.fee_rate)

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "min_points": self.min_points,
            "min_banker_balance": self.min_balance,
            "exposure": self.exposure,
            "fee_rate": float(self.fee_rate),
            "fee_percent": _percent_text(self.fee_rate),
            "player_seconds": self.player_seconds,
            "banker_seconds": self.banker_seconds,
        }


def _percent_text(rate: Fraction) -> str:
    """3/200 -> "1.5" (exact for rates with a finite decimal expansion)."""
    text = f"{float(rate * 100):.6f}".rstrip("0").rstrip(".")
    return text


def terms_of(table: Table) -> BankedTerms:
    """A player-banked table's terms (the table is one: ``BankedKind.of``)."""
    return table.terms_as(BankedTerms)


def is_banked(table: Table) -> bool:
    """Whether the table is player-banked (its terms are this kind's)."""
    return isinstance(table.terms, BankedTerms)


def read(
    raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
) -> BankedTerms:
    """``[table.banked]``: seats, min_points and min_balance of a player-banked table;
    its decision times are the server's (``settings.banked``)."""
    timers = BankedSettings() if settings is None else settings.banked
    if not isinstance(raw, Mapping):
        raise TableConfigError(f"{where}: banked is a table of seats, min_points, min_balance")
    seats, points = raw.get("seats", 4), raw.get("min_points", 0)
    for name, value in (("seats", seats), ("min_points", points)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TableConfigError(f"{where}: banked.{name} is a whole number >= 0")
    if not 1 <= seats <= 1000:
        raise TableConfigError(f"{where}: banked.seats is 1 to 1000")
    if rules.multipliers is not None:
        # A player banks the bets: whose the fee and what the multipliers could cost the
        # banker are not rules a banker could cover (the exposure is unbounded).
        raise TableConfigError(
            f"{where}: a player-banked table does not deal multiplier baccarat (rules "
            f"{rules.name!r}): the multiplied pays have no exposure a banker can cover"
        )
    if rules.shuffle is not ShufflePolicy.FRESH:
        raise TableConfigError(
            f"{where}: a player-banked table shuffles before every round; rules "
            f"{rules.name!r} deal a cut shoe"
        )
    try:
        configured = money_amount(raw.get("min_balance", "0.01"), f"{where} banked.min_balance")
    except ValueError as error:
        raise TableConfigError(f"{where}: banked.min_balance: {error}") from None
    return BankedTerms.build(
        rules, limits.max, limits.tie_max, seats=seats, min_points=points,
        configured_min_balance=configured, player_seconds=timers.player_s,
        banker_seconds=timers.banker_s,
    )  # fmt: skip
