"""What the runtimes of the table kinds and the wallets run on (``Host``): the casino's
settings, database, tables and dealer. ``casino.Casino`` is one; the kinds and the wallets
never import it (the casino lists them), they are handed it."""

from __future__ import annotations

from typing import Protocol

from baccarat.server.db.database import Database
from baccarat.server.dealing import ShoeFactory
from baccarat.server.ledger import SystemAccounts
from baccarat.server.play.round import Dealer
from baccarat.server.settings import Settings
from baccarat.server.tables import TableSet


class Host(Protocol):
    """The casino as a runtime sees it (once started: its dealer and system accounts)."""

    settings: Settings
    tables: TableSet
    shoes: ShoeFactory
    db: Database

    @property
    def system(self) -> SystemAccounts: ...

    @property
    def dealer(self) -> Dealer: ...
