"""The derivation's contract: formats, validation, permutations, cut, burn and cut card."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baccarat.core import get_rules, new_shoe_order
from baccarat.fairness import (
    FairnessError,
    FairRandom,
    byte_stream,
    commitment,
    fair_shoe,
    new_client_seed,
    new_server_seed,
    server_seed_bytes,
    shuffled_order,
)

SEED = "ab" * 32
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


def test_new_server_seed_is_64_lowercase_hex_and_fresh_each_time() -> None:
    a, b = new_server_seed(), new_server_seed()
    assert re.fullmatch(r"[0-9a-f]{64}", a) and a != b


def test_default_client_seed_is_16_hex_characters() -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", new_client_seed())


def test_commitment_hashes_the_bytes_not_the_hex_text() -> None:
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    assert commitment(SEED) != hashlib.sha256(SEED.encode()).hexdigest()


@pytest.mark.parametrize("bad", ["", "ab" * 31, "AB" * 32, "zz" * 32, " " + "ab" * 32, 12])
def test_a_server_seed_must_be_64_lowercase_hex_characters(bad: object) -> None:
    with pytest.raises(FairnessError):
        server_seed_bytes(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("nonce", [-1, True, 1.0, "0"])
def test_a_nonce_is_a_whole_number_from_zero(nonce: object) -> None:
    with pytest.raises(FairnessError, match="nonce"):
        shuffled_order(SEED, "c", nonce, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("decks", [0, 9, True, 1.0])
def test_a_shoe_holds_one_to_eight_decks(decks: object) -> None:
    with pytest.raises(FairnessError, match="decks"):
        shuffled_order(SEED, "c", 0, decks)  # type: ignore[arg-type]


@pytest.mark.parametrize("cut", [-1, 52, True, 1.5])
def test_a_cut_is_a_position_inside_the_shoe(cut: object) -> None:
    with pytest.raises(FairnessError, match="cut"):
        shuffled_order(SEED, "c", 0, 1, cut)  # type: ignore[arg-type]


def test_a_client_seed_must_be_encodable_as_utf8() -> None:
    with pytest.raises(FairnessError, match="client seed"):
        shuffled_order(SEED, "\ud800", 0, 1)


def test_byte_stream_checks_its_inputs_before_the_first_block() -> None:
    with pytest.raises(FairnessError):
        byte_stream("nope", "c", 0)
    with pytest.raises(FairnessError):
        byte_stream(SEED, "c", -1)


def test_byte_stream_blocks_are_hmac_of_the_counter_messages() -> None:
    stream = byte_stream(SEED, "ü:x", 7)
    key = bytes.fromhex(SEED)
    for counter in range(3):
        message = f"ü:x:7:{counter}".encode()
        assert next(stream) == hmac.new(key, message, hashlib.sha256).digest()


@pytest.mark.parametrize("n", [0, -3, 2**32 + 1])
def test_randrange_refuses_ranges_it_cannot_draw_uniformly(n: int) -> None:
    with pytest.raises(FairnessError):
        FairRandom(SEED, "c", 0).randrange(n)


def test_randrange_reads_big_endian_words_and_keeps_them_below_the_limit() -> None:
    block = next(byte_stream(SEED, "c", 0))
    words = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)]
    random = FairRandom(SEED, "c", 0)
    # n = 2**32 never rejects: each draw is the word itself.
    assert [random.randrange(2**32) for _ in range(8)] == words
    ones = FairRandom(SEED, "c", 0)
    assert {ones.randrange(1) for _ in range(20)} == {0}


@settings(max_examples=40, deadline=None)
@given(seeds, st.text(max_size=12), st.integers(0, 2**70), st.integers(1, 8))
def test_every_order_is_a_permutation_of_the_canonical_shoe(
    seed: str, client: str, nonce: int, decks: int
) -> None:
    order = shuffled_order(seed, client, nonce, decks)
    assert Counter(order) == Counter(new_shoe_order(decks))


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(0, 1000), st.data())
def test_a_cut_at_k_rotates_the_order(seed: str, nonce: int, data: st.DataObject) -> None:
    decks = data.draw(st.integers(1, 8))
    k = data.draw(st.integers(0, 52 * decks - 1))
    plain = shuffled_order(seed, "c", nonce, decks)
    assert shuffled_order(seed, "c", nonce, decks, k) == plain[k:] + plain[:k]


def test_the_order_depends_on_server_seed_client_seed_and_nonce() -> None:
    base = shuffled_order(SEED, "c", 0, 1)
    assert shuffled_order(SEED, "c", 0, 1) == base
    assert shuffled_order(SEED, "c", 1, 1) != base
    assert shuffled_order(SEED, "d", 0, 1) != base
    assert shuffled_order("cd" * 32, "c", 0, 1) != base


def test_fair_shoe_on_a_fresh_table_deals_from_the_top_without_cut_card() -> None:
    shoe = fair_shoe(get_rules("online-6deck-tie9"), SEED, "c", 0)
    assert shoe.position == 0 and shoe.cut_card is None
    assert shoe.cards == shuffled_order(SEED, "c", 0, 6)


@pytest.mark.parametrize("nonce", range(12))
def test_fair_shoe_on_a_cut_shoe_burns_by_the_first_card(nonce: int) -> None:
    rules = get_rules("classic-8deck")
    shoe = fair_shoe(rules, SEED, "c", nonce, cut=100)
    first = shoe.cards[0]
    assert shoe.cards == shuffled_order(SEED, "c", nonce, 8, 100)
    assert shoe.position == 1 + min(first.rank.value, 10)
    assert shoe.cut_card == rules.cut_card_position == 364
