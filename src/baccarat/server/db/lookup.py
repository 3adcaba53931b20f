"""Reads a repository makes by a key, each said once: its statement, the names of its
parameters, and when the unit of work needs no read because it keeps the answer.

The services that know such a read is coming (a round reads a table's switch, the
player's exclusion, the nonce, the balance...) ask for it ``ahead``: where the database
pipelines (``UnitOfWork.pipelines``) its statement goes to the server with the unit's next
round trip (``UnitOfWork.prefetch``), and the repository's own read (``one``, ``scalar``,
``all``) takes that answer instead of a round trip of its own; elsewhere ``ahead`` does
nothing and the read is made when it is needed. So a round's reads cost one round trip on
PostgreSQL, and no service but the repository knows the SQL or asks which database it is
on::

    SWITCH = Lookup("SELECT enabled, limits FROM table_switches WHERE table_id = :t", "t")
    SWITCH.ahead(uow, table.id)     # a round is coming (the service)
    row = SWITCH.one(uow, table.id)  # the switch is read (the repository)

A key is the value of the one parameter, or the tuple of them in the order named; or
anything ``params`` makes the parameters of.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from baccarat.server.db.uow import Row, UnitOfWork

K = TypeVar("K")


class Lookup(Generic[K]):
    """A read by key (the module doc). ``kept(uow, key)``: the unit needs no read of this
    key (it keeps the answer: ``UnitOfWork.known``, the writer's memo): nothing is sent
    ahead. ``lock``: the rows read are locked until the commit (``UnitOfWork.for_update``)."""

    __slots__ = ("_kept", "_lock", "_names", "_params_of", "sql")

    def __init__(
        self, sql: str, *names: str, params: Callable[[K], dict[str, Any]] | None = None,
        kept: Callable[[UnitOfWork, K], bool] | None = None, lock: bool = False,
    ) -> None:  # fmt: skip
        if names and params is not None:
            raise TypeError("a lookup's parameters are named or made by params, not both")
        self.sql = sql
        self._names = names
        self._params_of = params
        self._kept = kept
        self._lock = lock

    def ahead(self, uow: UnitOfWork, key: K) -> None:
        """This key's read is coming: where the database pipelines, it is sent with the
        unit's next round trip (once however often asked for), unless the unit keeps it."""
        if uow.pipelines and (self._kept is None or not self._kept(uow, key)):
            uow.prefetch(self._statement(uow), self._params(key))

    def sent(self, uow: UnitOfWork, key: K) -> bool:
        """Whether ``ahead`` sent this key's read and its answer is not taken yet."""
        return uow.prefetched(self._statement(uow), self._params(key))

    def one(self, uow: UnitOfWork, key: K) -> Row | None:
        return uow.one(self._statement(uow), self._params(key))

    def scalar(self, uow: UnitOfWork, key: K) -> Any:
        return uow.scalar(self._statement(uow), self._params(key))

    def all(self, uow: UnitOfWork, key: K) -> list[Row]:
        return uow.all(self._statement(uow), self._params(key))

    def _statement(self, uow: UnitOfWork) -> str:
        return self.sql + uow.for_update if self._lock else self.sql

    def _params(self, key: K) -> dict[str, Any]:
        if self._params_of is not None:
            return self._params_of(key)
        names = self._names
        if len(names) == 1:
            return {names[0]: key}
        values: tuple[Any, ...] = key  # type: ignore[assignment]
        return dict(zip(names, values, strict=True))

    def __repr__(self) -> str:
        return f"Lookup({self.sql!r}, {', '.join(map(repr, self._names))})"
