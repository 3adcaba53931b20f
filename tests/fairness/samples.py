"""Example histories for the verifier tests, played with fixed seeds."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from baccarat.core import get_rules
from baccarat.fairness.example import example_history

SERVER_SEED = "c0ffee" * 10 + "abcd"
CLIENT_SEED = "my lucky seed"


def history(rules: str = "single-deck", rounds: int = 6, *, revealed: bool = True) -> list[Any]:
    """Export lines (dicts) of a table played under SERVER_SEED."""
    return example_history(
        get_rules(rules),
        rounds,
        server_seed=SERVER_SEED,
        client_seed=CLIENT_SEED,
        random=random.Random(rules),
        revealed=revealed,
    )


def jsonl(lines: list[Any]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def edited(lines: list[Any], index: int, path: str, value: Any) -> list[Any]:
    """A deep copy with one field (dotted path) of one line replaced."""
    copied = copy.deepcopy(lines)
    target = copied[index]
    *parents, last = path.split(".")
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return copied
