"""The client seed a player may set: what the server takes is what docs/fairness.md says,
and the API's error names the rule (the protocol itself derives from any text)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baccarat.server import seeds
from baccarat.server.errors import ServiceError

from .conftest import Api
from .support import error_code

DOC = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
PRINTABLE = "".join(chr(c) for c in range(32, 127))


def test_every_printable_ascii_character_is_a_client_seed_character() -> None:
    for start in range(0, len(PRINTABLE), seeds.CLIENT_SEED_MAX):
        chunk = PRINTABLE[start : start + seeds.CLIENT_SEED_MAX]
        assert seeds.check_client_seed(chunk) == chunk
    assert seeds.check_client_seed("x" * seeds.CLIENT_SEED_MAX)


@pytest.mark.parametrize(
    ("seed", "said"),
    [("", "it is empty"), ("x" * 65, "it has 65"), ("Glück", "'\\xfc' at position 2"),
     ("tab\there", "'\\t' at position 3"), ("🍀", "'\\U0001f340' at position 0")],
)  # fmt: skip
def test_other_text_is_refused_naming_the_rule_and_the_character(seed: str, said: str) -> None:
    with pytest.raises(ServiceError) as refused:
        seeds.check_client_seed(seed)
    assert refused.value.code == "invalid_client_seed"
    assert refused.value.message.startswith(seeds.CLIENT_SEED_RULE)
    assert said in refused.value.message


def test_the_docs_state_the_servers_rule() -> None:
    text = " ".join(DOC.split())
    assert seeds.CLIENT_SEED_RULE[len("a client seed is ") :] in text
    assert re.search(r"`invalid_client_seed`", text)


@pytest.mark.anyio
async def test_the_api_refuses_a_client_seed_outside_the_rule_with_its_message(api: Api) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    for seed in ("Glück", "", "line\nbreak"):
        answer = await api.client.put(
            "/api/fairness/client-seed", json={"mode": "fun", "client_seed": seed}, headers=auth
        )
        assert answer.status_code == 422
        assert error_code(answer) == "invalid_client_seed", answer.text
        assert seeds.CLIENT_SEED_RULE in answer.text
    too_long = await api.client.put(
        "/api/fairness/client-seed", json={"mode": "fun", "client_seed": "x" * 65}, headers=auth
    )
    assert too_long.status_code == 422
    assert error_code(too_long) in {"invalid_client_seed", "invalid_body"}
    kept = await api.client.put(
        "/api/fairness/client-seed", json={"mode": "fun", "client_seed": PRINTABLE[:64]},
        headers=auth,
    )  # fmt: skip
    assert kept.status_code == 200 and kept.json()["client_seed"] == PRINTABLE[:64]
