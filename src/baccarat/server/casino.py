"""The casino: everything the HTTP layer and the admin commands need, built from settings."""

from __future__ import annotations

import logging
from pathlib import Path

from baccarat.server import keys, profiles, seeds, software
from baccarat.server.accounts import HashGate, Passwords
from baccarat.server.db import migrate
from baccarat.server.db.database import Database
from baccarat.server.dealing import FairShoes, LightningSource, ShoeFactory, fair_lightning
from baccarat.server.kinds import load_tables
from baccarat.server.ledger import SystemAccounts, open_currencies
from baccarat.server.play.round import Dealer
from baccarat.server.settings import Settings
from baccarat.server.tables import TableSet
from baccarat.server.wallets.ledger import LedgerWallet
from baccarat.server.wallets.operator.config import (
    check_operator_markets,
    check_operator_tables,
    load_operators,
)

log = logging.getLogger("baccarat.server")


class Casino:
    """Settings, the database, the tables (with their RTPs), the password hasher, the dealer.

    Building it reads the tables and computes their exact RTPs; ``start`` migrates the
    database (if asked), starts the database threads and loads the casino's account ids.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.tables: TableSet = load_tables(settings.tables_file, settings)
        self.operators = load_operators(settings.operators_file)
        check_operator_tables(self.operators, self.tables)
        # The jurisdiction profiles, and the deployment's (docs/jurisdictions.md).
        self.profiles = profiles.load(settings.profiles_file, settings.profile)
        check_operator_markets(self.operators, self.profiles)
        self.passwords = Passwords(settings.passwords)
        self.hashing = HashGate(settings.limits)
        self.shoes: ShoeFactory = settings.shoe_factory or FairShoes()
        self.lightning: LightningSource = settings.lightning_source or fair_lightning
        # Signs the export's lines and the commitments shown (docs/fairness.md, "Keys").
        self.signer = keys.signer(settings)
        # Seals the server seeds at rest (docs/fairness.md, "Keys").
        self.vault = keys.seed_vault(settings)
        self.db = Database(
            settings.database,
            clock=settings.clock,
            threads=settings.db_threads,
            max_batch=settings.max_batch,
            vault=self.vault,
        )
        self._system: SystemAccounts | None = None
        self._dealer: Dealer | None = None
        # The installed files checked at start (``start``): what the back office shows.
        self.software: software.Verification | None = None

    @property
    def system(self) -> SystemAccounts:
        if self._system is None:
            raise RuntimeError("the casino is not started")
        return self._system

    @property
    def dealer(self) -> Dealer:
        if self._dealer is None:
            raise RuntimeError("the casino is not started")
        return self._dealer

    def start(self) -> None:
        if self.settings.migrate_on_start:
            migrate.upgrade(self.settings.database, vault=self.vault)
        # The casino's own accounts in each currency a table has limits in (a player's
        # accounts may be in any of them).
        offered = {c for t in self.tables.values() for c in t.offered_currencies}
        self.db.run_write(lambda uow: open_currencies(uow, offered))
        self._system = self.db.run_read(SystemAccounts.load)
        self.db.run_read(seeds.check_vault)
        self._dealer = Dealer(self.shoes, LedgerWallet(self._system), lightning=self.lightning)
        # The installed files against the release's manifest: a significant event.
        self.software = checked = software.verify()
        self.db.run_write(lambda uow: software.record(uow, checked))
        if checked.status == "changed":
            log.warning("software verification: %s %s", checked.status, checked.software_id)
        self.db.start()
        log.info("casino open on %s with %d tables", self.settings.database, len(self.tables))

    def close(self) -> None:
        self.db.close()

    def web_dir(self) -> Path | None:
        """The browser files: the settings' folder, else the package's ``baccarat/web``."""
        if self.settings.web_dir is not None:
            return self.settings.web_dir if self.settings.web_dir.is_dir() else None
        folder = Path(__file__).resolve().parent.parent / "web"
        return folder if folder.is_dir() else None
