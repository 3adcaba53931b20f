"""``GET /metrics`` in one process (the real Prometheus server and two workers:
tests/deploy/test_deploy_prometheus.py): served only with the operator's token, and what it
counts: rounds by table, kind and mode, refusals by code, requests by route template."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from baccarat.server.observe import metrics
from baccarat.server.settings import DatabaseUrl

from ..harness import Api, FakeClock, SwitchableShoes, in_process, server_settings
from .support import error_code

pytestmark = pytest.mark.anyio

TOKEN = "operator-metrics-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def watched(database_url: DatabaseUrl, tmp_path: Path, clock: FakeClock
                  ) -> AsyncIterator[Api]:  # fmt: skip
    settings = server_settings(database_url, tmp_path, clock, SwitchableShoes(),
                               metrics_token=TOKEN)  # fmt: skip
    async with in_process(settings, Api) as api:
        yield api


async def samples(api: Api) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape: (name, sorted labels) -> value."""
    scraped = await api.client.get("/metrics", headers=AUTH)
    assert scraped.status_code == 200, scraped.text
    assert scraped.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(scraped.text)
        for sample in family.samples
    }


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_without_a_token_set_the_metrics_are_not_served(api: Api) -> None:
    for headers in ({}, AUTH):
        answer = await api.client.get("/metrics", headers=headers)
        assert answer.status_code == 404
        assert error_code(answer) == "metrics_disabled"


async def test_the_metrics_refuse_a_client_without_the_token(watched: Api) -> None:
    player = await watched.player()
    for headers in ({}, {"Authorization": f"Bearer {player}"}, {"Authorization": TOKEN}):
        answer = await watched.client.get("/metrics", headers=headers)
        assert answer.status_code == 401
        assert error_code(answer) == "metrics_unauthorized"


async def test_rounds_refusals_and_requests_are_counted_by_bounded_labels(watched: Api) -> None:
    token = await watched.player()
    before = await samples(watched)
    for _ in range(3):
        assert (await watched.play(token, banker=500)).status_code == 201
    refused = await watched.play(token, banker=10**9)
    assert refused.status_code == 422 and error_code(refused) == "bet_above_table_max"
    assert (await watched.client.get("/api/no/such/7")).status_code == 404
    after = await samples(watched)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("baccarat_rounds_total", table="table-i", kind="house", mode="fun") == 3
    assert grew("baccarat_refusals_total", code="bet_above_table_max") == 1
    rounds = {"route": "/api/tables/{table_id}/rounds", "method": "POST"}
    assert grew("baccarat_requests_total", status="201", **rounds) == 3
    assert grew("baccarat_request_seconds_count", **rounds) == 4
    assert grew("baccarat_requests_total", route="unmatched", method="GET", status="404") == 1
    assert grew("baccarat_round_seconds_count", kind="house") == 3
    routes = {dict(labels).get("route") for name, labels in after if name.startswith("baccarat_")}
    assert not any(route and "table-i" in route for route in routes), routes


WORKER = """
import os, signal, sys, time
from baccarat.server.observe import metrics
metrics.SOCKETS.set(int(sys.argv[1]))
print("set", flush=True)
if sys.argv[2] == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(60)
"""


def test_a_killed_workers_gauges_leave_the_sums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed with kill -9 never says it is gone: its sockets must not stay in the
    sum of the workers' open sockets; a live worker's do."""
    env = os.environ | {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    killed = subprocess.run([sys.executable, "-c", WORKER, "7", "killed"], env=env,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert killed.returncode == -signal.SIGKILL and killed.stdout == "set\n"
    with subprocess.Popen([sys.executable, "-c", WORKER, "3", "alive"], env=env,
                          stdout=subprocess.PIPE, text=True) as alive:  # fmt: skip
        try:
            assert alive.stdout is not None and alive.stdout.readline() == "set\n"
            monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
            text = metrics.render(metrics.Backlog(0, 0.0)).decode()
            found = {
                sample.name: sample.value
                for family in text_string_to_metric_families(text)
                for sample in family.samples
            }
            assert found["baccarat_sockets_open"] == 3
        finally:
            alive.kill()
