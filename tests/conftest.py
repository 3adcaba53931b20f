import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from .harness import cheap_password_hashing

TESTS = Path(__file__).parent
DATA = TESTS / "data"

# The files that take longest (the sum of their tests' times in a whole run, 2026-12-05: each
# file of 2.5 s or more), longest first. `make test` hands whole files to its processes
# (pytest-xdist --dist loadfile, --no-loadscope-reorder: in the order collected), each taking
# the next file when it is nearly done: these are collected first, so the end of a run is
# short files that even the processes out (a file of one long test left to the end kept one
# process busy while the others had finished: 12 s of a run). A file not named here keeps
# its place after them; a name no longer here is only a missed head start.
LONGEST_FIRST = [
    "operators/test_operator_shared.py",
    "web/test_web_a11y.py",
    "web/test_web_polish.py",
    "operators/test_operator_proof.py",
    "server/test_server_fuzz.py",
    "web/test_web_office.py",
    "web/test_web_profiles.py",
    "web/test_web_layout.py",
    "web/test_web_autoplay.py",
    "web/test_web_screen.py",
    "web/test_web_shared.py",
    "web/test_web_table.py",
    "web/test_web_words.py",
    "server/test_server_crowding.py",
    "fairness/test_fair_page.py",
    "web/test_web_multiplier.py",
    "web/test_web_operator.py",
    "server/test_server_races.py",
    "web/test_web_truth.py",
    "server/test_server_postgres_restart.py",
    "server/test_banked_workers.py",
    "web/test_web_smaller.py",
    "operators/test_operator_flow.py",
    "web/test_web_actions.py",
    "web/test_web_receipts.py",
    "deploy/test_deploy_nginx.py",
    "server/test_responsible.py",
    "web/test_web_roads.py",
    "analysis/test_simulate.py",
    "server/test_server_postgres_crash.py",
    "deploy/test_deploy_backup.py",
    "fairness/test_fair_mixed.py",
    "web/test_web_side_bets.py",
    "deploy/test_deploy_prometheus.py",
    "web/test_web_verify_cheats.py",
    "server/test_shared_workers.py",
    "server/test_shared_tables.py",
    "server/test_banked_time.py",
    "server/test_server_limits.py",
    "web/test_web_banked.py",
    "web/test_web_responsible.py",
    "server/test_server_processes.py",
    "server/test_server_crash.py",
    "server/test_server_ledger.py",
    "cli/test_cli_operator_input.py",
    "server/test_server_rounds.py",
    "server/test_server_concurrency.py",
    "fairness/test_fair_rng_quality.py",
    "server/test_server_api.py",
    "server/test_server_logins.py",
    "web/test_web_contexts.py",
    "server/test_server_sockets.py",
    "server/test_banked_reconnect.py",
    "server/test_banked_seats.py",
    "server/test_server_database.py",
    "cli/test_simulate_cli.py",
    "server/test_admin_read_only.py",
    "web/test_web_account.py",
    "analysis/test_multiplier_exact.py",
    "web/test_web_yen.py",
    "server/test_server_cli.py",
    "server/test_server_accounts.py",
    "server/test_office_desk.py",
    "server/test_server_session_kinds.py",
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
