"""The examples in the docstrings of every package are checked."""

import doctest
import importlib
import pkgutil

import pytest

import baccarat

# Alembic's migration environment runs when imported: it has no docstring examples.
SKIP = ("baccarat.server.db.migrations",)

MODULES = [
    info.name
    for info in pkgutil.walk_packages(baccarat.__path__, "baccarat.")
    if not info.name.startswith(SKIP)
]


def test_every_package_is_searched_for_examples():
    packages = {name.split(".")[1] for name in MODULES}
    assert {"core", "analysis", "fairness", "server", "cli"} <= packages


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
