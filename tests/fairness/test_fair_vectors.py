"""baccarat.fairness.derive against the published test vectors (tests/data, docs/fairness.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.core import get_rules, play_coup
from baccarat.fairness import FairRandom, byte_stream, commitment, fair_shoe, shuffled_order
from baccarat.fairness.history import seat_client_seed

from .vectors import VECTORS_PATH, build

VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())
NAMES = [v["name"] for v in VECTORS["vectors"]]


def test_vector_file_is_what_its_generator_computes() -> None:
    assert build() == VECTORS


@pytest.fixture(params=VECTORS["vectors"], ids=NAMES)
def vector(request: pytest.FixtureRequest) -> Any:
    return request.param


def test_commitment_is_sha256_of_the_seed_bytes(vector: Any) -> None:
    assert commitment(vector["server_seed"]) == vector["commitment"]


def test_first_block_is_hmac_of_client_seed_nonce_and_counter_zero(vector: Any) -> None:
    stream = byte_stream(vector["server_seed"], vector["client_seed"], vector["nonce"])
    assert next(stream).hex() == vector["first_block_hex"]
    assert vector["message_0"] == f"{vector['client_seed']}:{vector['nonce']}:0"


def test_first_draws_of_the_shuffle(vector: Any) -> None:
    random = FairRandom(vector["server_seed"], vector["client_seed"], vector["nonce"])
    draws = [random.randrange(d["n"]) for d in vector["first_draws"]]
    assert draws == [d["j"] for d in vector["first_draws"]]
    assert vector["first_draws"][0]["n"] == 52 * vector["decks"]


def test_order_after_the_cut(vector: Any) -> None:
    order = shuffled_order(
        vector["server_seed"],
        vector["client_seed"],
        vector["nonce"],
        vector["decks"],
        vector["cut"],
    )
    assert [str(c) for c in order] == vector["order"]
    assert vector["first_10"] == vector["order"][:10]


def test_coup_at_the_vector_position(vector: Any) -> None:
    order = shuffled_order(
        vector["server_seed"],
        vector["client_seed"],
        vector["nonce"],
        vector["decks"],
        vector["cut"],
    )
    coup = play_coup(order[vector["position"] :])
    assert coup.player.to_json() == vector["coup"]["player"]
    assert coup.banker.to_json() == vector["coup"]["banker"]
    assert coup.winner.value == vector["coup"]["winner"]


def test_fair_shoe_burns_and_places_the_cut_card_as_the_mini_vector_says() -> None:
    (vector,) = [v for v in VECTORS["vectors"] if v["rules"] == "mini"]
    rules = get_rules("mini")
    shoe = fair_shoe(
        rules, vector["server_seed"], vector["client_seed"], vector["nonce"], vector["cut"]
    )
    assert [str(c) for c in shoe.cards] == vector["order"]
    assert shoe.position == vector["burn"]["cards_burned"] == vector["position"]
    assert shoe.cut_card == vector["burn"]["cut_card"] == 364
    assert str(shoe.cards[0]) == vector["burn"]["turned"]


def test_rejection_sampling_discards_words_at_or_above_the_limit() -> None:
    demo = VECTORS["rejection"]
    n = demo["n"]
    assert demo["limit"] == 2**32 - (2**32 % n)
    rejected = [w for w in demo["words"] if not w["accepted"]]
    assert rejected and all(w["word"] >= demo["limit"] for w in rejected)
    random = FairRandom(demo["server_seed"], demo["client_seed"], demo["nonce"])
    accepted = [w["value"] for w in demo["words"] if w["accepted"]]
    assert [random.randrange(n) for _ in accepted] == accepted


def test_a_seats_client_seed_is_both_participants_the_bankers_first() -> None:
    (vector,) = [v for v in VECTORS["vectors"] if "client_seeds" in v]
    both = vector["client_seeds"]
    assert seat_client_seed(both["banker"], both["player"]) == vector["client_seed"]
    assert json.loads(vector["client_seed"]) == [both["banker"], both["player"]]
    assert seat_client_seed(both["player"], both["banker"]) != vector["client_seed"]
