"""``baccarat serve --log-format json --access-log``: a player's session (registration,
login, rounds, a seed rotation that reveals the seed the rounds were dealt from) logged one
JSON object a line, each request's line with its id (the answer's ``X-Request-Id``), route
template, status, latency and player; and the log holds none of the session's secrets: the
password, the session token, the CSRF token, the server seed (unrevealed while the rounds
were played and logged)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from ..harness import free_port, live, serve_argv

PASSWORD = "a password of the log"
GIVEN_ID = "0123456789abcdef0123456789abcdef"  # a proxy's (nginx's $request_id)


def test_a_sessions_json_log_names_each_request_and_no_secret(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    port = free_port()
    argv = [*serve_argv(port, tmp_path / "data"), "--log-format", "json", "--access-log"]
    env = {"BACCARAT_WEB_DIR": str(tmp_path / "no-web")}
    answers: list[httpx.Response] = []
    hooks = {"response": [answers.append]}
    with (
        live(argv, env, log, port) as server,
        httpx.Client(base_url=server.url, timeout=10, event_hooks=hooks) as http,
    ):
        body = {"nickname": "logged", "password": PASSWORD}
        player_id = http.post("/api/accounts", json=body).json()["id"]
        session = http.post("/api/sessions", json=body)
        token = session.json()["token"]
        csrf = http.cookies.get("baccarat_csrf")
        bearer = {"Authorization": f"Bearer {token}"}
        for i in range(3):
            # The first with an id of no sound shape: the server makes its own.
            given = {"Idempotency-Key": f"logged-{i}", "X-Request-Id": GIVEN_ID if i else "x"}
            played = http.post("/api/tables/table-i/rounds", headers=bearer | given,
                               json={"mode": "fun", "bets": {"banker": 500}})  # fmt: skip
            assert played.status_code == 201, played.text
        rotated = http.post("/api/fairness/rotate", headers=bearer, json={"mode": "fun"})
        assert rotated.status_code == 200, rotated.text
        seed = rotated.json()["revealed"]["server_seed"]
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    text = log.read_text()
    assert len(lines) == len(text.splitlines()), "a line of the log is not JSON"

    access = [line for line in lines if line["logger"] == "baccarat.access"]
    for line in access:
        assert {"time", "level", "worker", "request_id", "route", "status",
                "latency_ms"} <= line.keys(), line  # fmt: skip
    # Each answer's X-Request-Id names its request's line (the readiness checks' are others).
    ids = {answer.headers["x-request-id"] for answer in answers}
    assert sorted((answer.headers["x-request-id"], answer.status_code) for answer in answers) == (
        sorted((line["request_id"], line["status"]) for line in access if line["request_id"] in ids)
    )
    rounds = [line for line in access if line["route"] == "/api/tables/{table_id}/rounds"]
    assert [line["player_id"] for line in rounds] == [player_id] * 3
    assert [line["request_id"] == GIVEN_ID for line in rounds] == [False, True, True]
    assert all(line["method"] == "POST" and line["status"] == 201 for line in rounds)

    for name, secret in (("password", PASSWORD), ("token", token), ("CSRF token", csrf),
                         ("server seed", seed)):  # fmt: skip
        assert secret and secret not in text, f"the {name} is in the log"
