"""The examples in the docstrings of core and analysis are checked."""

import doctest
import importlib
import pkgutil

import pytest

import baccarat.analysis
import baccarat.core

MODULES = [
    info.name
    for package in (baccarat.core, baccarat.analysis)
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + ".")
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
