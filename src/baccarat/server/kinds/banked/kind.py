"""The player-banked tables' kind (SPEC §7): one player banks against another at each
seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baccarat.core import RuleSet, ShufflePolicy
from baccarat.server.currencies import HOME
from baccarat.server.kinds.banked import check as own_check
from baccarat.server.kinds.banked.terms import BankedTerms
from baccarat.server.play.kind import Given, KindRoutes, Runtime, TableKind
from baccarat.server.settings import BankedSettings, Settings
from baccarat.server.tables import Limits, TableConfigError, money_amount


class BankedKind(TableKind):
    """A player covers the bets of the player opposite; the casino takes a fee."""

    name = "banked"
    title = "player-banked"
    side_bets = False
    one_currency = f"a player-banked table plays in {HOME}, on the casino's own wallet"
    any_wallet = False
    own_rounds = (
        "player_banked_table",
        "table {table} is player-banked: take a seat (POST /api/seats)",
    )

    holds = "the seats"
    banker = "player"
    check = staticmethod(own_check.check)
    held = staticmethod(own_check.held)

    @staticmethod
    def runtime(given: Given) -> Runtime:
        from baccarat.server.kinds.banked.runtime import BankedDesk

        return BankedDesk(given.host, given.bus, given.worker)

    @staticmethod
    def routes() -> KindRoutes:
        from baccarat.server.kinds.banked.api import ROUTES

        return ROUTES

    @classmethod
    def terms(
        cls, raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
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
