"""Helpers of the browser tests: a logged-in player's page and its API client."""

from __future__ import annotations

import json
import uuid
from typing import Any

PASSWORD = "correct horse battery"


class Player:
    """A logged-in player in one browser context: its page and an API client sharing cookies."""

    def __init__(self, context: Any, base_url: str, nickname: str):
        self.context = context
        self.base_url = base_url
        self.nickname = nickname
        self.page = context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def csrf(self) -> dict[str, str]:
        for cookie in self.context.cookies():
            if "csrf" in cookie["name"].lower():
                return {"X-CSRF-Token": cookie["value"]}
        return {}

    def api(
        self, method: str, path: str, data: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        response = self.context.request.fetch(
            self.base_url + path,
            method=method,
            data=None if data is None else json.dumps(data),
            headers={"Content-Type": "application/json", **self.csrf(), **(headers or {})},
        )
        assert response.ok, f"{method} {path}: {response.status} {response.text()}"
        return response.json() if response.text() else None

    def finish_shoe(self, table_id: str, bets: dict[str, int]) -> int:
        """Deal the player's cut shoe at a table to its cut card (the seed of a rotation
        made while it was dealt is revealed then); how many rounds that took."""
        dealt = 0
        while not self.api("GET", f"/api/tables/{table_id}/state?mode=fun")["shoe"]["cut_due"]:
            key = {"Idempotency-Key": uuid.uuid4().hex}
            self.api("POST", f"/api/tables/{table_id}/rounds", {"mode": "fun", "bets": bets}, key)
            dealt += 1
        return dealt

    def register_and_login(self, currency: str | None = None) -> None:
        request = self.context.request
        body = {"nickname": self.nickname, "password": PASSWORD}
        account = body if currency is None else body | {"currency": currency}
        created = request.post(f"{self.base_url}/api/accounts", data=account)
        assert created.status == 201, created.text()
        logged = request.post(f"{self.base_url}/api/sessions", data=body)
        assert logged.ok, logged.text()

    def goto(self, route: str = "") -> None:
        self.page.goto(f"{self.base_url}/#/{route}")
        self.page.wait_for_selector("html[data-ready=true]")

    def meter(self, name: str) -> str:
        return str(self.page.text_content(f'[data-meter="{name}"]')).strip()

    def wait_round(self) -> None:
        self.page.wait_for_selector('.table-view[data-phase="result"][data-busy="false"]')


def new_nickname() -> str:
    return "p" + uuid.uuid4().hex[:10]
