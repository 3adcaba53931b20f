"""A shared table's append-only, hash-chained log (``shared_log``; ``fairness.beacon``).

Three kinds of entry, each about one shoe, appended by the transaction that does what it
says (under the table's row lock, so a table's entries follow each other one by one):
``commit`` (the shoe's commitment, its client seed's base and, with a beacon, the round it
will take, named before that round is published), ``beacon`` (the round's signature and
randomness, and the client seed they make) and ``reveal`` (the seed, when the shoe ended
or was cancelled). Nothing updates or deletes an entry; each names the hash of the one
before it, so a rewritten entry breaks the chain from there on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from baccarat.fairness.beacon import GENESIS, chain_entry
from baccarat.server.db.uow import UnitOfWork

PAGE = 500  # entries per read of ``GET /api/tables/{id}/log``


def append(uow: UnitOfWork, table_id: str, shoe_id: int, fields: Mapping[str, Any]) -> None:
    last = uow.one(
        "SELECT seq, hash FROM shared_log WHERE table_id = :t ORDER BY seq DESC LIMIT 1",
        {"t": table_id},
    )
    seq = 1 if last is None else int(last[0]) + 1
    entry = chain_entry(
        {"seq": seq, "table": table_id, "time_us": uow.now, **fields},
        GENESIS if last is None else str(last[1]),
    )
    uow.run(
        "INSERT INTO shared_log (table_id, seq, shoe_id, created_us, entry, hash) "
        "VALUES (:t, :seq, :s, :now, :e, :h)",
        {"t": table_id, "seq": seq, "s": shoe_id, "now": uow.now,
         "e": json.dumps(entry, separators=(",", ":")), "h": entry["hash"]},
    )  # fmt: skip


def of_shoe(uow: UnitOfWork, shoe_id: int) -> list[dict[str, Any]]:
    """The shoe's entries, in order."""
    rows = uow.all("SELECT entry FROM shared_log WHERE shoe_id = :s ORDER BY seq", {"s": shoe_id})
    return [json.loads(text) for (text,) in rows]


def page(uow: UnitOfWork, table_id: str, after: int) -> list[dict[str, Any]]:
    """The table's entries after ``seq`` ``after``, at most ``PAGE`` of them."""
    rows = uow.all(
        "SELECT entry FROM shared_log WHERE table_id = :t AND seq > :after ORDER BY seq LIMIT :n",
        {"t": table_id, "after": after, "n": PAGE},
    )
    return [json.loads(text) for (text,) in rows]


def head(uow: UnitOfWork, table_id: str) -> dict[str, Any] | None:
    """The table's last entry's ``{"seq", "hash"}`` (anyone may keep it: a later rewrite
    of the log up to it would not match)."""
    row = uow.one(
        "SELECT seq, hash FROM shared_log WHERE table_id = :t ORDER BY seq DESC LIMIT 1",
        {"t": table_id},
    )
    return None if row is None else {"seq": int(row[0]), "hash": str(row[1])}
