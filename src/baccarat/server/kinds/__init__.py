"""The table kinds, in one registry (``KINDS``): house, shared and player-banked tables.

Each kind is a package of its own (``kinds.house``, ``kinds.shared``, ``kinds.banked``) that
imports the round engine (``server.play``) and never another kind nor a wallet; its class
(``play.kind.TableKind``) is listed here once. A new kind is one new package and one line
below (docs/architecture.md, "Add a table kind").
"""

from __future__ import annotations

from pathlib import Path

from baccarat.server.kinds.banked.kind import BankedKind
from baccarat.server.kinds.house.kind import HouseKind
from baccarat.server.kinds.shared.kind import SharedKind
from baccarat.server.play.kind import TableKind
from baccarat.server.settings import Settings
from baccarat.server.tables import TableSet, read_tables

KINDS: dict[str, type[TableKind]] = {kind.name: kind for kind in (
    HouseKind,
    SharedKind,
    BankedKind,
)}  # fmt: skip


def find_kind(name: str) -> type[TableKind]:
    """The kind of this name (``Table.kind``)."""
    return KINDS[name]


def load_tables(path: Path | None = None, settings: Settings | None = None) -> TableSet:
    """The tables of a TOML file (default: the package's own), each read by its kind."""
    return read_tables(path, KINDS, settings)
