"""The shared tables' kind (SPEC §9): one shoe on the server's clock, every player at the
table betting on the same coup."""

from __future__ import annotations

from typing import ClassVar

from baccarat.server.currencies import HOME
from baccarat.server.kinds.shared import check as own_check
from baccarat.server.kinds.shared import terms as own_terms
from baccarat.server.play.kind import KindAudit, TableKind


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
    audit: ClassVar[KindAudit] = own_check
    runtime = "baccarat.server.kinds.shared.runtime:SharedDesk"
    api = "baccarat.server.kinds.shared.api"
    terms = staticmethod(own_terms.read)
