"""The house tables' kind: the default, a table with no section of another kind."""

from __future__ import annotations

from baccarat.server.play.kind import TableKind


class HouseKind(TableKind):
    """The casino covers every bet; each player deals their own rounds."""

    name = "house"
    title = "house"
