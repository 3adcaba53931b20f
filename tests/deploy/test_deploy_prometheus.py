"""A real Prometheus server (Debian's ``prometheus``, run as a child process like nginx in
``test_deploy_nginx.py``) scrapes ``GET /metrics`` of one ``baccarat serve`` process of two
workers on PostgreSQL, with the operator's token (docs/operations.md's scrape
configuration), and its HTTP API reads back the rounds counter, summed over both workers,
equal to the rounds played. Without the token, ``/metrics`` refuses the client.

Rounds are played each on a new connection, which either worker may take; the event loop's
lag is a gauge per worker (its ``pid`` label): Prometheus sees two, so the scrape summed two
workers' files, whichever worker answered it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..harness import LiveServer, free_port, http, until
from ..server import postgres

REQUIRE = os.environ.get("BACCARAT_REQUIRE_PROMETHEUS") == "1"
BACCARAT = str(Path(sys.executable).with_name("baccarat"))
TOKEN = "metrics-token-5b1e"
ROUNDS = 12


def _prometheus_binary() -> str:
    found = shutil.which("prometheus") or next(
        (p for p in ("/usr/bin/prometheus", "/usr/sbin/prometheus") if os.access(p, os.X_OK)),
        None,
    )
    if found is None:
        if REQUIRE:
            pytest.fail("BACCARAT_REQUIRE_PROMETHEUS=1 but prometheus is not installed")
        pytest.skip("prometheus is not installed (Debian: apt-get install prometheus)")
    return found


def scrape_config(port: int) -> str:
    """docs/operations.md's scrape job, pointed at the test's server, every second."""
    return (
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: baccarat\n    metrics_path: /metrics\n"
        f"    authorization:\n      type: Bearer\n      credentials: {TOKEN}\n"
        f"    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
    )


def _query(api: str, expression: str) -> list[dict[str, Any]]:
    answer = http().get(f"{api}/api/v1/query", params={"query": expression}, timeout=5)
    answer.raise_for_status()
    found: list[dict[str, Any]] = answer.json()["data"]["result"]
    return found


def _value(api: str, expression: str) -> float | None:
    found = _query(api, expression)
    return float(found[0]["value"][1]) if found else None


def test_prometheus_scrapes_two_workers_and_reads_the_rounds_played(tmp_path: Path) -> None:
    prometheus = _prometheus_binary()
    cluster = postgres.cluster_or_skip()
    server: LiveServer | None = None
    scraper: subprocess.Popen[bytes] | None = None
    try:
        url = postgres.create_database(cluster.start().url, "observed")
        port = free_port()
        argv = [BACCARAT, "serve", "--host", "127.0.0.1", "--port", str(port),
                "--workers", "2", "--database", url]  # fmt: skip
        server = LiveServer(argv, port, {"BACCARAT_METRICS_TOKEN": TOKEN},
                            tmp_path / "serve.log").start()  # fmt: skip
        base = server.url

        # Without the token (or with another), /metrics is refused with its code.
        for headers in ({}, {"Authorization": "Bearer not-the-token"}):
            refused = http().get(f"{base}/metrics", headers=headers, timeout=10)
            assert refused.status_code == 401, refused.text
            assert refused.json()["error"]["code"] == "metrics_unauthorized"

        body = {"nickname": "watched", "password": "a good password"}
        assert http().post(f"{base}/api/accounts", json=body, timeout=10).status_code == 201
        token = http().post(f"{base}/api/sessions", json=body, timeout=10).json()["token"]
        for i in range(ROUNDS):  # each on a new connection: either worker takes it
            played = http().post(
                f"{base}/api/tables/table-i/rounds",
                json={"mode": "fun", "bets": {"banker": 500}},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"round-{i}"},
                timeout=10,
            )  # fmt: skip
            assert played.status_code == 201, played.text

        config = tmp_path / "prometheus.yml"
        config.write_text(scrape_config(port))
        listen = free_port()
        api = f"http://127.0.0.1:{listen}"
        with (tmp_path / "prometheus.log").open("ab") as log:
            scraper = subprocess.Popen(
                [prometheus, f"--config.file={config}",
                 f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                 f"--web.listen-address=127.0.0.1:{listen}"],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

        def scraped() -> float | None:
            log = (tmp_path / "prometheus.log").read_text()[-2000:]
            assert scraper is not None and scraper.poll() is None, log
            try:
                return _value(api, 'sum(baccarat_rounds_total{table="table-i"})')
            except httpx.HTTPError:
                return None  # not listening yet

        assert until(scraped, "Prometheus read the rounds counter", timeout=60) == ROUNDS
        assert _value(api, 'up{job="baccarat"}') == 1.0
        workers = _query(api, "baccarat_event_loop_lag_seconds")
        assert len({series["metric"]["pid"] for series in workers}) == 2, workers
        kinds = _query(api, "baccarat_rounds_total")
        assert {(s["metric"]["kind"], s["metric"]["mode"]) for s in kinds} == {("house", "fun")}
        # The route's template, never the path asked for.
        routes = {s["metric"]["route"] for s in _query(api, "baccarat_requests_total")}
        assert "/api/tables/{table_id}/rounds" in routes
        assert not any("table-i" in route for route in routes), routes
        refusals = _value(api, 'sum(baccarat_refusals_total{code="metrics_unauthorized"})')
        assert refusals == 2.0
    finally:
        if scraper is not None:
            scraper.terminate()
            try:
                scraper.wait(timeout=20)
            except subprocess.TimeoutExpired:
                scraper.kill()
                scraper.wait(timeout=20)
        if server is not None:
            server.stop()
        cluster.remove()
