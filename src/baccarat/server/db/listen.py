"""The connection a worker listens on for what the other workers tell it through the
database (PostgreSQL's LISTEN/NOTIFY: ``play/events.py``'s ``PostgresEvents``)."""

from __future__ import annotations

from typing import Any


async def listening_connection(conninfo: str, application_name: str) -> Any:
    """A new asynchronous connection of its own, in autocommit (a notification comes as
    soon as the transaction that sent it commits): ``execute("LISTEN ...")`` on it, then
    ``notifies()`` yields each notification (its ``channel`` and ``payload``)."""
    import psycopg

    return await psycopg.AsyncConnection.connect(
        conninfo, autocommit=True, application_name=application_name
    )
