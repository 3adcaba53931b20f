"""The shared tables' kind (SPEC §9): one shoe on the server's clock, every player at the
table betting on the same coup."""

from __future__ import annotations

from typing import Any

from baccarat.core import RuleSet
from baccarat.server.currencies import HOME
from baccarat.server.kinds.shared import check as own_check
from baccarat.server.kinds.shared import terms
from baccarat.server.play.kind import Given, KindRoutes, Runtime, TableKind
from baccarat.server.settings import Settings
from baccarat.server.tables import Limits


class SharedKind(TableKind):
    """Every bettor of a coup is settled on the same cards, in one pot."""

    name = "shared"
    title = "shared"
    one_currency = f"a shared table plays in {HOME}: one pot for every player"
    own_rounds = (
        "shared_table",
        "table {table} is shared: bet on its coup (PUT /api/tables/{table}/coups/{{coup}}/bets)",
    )

    holds = "the shared coups"
    check = staticmethod(own_check.check)
    held = staticmethod(own_check.held)

    @staticmethod
    def runtime(given: Given) -> Runtime:
        from baccarat.server.kinds.shared.runtime import SharedDesk

        return SharedDesk(given.host, given.bus, given.elsewhere)

    @staticmethod
    def routes() -> KindRoutes:
        from baccarat.server.kinds.shared.api import ROUTES

        return ROUTES

    @classmethod
    def terms(
        cls, raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
    ) -> terms.SharedTerms:
        return terms.read(raw, rules, where)
