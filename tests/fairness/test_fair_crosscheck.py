"""The browser's fair.js against the Python derivation, on the shared vectors and more.

Runs Node (20+, whose globalThis.crypto.subtle is the browser's WebCrypto API) on
src/baccarat/web/js/fair.js.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import PRESETS, Card, play_coup
from baccarat.fairness import shuffled_order

from .vectors import VECTORS_PATH

ROOT = Path(__file__).resolve().parents[2]
FAIR_JS = ROOT / "src" / "baccarat" / "web" / "js" / "fair.js"
CHECK = Path(__file__).with_name("fair_check.mjs")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: the JavaScript cross-check needs Node 20 or later"
)


def random_cases(count: int) -> list[dict[str, Any]]:
    rng = random.Random(20261130)
    alphabet = "abcXYZ019:-_ äøå€🍀"
    cases = []
    for _ in range(count):
        decks = rng.randint(1, 8)
        nonce = rng.choice([rng.randrange(100), rng.randrange(2**64)])
        cases.append(
            {
                "server_seed": rng.randbytes(32).hex(),
                "client_seed": "".join(rng.choice(alphabet) for _ in range(rng.randrange(20))),
                "nonce_text": str(nonce),
                "decks": decks,
                "cut": rng.choice([None, rng.randrange(52 * decks)]),
                "position": rng.randrange(52 * decks - 6),
            }
        )
    return cases


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return random_cases(24)


@pytest.fixture(scope="module")
def node_output(cases: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("fair") / "cases.json"
    path.write_text(json.dumps({"orders": cases}, ensure_ascii=False))
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(CHECK), str(FAIR_JS), str(VECTORS_PATH), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def vectors() -> Any:
    return json.loads(VECTORS_PATH.read_text())


def test_js_reproduces_every_vector(node_output: Any, vectors: Any) -> None:
    assert len(node_output["vectors"]) == len(vectors["vectors"])
    for got, want in zip(node_output["vectors"], vectors["vectors"], strict=True):
        assert got["commitment"] == want["commitment"], want["name"]
        assert got["first_block_hex"] == want["first_block_hex"], want["name"]
        assert got["first_draws"] == [d["j"] for d in want["first_draws"]], want["name"]
        words = [w for d in want["first_draws"] for w in d["words"]]
        assert got["first_words"] == words[: len(got["first_words"])], want["name"]
        assert got["order"] == want["order"], want["name"]
        assert got["coup"]["player"] == want["coup"]["player"], want["name"]
        assert got["coup"]["banker"] == want["coup"]["banker"], want["name"]
        assert got["coup"]["winner"] == want["coup"]["winner"], want["name"]
        if "client_seeds" in want:  # a seat's: the JSON array of the two, the banker's first
            assert got["seat_client_seed"] == want["client_seed"], want["name"]


def test_js_burn_and_cut_card_match_the_mini_vector(node_output: Any, vectors: Any) -> None:
    (index,) = [i for i, v in enumerate(vectors["vectors"]) if v["rules"] == "mini"]
    layout = node_output["vectors"][index]["layout"]
    burn = vectors["vectors"][index]["burn"]
    assert layout == {"burned": burn["cards_burned"], "cutCard": burn["cut_card"]}


def test_js_rejects_the_same_words_as_the_protocol(node_output: Any, vectors: Any) -> None:
    words = vectors["rejection"]["words"]
    assert any(not w["accepted"] for w in words)
    assert node_output["rejection"] == [w["value"] for w in words if w["accepted"]]


def test_js_and_python_agree_on_random_inputs(
    node_output: Any, cases: list[dict[str, Any]]
) -> None:
    for got, case in zip(node_output["extra"], cases, strict=True):
        order = shuffled_order(
            case["server_seed"],
            case["client_seed"],
            int(case["nonce_text"]),
            case["decks"],
            case["cut"],
        )
        assert got["order"] == [str(c) for c in order], case
        coup = play_coup(order[case["position"] :])
        assert got["coup"]["player"] == coup.player.to_json()
        assert got["coup"]["banker"] == coup.banker.to_json()
        assert got["coup"]["winner"] == coup.winner.value
        assert got["coup"]["cardsUsed"] == coup.cards_used


def test_js_presets_match_the_rule_sets(node_output: Any) -> None:
    expected = {
        p.name: {
            "decks": p.decks,
            "shuffle": p.shuffle.value,
            "burn": p.burn,
            "cutCard": p.cut_card_position,
        }
        for p in PRESETS
    }
    assert node_output["presets"] == expected


def test_js_refuses_bad_input_with_a_fairness_error(node_output: Any) -> None:
    for name, message in node_output["errors"].items():
        assert message is not None and message.startswith("FairnessError: "), name


def test_js_cards_parse_as_python_cards(node_output: Any) -> None:
    cards = node_output["vectors"][0]["order"]
    assert [str(Card.parse(c)) for c in cards] == cards
