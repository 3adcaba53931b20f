"""The multiplier cards: their derivation (by hand, and exact), their record in the export,
and the verifier, which re-derives them and names a changed one."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import io
import re
import struct
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from baccarat.core import Card, Lightning, get_rules, new_deck
from baccarat.core.rules import MULTIPLIER_TERMS
from baccarat.fairness import byte_stream, lightning, lightning_stream
from baccarat.fairness.derive import FairRandom, _pick
from baccarat.fairness.history import HistoryFormatError, parse_history, parse_record
from baccarat.fairness.verify import Status, derived_lightning, verify_history

from .samples import CLIENT_SEED, SERVER_SEED, edited, history, jsonl

MULTIPLIER = get_rules("multiplier")
TERMS = MULTIPLIER_TERMS
assert MULTIPLIER.multipliers == TERMS


def by_hand(server_seed: str, client_seed: str, nonce: int, position: int) -> list[str]:
    """docs/fairness.md's recipe, written out for the published terms: the key, the words,
    K, the cards, the multipliers."""
    key = hmac.new(bytes.fromhex(server_seed), b"baccarat-lightning/1", hashlib.sha256).digest()
    words: list[int] = []
    counter = 0

    def uniform(n: int) -> int:
        nonlocal counter
        while True:
            if not words:
                message = f"{client_seed}:{nonce}:{position}:{counter}".encode()
                words.extend(struct.unpack(">8I", hmac.new(key, message, hashlib.sha256).digest()))
                counter += 1
            x = words.pop(0)
            if x < 2**32 - 2**32 % n:
                return x % n

    # K: 10ths (1/10, 1/5, 2/5, 1/5, 1/10 -> numerators 1, 2, 4, 2, 1 of 10).
    x = uniform(10)
    k = 1 + sum(x >= bound for bound in (1, 3, 7, 9))
    deck = [str(card) for card in new_deck()]
    for i in range(k):
        j = i + uniform(52 - i)
        deck[i], deck[j] = deck[j], deck[i]
    shown = []
    for card in deck[:k]:
        # Multipliers: 20ths (1/4, 1/4, 3/10, 1/10, 1/10 -> 5, 5, 6, 2, 2 of 20).
        y = uniform(20)
        value = (2, 3, 4, 5, 8)[sum(y >= bound for bound in (5, 10, 16, 18))]
        shown.append(f"{card} x{value}")
    return shown


@pytest.mark.parametrize(
    ("client_seed", "nonce", "position"),
    [(CLIENT_SEED, 0, 0), ("", 7, 0), ("speed/1", 0, 137), ("ünï:cødé", 2**53 + 1, 9)],
)
def test_the_derivation_is_the_documented_recipe(
    client_seed: str, nonce: int, position: int
) -> None:
    derived = lightning(SERVER_SEED, client_seed, nonce, TERMS, position)
    assert [str(one) for one in derived] == by_hand(SERVER_SEED, client_seed, nonce, position)
    assert derived == lightning(SERVER_SEED, client_seed, nonce, TERMS, position)


def test_each_coup_of_a_shoe_has_its_own_cards_and_no_shuffle_shares_its_stream() -> None:
    draws = {lightning(SERVER_SEED, "speed/1", 0, TERMS, p) for p in range(2, 40)}
    assert len(draws) == 38
    # A client seed that spells another stream's message still reads another stream: the
    # multiplier cards have a key of their own.
    shuffle = next(byte_stream(SERVER_SEED, "a:5", 0))  # message "a:5:0:0"
    assert next(lightning_stream(SERVER_SEED, "a", 5, 0)) != shuffle  # message "a:5:0:0"
    with pytest.raises(ValueError, match="position"):
        lightning(SERVER_SEED, "a", 0, TERMS, -1)


class Counting(FairRandom):
    """Every integer below the denominator once, in order."""

    def __init__(self) -> None:
        self.next = 0

    def randrange(self, n: int, /) -> int:
        self.next += 1
        return (self.next - 1) % n


def test_the_published_fractions_are_sampled_exactly() -> None:
    for chances in (TERMS.counts, TERMS.values):
        denominator = 20 if chances is TERMS.values else 10
        counting = Counting()
        picked = Counter(_pick(counting, chances) for _ in range(denominator))
        assert {key: Fraction(n, denominator) for key, n in picked.items()} == dict(chances)
    # And the derivation's draws follow them (5,000 coups, within sampling error).
    many = [lightning(SERVER_SEED, CLIENT_SEED, nonce, TERMS) for nonce in range(5000)]
    sizes = Counter(len(one) for one in many)
    for k, chance in TERMS.counts:
        assert abs(sizes[k] / 5000 - chance) < 5 * (chance * (1 - chance) / 5000) ** 0.5
    assert all(len({one.card for one in cards}) == len(cards) for cards in many)


def multiplier_history(rounds: int = 40, *, revealed: bool = True) -> list[Any]:
    return history("multiplier", rounds, revealed=revealed)


def verify(lines: list[Any]) -> Any:
    return verify_history(parse_history(jsonl(lines).splitlines()))


def differences(lines: list[Any], index: int) -> list[str]:
    return [str(d) for d in verify(lines).rounds[index].differences]


def test_an_honest_multiplier_history_verifies_and_round_trips() -> None:
    lines = multiplier_history()
    assert verify(lines).ok and all(r.status is Status.VERIFIED for r in verify(lines).rounds)
    for line in lines:
        record = parse_record(line)
        assert record.to_json() == line
        assert record.lightning == derived_lightning(record)
        assert line["balance_after"] == (
            line["balance_before"] - record.staked - record.fees + record.win
        )
    # Some bet won with a multiplier, and each bet paid a fee of a fifth of its stake.
    assert any(bet.get("multiplier", 1) > 1 for line in lines for bet in line["bets"].values())
    assert all(5 * b["fee"] == b["stake"] for line in lines for b in line["bets"].values())
    # Classic lines carry neither (their export is as it was).
    classic = history("single-deck", 3)
    assert all("lightning" not in line for line in classic)
    assert all("fee" not in b for line in classic for b in line["bets"].values())


def test_a_changed_multiplier_card_is_named() -> None:
    lines = multiplier_history(3)
    first = lines[0]["lightning"]
    one = first[0]
    other = 8 if one["multiplier"] != 8 else 2
    assert differences(edited(lines, 0, "lightning.0.multiplier", other), 0) == [
        f"lightning.0: expected {one['card']} x{one['multiplier']}, recorded "
        f"{one['card']} x{other} (the multiplier of {one['card']})"
    ]
    card = "Ah" if one["card"] != "Ah" and all(c["card"] != "Ah" for c in first) else "2c"
    named = differences(edited(lines, 0, "lightning.0.card", card), 0)
    assert named[0] == (
        f"lightning.0: expected {one['card']} x{one['multiplier']}, recorded "
        f"{card} x{one['multiplier']} (the multiplier card)"
    )
    dropped = copy.deepcopy(lines)
    last = dropped[0]["lightning"].pop()
    assert differences(dropped, 0)[0] == (
        f"lightning.{len(first) - 1}: expected {last['card']} x{last['multiplier']}, "
        "recorded null (a multiplier card missing)"
    )


def test_the_money_of_a_multiplier_round_is_checked() -> None:
    lines = multiplier_history()
    index, bet = next(
        (i, name)
        for i, line in enumerate(lines)
        for name, b in line["bets"].items()
        if b.get("multiplier", 1) > 1
    )
    placed = lines[index]["bets"][bet]
    fields = [
        d.field
        for d in verify(edited(lines, index, f"bets.{bet}.multiplier", 1)).rounds[index].differences
    ]
    assert fields == [f"bets.{bet}.multiplier"]
    fee = differences(edited(lines, index, f"bets.{bet}.fee", placed["fee"] - 1), index)
    assert fee == [
        f"bets.{bet}.fee: expected {placed['fee']}, recorded {placed['fee'] - 1} "
        f"(1/5 of the stake {placed['stake']})"
    ]
    # The balance follows the fees the rules take, whatever the line says they were.
    after = lines[index]["balance_after"]
    assert differences(edited(lines, index, "balance_after", after + 1), index) == [
        f"balance_after: expected {after}, recorded {after + 1} (balance_before "
        f"{lines[index]['balance_before']} - stakes {placed['stake']} - fees {placed['fee']} "
        f"+ win {lines[index]['win']})"
    ]


def test_a_void_returns_the_fees_too() -> None:
    lines = multiplier_history(2)
    record = parse_record(lines[1]).voided("malfunction")
    assert record.balance_after == record.balance_before and record.fees > 0
    report = verify([lines[0], record.to_json()])
    assert report.rounds[1].status is Status.VOIDED


def test_unrevealed_multiplier_cards_must_be_ones_the_terms_publish() -> None:
    lines = multiplier_history(2, revealed=False)
    assert verify(lines).ok
    assert differences(edited(lines, 0, "lightning.0.multiplier", 7), 0)[0].startswith(
        "lightning.0: expected a published multiplier, recorded "
    )


def test_a_classic_round_with_multiplier_cards_differs() -> None:
    lines = history("single-deck", 1)
    lines[0]["lightning"] = [{"card": "Ah", "multiplier": 2}]
    assert differences(lines, 0) == [
        "lightning: expected (no cards), recorded Ah x2 (single-deck has no multiplier cards)"
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"card": "Ah", "multiplier": 2}, "lightning must be a list"),
        ([{"card": "Zz", "multiplier": 2}], "lightning.0: unknown rank"),
        ([{"card": "Ah", "multiplier": 2}, {"card": "Ah", "multiplier": 3}], "distinct"),
    ],
)
def test_unreadable_multiplier_cards_name_the_line(value: Any, message: str) -> None:
    line = copy.deepcopy(multiplier_history(1)[0])
    line["lightning"] = value
    with pytest.raises(HistoryFormatError, match=message):
        parse_record(line, 3)
    assert Lightning(Card.parse("Ah"), 2) == Lightning.from_json({"card": "Ah", "multiplier": 2})


DOC = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
VECTOR_SEED = bytes(range(32)).hex()


def test_the_docs_python_and_vectors_are_the_derivation() -> None:
    section = DOC[DOC.index("## Multiplier cards") : DOC.index("## What you can check")]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    rows = re.findall(
        r"^\| `([^`]*)` \| (\d+) \| (\d+) \| `([0-9a-f]{64})` \| `([^`]+)` \|$", section, re.M
    )
    assert len(rows) == 3
    for client_seed, nonce, position, block, shown in rows:
        args = (VECTOR_SEED, client_seed, int(nonce), int(position))
        assert next(lightning_stream(*args)).hex() == block
        assert " ".join(map(str, lightning(*args[:3], TERMS, int(position)))) == shown
    printed = out.getvalue().splitlines()
    assert printed == [rows[0][4], rows[2][4]]
    key = hmac.new(bytes.fromhex(VECTOR_SEED), b"baccarat-lightning/1", hashlib.sha256)
    assert f"`{key.hexdigest()}`" in section
