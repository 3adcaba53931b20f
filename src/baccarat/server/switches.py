"""Each table's switch and limits as the back office sets them (``table_switches``): a
table switched off starts no new round (``table_disabled``; a round is one transaction, so
none is left half played), and changed limits apply from the next round. A table without a
row plays as the tables file says. Read once per round (one lookup by primary key), or
kept by SQLite's writer between its transactions (``UnitOfWork.memo``)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from baccarat.server.currencies import HOME
from baccarat.server.db.lookup import Lookup
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.tables import Limits, Table

_LIMITED: dict[tuple[int, str], tuple[Table, Table]] = {}


def _kept(uow: UnitOfWork, table_id: str) -> bool:
    key = ("table_switch", table_id)
    memo = uow.memo
    return key in uow.known or (memo is not None and key in memo)


# A table's switch, by its id, as a round reads it (``now``, ``in_play``): a round asks for
# it ahead (``Lookup.ahead``) unless this transaction or the writer keeps it.
SWITCH: Lookup[str] = Lookup(
    "SELECT enabled, limits FROM table_switches WHERE table_id = :t", "t", kept=_kept
)


def in_play(uow: UnitOfWork, table: Table) -> Table:
    """The table as its next round plays it (refused while it is switched off)."""
    played, open_ = now(uow, table)
    if not open_:
        raise ServiceError("table_disabled", f"table {table.id} is closed: no new rounds start",
                           table=table.id)  # fmt: skip
    return played


def now(uow: UnitOfWork, table: Table) -> tuple[Table, bool]:
    """The table as its next round would play it (its limits now), and whether it is open:
    its switch read once per transaction (``UnitOfWork.known``), or kept by SQLite's
    writer between transactions (``UnitOfWork.memo``)."""
    key = ("table_switch", table.id)
    if key in uow.known:
        return _applied(table, uow.known[key])
    memo = uow.memo
    if memo is not None and key in memo:
        row = memo[key]
    else:
        row = SWITCH.one(uow, table.id)
        if memo is not None:
            memo[key] = row
    uow.known[key] = row
    return _applied(table, row)


def lobby(uow: UnitOfWork, tables: Iterable[Table]) -> list[dict[str, Any]]:
    """The tables as the lobby shows them: each as its next round would play it (its limits
    now) and whether it is open (``open``), in one read (a row per table at most: its cost
    is the tables file's, not the database's)."""
    rows = _rows(uow)
    answer = []
    for table in tables:
        played, open_ = _applied(table, rows.get(table.id))
        answer.append(played.to_json() | {"open": open_})
    return answer


def _rows(uow: UnitOfWork) -> dict[str, tuple[int, str | None]]:
    return {str(t): (int(e), lim) for t, e, lim in
            uow.all("SELECT table_id, enabled, limits FROM table_switches")}  # fmt: skip


def _applied(table: Table, row: tuple[Any, ...] | None) -> tuple[Table, bool]:
    if row is None:
        return table, True
    enabled, text = row[0], row[1]
    # Changed limits are in HOME's cents: the table in another currency keeps its own.
    if text is None or table.currency != HOME:
        return table, bool(enabled)
    return limited(table, str(text)), bool(enabled)


def limited(table: Table, text: str) -> Table:
    """The table with these limits (JSON), kept so that its remembered answers stay."""
    key = (id(table), text)
    entry = _LIMITED.get(key)
    if entry is None or entry[0] is not table:
        if len(_LIMITED) > 256:
            _LIMITED.clear()
        entry = _LIMITED[key] = (table, replace(table, limits=Limits(**json.loads(text))))
    return entry[1]


def check_limits(table: Table, values: dict[str, Any]) -> Limits:
    """New main limits for a table: whole cents its chips can make, min <= max, the tie
    minimums at most its maximum."""
    names = ("min", "max", "tie_min", "tie_min_alone", "tie_max")
    merged = table.limits.to_json() | values
    if set(merged) != set(names) or not all(
        type(merged[n]) is int and 0 < merged[n] <= 10**12 for n in names
    ):
        raise ServiceError("invalid_limit", f"limits are {', '.join(names)}: positive cents")
    limits = Limits(**{n: merged[n] for n in names})
    if limits.min > limits.max or max(limits.tie_min, limits.tie_min_alone) > limits.tie_max:
        raise ServiceError("invalid_limit", "min <= max, and the tie minimums <= tie_max")
    if any(merged[n] % table.unit for n in names):
        raise ServiceError("invalid_limit", f"limits are multiples of {table.unit} cents")
    return limits


def state(uow: UnitOfWork, tables: dict[str, Table] | Any) -> list[dict[str, Any]]:
    """Every table: open or closed, its limits now (and whether changed from the file's)."""
    rows = _rows(uow)
    answer = []
    for table in tables.values():
        enabled, text = rows.get(table.id, (1, None))
        limits = table.limits.to_json() if text is None else json.loads(text)
        answer.append({
            "id": table.id, "name": table.name, "rules": table.rules.name,
            "enabled": bool(enabled), "limits": limits, "changed": text is not None,
            "banked": table.kind == "banked", "kind": table.kind,
        })  # fmt: skip
    return answer


def switch(uow: UnitOfWork, table: Table, enabled: bool) -> bool:
    """Switch a table on or off; whether that changed anything."""
    uow.forget()
    uow.known.pop(("table_switch", table.id), None)
    # Locked: of two switches at once, the second reads what the first wrote, so whether it
    # changed anything (what the audit log records) is true.
    row = uow.one(
        "SELECT enabled FROM table_switches WHERE table_id = :t" + uow.for_update,
        {"t": table.id},
    )
    if row is None:
        uow.run(
            "INSERT INTO table_switches (table_id, enabled, limits, updated_us) "
            "VALUES (:t, :e, NULL, :now)",
            {"t": table.id, "e": int(enabled), "now": uow.now},
        )
        return not enabled
    uow.run("UPDATE table_switches SET enabled = :e, updated_us = :now WHERE table_id = :t",
            {"t": table.id, "e": int(enabled), "now": uow.now})  # fmt: skip
    return bool(row[0]) != enabled


def set_limits(uow: UnitOfWork, table: Table, limits: Limits | None) -> None:
    """Change a table's limits from its next round (None: back to the tables file's)."""
    uow.forget()
    uow.known.pop(("table_switch", table.id), None)
    text = None if limits is None else json.dumps(limits.to_json(), sort_keys=True)
    if uow.run("UPDATE table_switches SET limits = :l, updated_us = :now WHERE table_id = :t",
               {"t": table.id, "l": text, "now": uow.now}) == 0:  # fmt: skip
        uow.run("INSERT INTO table_switches (table_id, enabled, limits, updated_us) "
                "VALUES (:t, 1, :l, :now)", {"t": table.id, "l": text, "now": uow.now})  # fmt: skip
