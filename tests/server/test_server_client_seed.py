"""The client seed comes from the client: the server commits its next seed before the
client seed it is used with is known, at registration and at every rotation, and rounds
dealt with the server's own placeholder are named as such in the export and by the
verifier.

The cheat this closes: an operator that, before committing, tries candidate server seeds
against the client seed it already knows (it made it, or rotation kept it) and keeps one
that favours the house. Here the operator's seed maker is given every client seed it could
know at that moment; the rounds are dealt with a client seed set only afterwards.
"""

from __future__ import annotations

from typing import Any

import pytest

from baccarat.fairness import commitment
from baccarat.fairness import new_server_seed as fair_new_server_seed
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import Kind, verify_history
from baccarat.server import seeds

from ..harness import Api

pytestmark = pytest.mark.anyio


async def fairness(api: Api, token: str, mode: str = "fun") -> dict[str, Any]:
    answer = await api.client.get("/api/fairness", headers=api.auth(token, None))
    assert answer.status_code == 200
    state: dict[str, Any] = answer.json()[mode]
    return state


async def set_seed(api: Api, token: str, seed: str, mode: str = "fun") -> dict[str, Any]:
    answer = await api.client.put("/api/fairness/client-seed", headers=api.auth(token, None),
                                  json={"mode": mode, "client_seed": seed})  # fmt: skip
    assert answer.status_code == 200, answer.text
    state: dict[str, Any] = answer.json()
    return state


async def test_the_next_seed_is_committed_before_the_client_seed_it_is_used_with(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    casino = api.casino
    made = fair_new_server_seed

    def operator_seed() -> str:
        # What the operator knows when it commits: every client seed in the database.
        known = casino.db.run_read(
            lambda uow: [row[0] for row in uow.all("SELECT client_seed FROM fairness_states")]
        )
        events.extend(("known", seed) for seed in known)
        seed = made()
        events.append(("commit", commitment(seed)))
        return seed

    monkeypatch.setattr(seeds, "new_server_seed", operator_seed)
    token = await api.player()
    for mode in ("fun", "real"):
        assert (await fairness(api, token, mode))["client_seed_source"] == "server"
    committed = (await fairness(api, token))["commitment"]
    mine = await set_seed(api, token, "chosen after the commitment")
    # The commitment shown before the client seed was set is the one after it.
    assert (mine["commitment"], mine["client_seed_source"]) == (committed, "client")
    dealt = (await api.play(token, player=500)).json()["fairness"]
    assert (dealt["commitment"], dealt["client_seed"]) == (committed, mine["client_seed"])
    assert dealt["client_seed_source"] == "client"

    rotated = await api.client.post("/api/fairness/rotate", headers=api.auth(token, None),
                                    json={"mode": "fun"})  # fmt: skip
    assert rotated.status_code == 200
    current = rotated.json()["current"]
    # The new commitment comes with the server's placeholder, not the client seed it knew.
    assert current["client_seed_source"] == "server"
    assert current["client_seed"] != mine["client_seed"]
    again = await set_seed(api, token, "chosen after the second commitment")
    assert again["commitment"] == current["commitment"]
    second = (await api.play(token, player=500)).json()["fairness"]
    assert (second["commitment"], second["client_seed"]) == (
        current["commitment"], "chosen after the second commitment",
    )  # fmt: skip
    # Every round's client seed was unknown to the operator when its seed was committed.
    for fair in (dealt, second):
        at = events.index(("commit", fair["commitment"]))
        assert ("known", fair["client_seed"]) not in events[: at + 1]


async def test_rounds_with_the_servers_client_seed_are_flagged_and_named(api: Api) -> None:
    token = await api.player()
    placeholder = await api.play(token, player=500)  # an API client that never set one
    assert placeholder.json()["fairness"]["client_seed_source"] == "server"
    await set_seed(api, token, "mine")
    assert (await api.play(token, player=500)).json()["fairness"]["client_seed_source"] == "client"
    rotated = await api.client.post("/api/fairness/rotate", headers=api.auth(token, None),
                                    json={"mode": "fun"})  # fmt: skip
    assert rotated.json()["revealed"] is not None and rotated.json()["pending"] == []
    export = await api.client.get("/api/history/export", headers=api.auth(token, None))
    report = verify_history(parse_history(export.text.splitlines()))
    assert report.ok  # not a failure: the cards are the seeds'
    assert report.server_client_seeds == 1
    (note,) = [n for n in report.notes if n.kind is Kind.SERVER_CLIENT_SEED]
    assert note.lines == (1,) and "the server set" in note.message
    assert "1 with the server's client seed" in report.summary()
