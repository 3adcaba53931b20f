"""Fuzz the live server from its own OpenAPI schema (schemathesis): no input makes it answer
500, and every answer is documented (status code, content type and body schema).

Each operation gets a bounded number of valid and of invalid requests, derandomised, so
the test is quick and repeatable. Requests carry a logged-in player's bearer token.
"""

from __future__ import annotations

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from ..harness import free_port, http, live, uvicorn_argv

EXAMPLES = 12
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]  # fmt: skip


def test_the_api_fuzzed_from_its_schema_never_fails_and_stays_documented(tmp_path: Path) -> None:
    port = free_port()
    env = {"BACCARAT_DATA_DIR": str(tmp_path / "data"), "BACCARAT_WEB_DIR": str(tmp_path / "no")}
    with live(uvicorn_argv("tests.server.apps:fair", port), env, tmp_path / "fuzz.log", port):
        url = f"http://127.0.0.1:{port}"
        body = {"nickname": "fuzzer", "password": "a good password"}
        assert http().post(url + "/api/accounts", json=body).status_code == 201
        token = http().post(url + "/api/sessions", json=body).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        cut = http().post(
            url + "/api/tables/mini/shoe", json={"mode": "fun", "cut": 10}, headers=auth
        )
        assert cut.status_code == 200
        schema = schemathesis.openapi.from_url(url + "/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
        assert len(operations) >= 20
        tried = 0
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

                @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))  # fmt: skip
                @given(case=operation.as_strategy(generation_mode=mode))
                def exercise(case: schemathesis.Case) -> None:
                    nonlocal tried
                    tried += 1
                    case.call_and_validate(base_url=url, headers=auth, checks=CHECKS, timeout=30)

                try:
                    exercise()
                except Unsatisfiable:
                    # No invalid input exists for an operation without parameters.
                    assert mode is GenerationMode.NEGATIVE
        assert tried >= len(operations) * 2
