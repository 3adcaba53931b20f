"""What a table kind is (python-chess's variants: one class per kind, in one registry,
``kinds.KINDS``): its name (``Table.kind``, and its section of the tables file), what its
tables take, and its own terms read from that section.

A kind's package holds the rest of what it is made of (its bank and shoe for the round
function, its actions, its runtime, its check); the registry lists them for ``create_app``
and ``baccarat admin check`` to loop over.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from baccarat.core import RuleSet
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.play.check import Report
from baccarat.server.play.events import SeatEvents
from baccarat.server.play.host import Host
from baccarat.server.settings import Settings
from baccarat.server.tables import Limits, Table, Terms


@dataclass(frozen=True)
class KindRoutes:
    """A kind's own routes: its routers (FastAPI's, in the kind's ``api`` package: the
    engine imports no web framework) and the kinds of session each admits (``"METHOD
    /path"`` -> ``api.access``'s kinds); and its own answers to the table routes every
    kind's tables share (``api.tables``: ``"state"``, ``"roads"`` -> ``async (ctx, table,
    mode) -> Response``), for its tables in place of a house table's."""

    routers: tuple[Any, ...]
    session_kinds: Mapping[str, frozenset[str]]
    table_reads: Mapping[str, Callable[..., Awaitable[Any]]] = field(default_factory=dict)


class KindAudit(Protocol):
    """A kind's own part of ``baccarat admin check``: its rounds checked (the ledger's are
    checked for every round), and what it holds in the escrow now, by mode (the escrow's
    balance is the sum of every kind's)."""

    def check(self, uow: UnitOfWork, report: Report) -> None: ...

    def held(self, uow: UnitOfWork) -> dict[str, int]: ...


class Runtime(Protocol):
    """What a kind runs in each worker while the app serves (a clock, deadlines): made of
    what the engine hands it, started once the casino is, stopped before it closes."""

    def __init__(self, given: Given) -> None: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True)
class Given:
    """What the engine hands a kind's runtime: the casino (``host``), the worker's event bus
    and id, and what makes the bettors on other wallets than ours once the casino has
    started (``elsewhere``: an operator's wallet's, for the kinds whose rounds may be on it;
    None where there are none)."""

    host: Host
    bus: SeatEvents
    worker: str
    elsewhere: Callable[[], Any] | None = None


class TableKind:
    """A kind of table. ``name`` is ``Table.kind`` and the name of its section in the tables
    file (``shared = { ... }``); a table without one is a house table. ``side_bets``: its
    tables may take side bets; ``one_currency``: why its tables play in HOME only (None: they
    may have limits in other currencies)."""

    name: ClassVar[str]
    title: ClassVar[str]
    side_bets: ClassVar[bool] = True
    one_currency: ClassVar[str | None] = None
    # Whether its rounds may be played on an operator's wallet (not where the casino holds a
    # player's money in escrow for another player).
    any_wallet: ClassVar[bool] = True
    # How its tables are played if not by a player's own rounds (POST .../rounds): the
    # refusal's code and message ({table}: the table's id). None: the house tables.
    own_rounds: ClassVar[tuple[str, str] | None] = None
    # Whether its tables may be played beside others on one screen (POST /api/tables-at-once,
    # each in a frame of the table page); refused with ``own_rounds``' code where not.
    several_at_once: ClassVar[bool] = True
    # What it holds in the escrow, as ``baccarat admin check`` says it ("the seats").
    holds: ClassVar[str] = "nothing"
    # Who covers its tables' bets: "house" (the casino, whose revenue is what they lose) or
    # "player" (a player; the casino's revenue is its fee), as the reports split them.
    banker: ClassVar[str] = "house"
    # Its own part of ``baccarat admin check`` (its module ``check``); None: it has none.
    audit: ClassVar[KindAudit | None] = None
    # Its runtime in each worker (``app.state.<name>``, ``make_runtime``): ``"module:Class"``,
    # the class made of what the engine hands it; imported when the app is built, not with
    # the kind (the CLI and the admin check do without it).
    runtime: ClassVar[str | None] = None
    # The module of its own routes (``routes``): imported when the app is built, not with the
    # kind, for the engine and the CLI import no web framework.
    api: ClassVar[str | None] = None

    @staticmethod
    def terms(
        raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
    ) -> Terms | None:
        """The kind's terms from its section of the tables file, or a ``TableConfigError``;
        None: the kind has no section of its own."""
        return None

    @classmethod
    def make_runtime(cls, given: Given) -> Runtime | None:
        """Its runtime in this worker, if it has one."""
        if cls.runtime is None:
            return None
        module, _, name = cls.runtime.partition(":")
        made: Runtime = getattr(importlib.import_module(module), name)(given)
        return made

    @classmethod
    def routes(cls) -> KindRoutes | None:
        """Its own routes (``ROUTES`` of its ``api`` module, imported when the app is built),
        if it has any."""
        if cls.api is None:
            return None
        routes: KindRoutes = importlib.import_module(cls.api).ROUTES
        return routes

    @classmethod
    def refuse_house_round(cls, table: Table) -> None:
        """Refuse a player's own round at a table of this kind, if it is not played so."""
        if cls.own_rounds is not None:
            code, message = cls.own_rounds
            raise ServiceError(code, message.format(table=table.id), table=table.id)

    @classmethod
    def of(cls, table: Table) -> bool:
        """Whether the table is of this kind."""
        return table.kind == cls.name
