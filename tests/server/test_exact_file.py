"""The exact figures shipped with the package's tables (server/exact.json) are the
analysers': a server reads them instead of computing them at every start."""

from __future__ import annotations

import pytest

from baccarat.server import tables
from baccarat.server.kinds import load_tables
from baccarat.server.tables import exact_json, exact_key, shipped_exact


def test_every_rule_set_of_the_packages_tables_is_shipped_as_the_analysers_compute_it() -> None:
    rules = {table.rules for table in load_tables().values()}
    shipped = shipped_exact()
    assert set(shipped) == {exact_key(r) for r in rules}, "run `make exact`"
    for r in rules:
        assert shipped[exact_key(r)] == exact_json(r), f"{r.name}: run `make exact`"


def test_a_rule_set_that_is_not_shipped_is_computed_when_its_tables_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shipped = load_tables()
    monkeypatch.setattr(tables, "shipped_exact", dict)
    computed = load_tables()
    for name in ("table-i", "lightning"):
        assert computed[name].rtp == shipped[name].rtp
        assert computed[name].figures == shipped[name].figures
    assert computed["lightning"].figures, "a multiplier table has figures besides its RTP"
