"""The casino: everything the HTTP layer and the admin commands need, built from settings."""

from __future__ import annotations

import logging
from pathlib import Path

from . import keys, seeds, software
from .accounts import HashGate, Passwords
from .db import migrate
from .db.database import Database
from .dealing import FairShoes, ShoeFactory
from .ledger import SystemAccounts
from .operators.config import check_operator_tables, load_operators
from .round import Dealer
from .settings import Settings
from .tables import TableSet, load_tables

log = logging.getLogger("baccarat.server")


class Casino:
    """Settings, the database, the tables (with their RTPs), the password hasher, the dealer.

    Building it reads the tables and computes their exact RTPs; ``start`` migrates the
    database (if asked), starts the database threads and loads the casino's account ids.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.tables: TableSet = load_tables(settings.tables_file, settings.banked)
        self.operators = load_operators(settings.operators_file)
        check_operator_tables(self.operators, self.tables)
        self.passwords = Passwords(settings.passwords)
        self.hashing = HashGate(settings.limits)
        self.shoes: ShoeFactory = settings.shoe_factory or FairShoes()
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
        self._system = self.db.run_read(SystemAccounts.load)
        self.db.run_read(seeds.check_vault)
        self._dealer = Dealer(self.shoes, self._system)
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
