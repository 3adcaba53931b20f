"""A shared table's terms in the tables file: ``shared = { betting_s, result_s }``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from baccarat.core import RuleSet, ShufflePolicy
from baccarat.server.settings import Settings
from baccarat.server.tables import Limits, Table, TableConfigError


@dataclass(frozen=True, slots=True)
class SharedTerms:
    """A shared table's clock (SPEC §9): seconds of the betting window, and of the result
    shown before the next window opens."""

    betting_s: int
    result_s: int

    def to_json(self) -> dict[str, int]:
        return {"betting_s": self.betting_s, "result_s": self.result_s}


def read(
    raw: Any, rules: RuleSet, limits: Limits, where: str, settings: Settings | None
) -> SharedTerms:
    """``shared = { betting_s, result_s }``: a shared table's betting window and result
    time, in whole seconds; its rule set deals a cut shoe (the table's one shoe). Its
    limits and the server's settings do not bear on them."""
    if not isinstance(raw, Mapping) or set(raw) - {"betting_s", "result_s"}:
        raise TableConfigError(f"{where}: shared is {{ betting_s = ..., result_s = ... }}")
    values = {}
    for name, low, high in (("betting_s", 3, 120), ("result_s", 1, 60)):
        value = raw.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise TableConfigError(f"{where}: shared.{name} is a whole number from {low} to {high}")
        values[name] = value
    if rules.shuffle is not ShufflePolicy.CUT_SHOE:
        raise TableConfigError(
            f"{where}: a shared table deals one shoe to everyone; rules {rules.name!r} "
            "shuffle before every round"
        )
    return SharedTerms(**values)


def terms_of(table: Table) -> SharedTerms:
    """A shared table's terms (the table is one: ``SharedKind.of``)."""
    return table.terms_as(SharedTerms)


def is_shared(table: Table) -> bool:
    """Whether the table is shared (its terms are this kind's)."""
    return isinstance(table.terms, SharedTerms)
