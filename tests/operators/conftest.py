"""The operator tests' pairs of the game server and the demo operator: a module that tests
both contracts has a module-scoped ``pairs`` (``support.Pairs``); ``both`` is its pair
speaking API v1, ``either`` each contract's pair in turn."""

from __future__ import annotations

import pytest

from .support import PROTOCOLS, Pair, Pairs


@pytest.fixture
def both(pairs: Pairs) -> Pair:
    """The pair speaking API v1."""
    return pairs("v1")


@pytest.fixture(params=PROTOCOLS)
def either(pairs: Pairs, request: pytest.FixtureRequest) -> Pair:
    """The pair speaking each contract in turn."""
    return pairs(request.param)
