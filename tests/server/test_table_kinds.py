"""The tables file read through the kinds' registry: each kind reads its own section, a
table is of one kind, and the house kind has no section."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from baccarat.server.kinds import KINDS, load_tables
from baccarat.server.kinds.banked.terms import BankedTerms
from baccarat.server.kinds.shared.terms import SharedTerms
from baccarat.server.tables import TableConfigError

from .support import one_table


def test_each_kind_reads_its_own_section(tmp_path: Path) -> None:
    shared = load_tables(one_table(tmp_path, "shared = { betting_s = 5, result_s = 2 }\n", "mini"))
    table = shared["t"]
    assert table.kind == "shared" and table.terms == SharedTerms(betting_s=5, result_s=2)
    banked = load_tables(one_table(tmp_path, "[table.banked]\nseats = 3\n"))
    table = banked["t"]
    assert table.kind == "banked" and isinstance(table.terms, BankedTerms)
    assert table.terms.seats == 3
    table = load_tables(one_table(tmp_path, ""))["t"]
    assert table.kind == "house" and table.terms is None


@pytest.mark.parametrize(
    ("section", "rules", "says"),
    [
        ("house = {}\n", "mini", "a house table has no section of its own"),
        ("shared = { betting_s = 5, result_s = 2, extra = 1 }\n", "mini", "shared is"),
        ("shared = { betting_s = 500, result_s = 2 }\n", "mini", "betting_s is a whole number"),
        ("shared = { betting_s = 5, result_s = 2 }\n", "online-6deck-tie9", "one shoe to everyone"),
        ("shared = { betting_s = 5, result_s = 2 }\n[table.banked]\nseats = 2\n", "mini",
         "a table is of one kind"),
        ("[table.banked]\nseats = 0\n", "online-6deck-tie9", "banked.seats is 1 to 1000"),
    ],
)  # fmt: skip
def test_a_bad_section_is_refused_by_its_kind(
    tmp_path: Path, section: str, rules: str, says: str
) -> None:
    with pytest.raises(TableConfigError, match=says):
        load_tables(one_table(tmp_path, section, rules))


def test_every_kind_but_the_house_has_its_parts_in_its_own_package() -> None:
    for name, kind in KINDS.items():
        parts = [kind.audit, kind.runtime, kind.api]
        if name == "house":
            assert parts == [None, None, None] and kind.routes() is None
            continue
        package = f"baccarat.server.kinds.{name}"
        assert all(part is not None for part in parts)
        assert kind.api == f"{package}.api"
        routes = kind.routes()
        assert routes is not None and routes.routers
        module, _, made = str(kind.runtime).partition(":")
        assert module == f"{package}.runtime"
        runtime = getattr(importlib.import_module(module), made)
        assert callable(runtime.start) and callable(runtime.stop)
        for part, module in (kind.audit, "check"), (kind.terms, "terms"):
            found = inspect.getmodule(part)
            assert found is not None and found.__name__ == f"{package}.{module}", (name, part)


def test_a_kind_whose_tables_share_no_screen_says_how_they_are_played() -> None:
    """A kind's tables beside others on one screen (POST /api/tables-at-once) or refused
    there with the code and message of how its tables are played."""
    for kind in KINDS.values():
        assert kind.several_at_once or kind.own_rounds is not None, kind.name
    assert [name for name, kind in KINDS.items() if not kind.several_at_once] == ["banked"]
