"""The examples in the docstrings of every package are checked."""

import doctest
import importlib
import pkgutil

import pytest

import baccarat

# Alembic's migration environment runs when imported: it has no docstring examples.
SKIP = ("baccarat.server.db.migrations",)

SEARCHED = [
    info.name
    for info in pkgutil.walk_packages(baccarat.__path__, "baccarat.")
    if not info.name.startswith(SKIP)
]

# Only the modules with at least one example become tests: a module without any would pass
# whatever its docstrings said.
WITH_EXAMPLES = [
    name
    for name in SEARCHED
    if any(test.examples for test in doctest.DocTestFinder().find(importlib.import_module(name)))
]


def test_every_package_is_searched_for_examples():
    assert {"core", "analysis", "fairness", "server", "cli"} <= {n.split(".")[1] for n in SEARCHED}


def test_the_packages_with_examples_are_all_found():
    assert {"core", "analysis", "fairness", "server"} <= {n.split(".")[1] for n in WITH_EXAMPLES}


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
