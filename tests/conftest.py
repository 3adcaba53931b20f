import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from .harness import cheap_password_hashing

TESTS = Path(__file__).parent
DATA = TESTS / "data"

# The files that take longest (the sum of their tests' times in a whole run, 2026-12-05),
# longest first. `make test` hands whole files to its processes (pytest-xdist --dist
# loadfile, --no-loadscope-reorder: in the order collected), each taking the next file when
# it is nearly done: these are collected first, so the end of a run is short files that
# even the processes out. A file not
# named here keeps its place after them; a name no longer here is only a missed head start.
LONGEST_FIRST = [
    "server/test_server_fuzz.py",
    "operators/test_operator_shared.py",
    "web/test_web_polish.py",
    "web/test_web_a11y.py",
    "operators/test_operator_proof.py",
    "server/test_responsible.py",
    "web/test_web_office.py",
    "web/test_web_autoplay.py",
    "server/test_server_races.py",
    "web/test_web_profiles.py",
    "web/test_web_screen.py",
    "web/test_web_table.py",
    "web/test_web_layout.py",
    "operators/test_operator_flow.py",
    "web/test_web_truth.py",
    "web/test_web_multiplier.py",
    "web/test_web_smaller.py",
    "server/test_banked_workers.py",
    "web/test_web_responsible.py",
    "deploy/test_deploy_nginx.py",
    "web/test_web_roads.py",
    "server/test_server_crowding.py",
    "web/test_web_side_bets.py",
    "web/test_web_operator.py",
    "fairness/test_fair_page.py",
    "web/test_web_words.py",
    "web/test_web_actions.py",
    "deploy/test_deploy_backup.py",
    "web/test_web_shared.py",
    "web/test_web_verify_cheats.py",
    "server/test_server_postgres_restart.py",
    "web/test_web_banked.py",
    "server/test_server_postgres_crash.py",
    "deploy/test_deploy_prometheus.py",
]

# The server's keys for the whole suite, as an operator sets them: every database, server
# process and admin command of a test agrees on them, and none is made in the working
# folder (the defaults kept in a data folder are tested on their own, without these:
# tests/server/test_server_sealed_seeds.py, test_server_signatures.py).
os.environ.setdefault("BACCARAT_SEED_KEY", "dGVzdC1zZWVkLWtleS1vZi10aGUtYmFjY2FyYXQtc3U=")
os.environ.setdefault("BACCARAT_SIGNING_KEY", "dGVzdC1zaWduaW5nLWtleS1vZi10aGUtYmFjY2FyYXQ=")
# Argon2id at its cheapest in every server the suite starts (tests/harness.py).
cheap_password_hashing()
# No property test has a time limit per example (Hypothesis's deadline, 200 ms by default):
# a wall-clock threshold fails on a busy machine, not on a defect.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(scope="session")
def golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "golden_odds.json").read_text())
    return data


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker: the files of LONGEST_FIRST first, in its order (the same in
    every worker, as pytest-xdist requires); a run in one process keeps the collected order."""
    if not hasattr(config, "workerinput"):
        return
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def place(item: pytest.Item) -> int:
        return rank.get(item.path.relative_to(TESTS).as_posix(), len(rank))

    items.sort(key=place)  # stable: each file's tests keep their order
