"""Game recall (docs/jurisdictions.md): the last round and the nine before it, step by step,
for the player and for staff, matching the export line for line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.server.recall import steps

from ..harness import Api
from .office import logged_in
from .support import funded


def test_the_steps_deal_player_banker_player_banker_then_the_third_cards() -> None:
    dealt = steps(
        {"player": {"cards": ["Kh", "4s", "3d"]}, "banker": {"cards": ["5h", "Ac", "9c"]}}
    )
    assert [(s["step"], s["hand"], s["card"], s["score"]) for s in dealt] == [
        (1, "player", "Kh", 0), (2, "banker", "5h", 5), (3, "player", "4s", 4),
        (4, "banker", "Ac", 6), (5, "player", "3d", 7), (6, "banker", "9c", 5),
    ]  # fmt: skip
    natural = steps({"player": {"cards": ["9h", "Ks"]}, "banker": {"cards": ["2d", "5c"]}})
    assert [s["card"] for s in natural] == ["9h", "2d", "Ks", "5c"]


def _deal_order(line: dict[str, Any]) -> list[str]:
    """The cards of an export line in the order they were dealt."""
    p, b = line["player"]["cards"], line["banker"]["cards"]
    order = [p[0], b[0], p[1], b[1]]
    return order + p[2:] + b[2:]


@pytest.mark.anyio
async def test_the_recall_of_the_last_ten_rounds_matches_the_export(api: Api) -> None:
    token = await funded(api, "alice")
    auth = api.auth(token, None)
    bets = [{"player": 500}, {"banker": 700, "tie": 200}, {"player": 300, "banker": 300}]
    played = []
    for n in range(12):
        mode = "real" if n % 4 == 3 else "fun"
        answer = await api.client.post(
            "/api/tables/table-i/rounds",
            json={"mode": mode, "bets": bets[n % 3]},
            headers=api.auth(token),
        )
        assert answer.status_code == 201, answer.text
        played.append(answer.json())
    recalled = (await api.client.get("/api/history/recall", headers=auth)).json()
    rounds = recalled["rounds"]
    assert [r["id"] for r in rounds] == [p["id"] for p in reversed(played[-10:])]
    exported = await api.client.get("/api/history/export", headers=auth)
    lines = {line["id"]: line for line in map(json.loads, exported.text.splitlines())}
    for shown in rounds:
        line = lines[shown["id"]]
        assert [s["card"] for s in shown["steps"]] == _deal_order(line)
        last = {s["hand"]: s["score"] for s in shown["steps"]}
        assert (last["player"], last["banker"]) == (line["player"]["scores"][1],
                                                    line["banker"]["scores"][1])  # fmt: skip
        for key in ("bets", "balance_before", "balance_after", "win", "winner", "mode",
                    "table_id"):  # fmt: skip
            assert shown[key] == line[key], key
    # A mode alone, and fewer rounds.
    real = (await api.client.get("/api/history/recall?mode=real&last=2", headers=auth)).json()
    assert [r["id"] for r in real["rounds"]] == [played[11]["id"], played[7]["id"]]
    assert real["currency"] == "USD"
    for wrong in ("last=0", "last=11", "mode=gold"):
        refused = await api.client.get(f"/api/history/recall?{wrong}", headers=auth)
        assert refused.status_code == 422, wrong
    api.client.cookies.clear()  # (the login set the browser's cookies too)
    assert (await api.client.get("/api/history/recall")).status_code == 401
    # Staff see the same steps on the player's card.
    sam = await logged_in(api, "sam", "support")
    found = await api.client.get("/admin/api/players?q=alice", headers=sam.headers)
    player_id = found.json()["players"][0]["id"]
    card = (await api.client.get(f"/admin/api/players/{player_id}", headers=sam.headers)).json()
    assert [(r["id"], r["steps"]) for r in card["recall"]] == [
        (r["id"], r["steps"]) for r in rounds
    ]
