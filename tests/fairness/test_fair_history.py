"""Reading the history export: what is malformed is refused with its line and field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from baccarat.fairness.history import HistoryFormatError, parse_history, parse_record

from .samples import edited, history, jsonl


def read(lines: list[Any]) -> None:
    parse_history(jsonl(lines).splitlines())


def test_blank_lines_are_skipped_and_lines_keep_their_numbers() -> None:
    text = "\n" + jsonl(history("single-deck", 2)).replace("\n", "\n\n", 1)
    records = parse_history(text.splitlines())
    assert [r.line for r in records] == [2, 4]


def test_unknown_keys_are_ignored() -> None:
    lines = history("single-deck", 1)
    lines[0]["future_field"] = {"anything": 1}
    lines[0]["fairness"]["extra"] = True
    read(lines)


def test_table_id_mode_and_time_may_be_absent() -> None:
    lines = history("single-deck", 1)
    for key in ("table_id", "mode", "time"):
        del lines[0][key]
    read(lines)


MALFORMED = [
    ("format", "baccarat-history/2", "format must be 'baccarat-history/1'"),
    ("rules", "blackjack", "rules: unknown rule set 'blackjack'"),
    ("id", 7, "id must be a string, not 7"),
    ("fairness.nonce", -1, "fairness.nonce must be at least 0, not -1"),
    ("fairness.nonce", "3", 'fairness.nonce must be a whole number, not "3"'),
    ("fairness.nonce", True, "fairness.nonce must be a whole number, not true"),
    ("fairness.server_seed", "abc", "fairness.server_seed must be 64 lowercase hex"),
    ("fairness.commitment", None, "fairness.commitment must be a string"),
    ("fairness.cut", 52, "fairness.cut must be below 52"),
    ("fairness.position", 60, "fairness.position must be below 52"),
    ("fairness.client_seed", "\ud800", "fairness.client_seed must be valid Unicode text"),
    ("player.cards", ["Xx", "2c"], "player.cards: unknown rank 'X'"),
    ("player.cards", "Ah 2c", "player.cards must be a list of card strings"),
    ("banker.cards", ["Ah"], "banker.cards must hold 2 to 3 cards, not 1"),
    ("banker.scores", [10, 1], "banker.scores must be two scores 0-9"),
    ("winner", "dealer", 'winner must be player, banker or tie, not "dealer"'),
    ("bets.side", {"stake": 1, "result": "win", "returned": 2}, "unknown bet 'side'"),
    ("bets.player.stake", 0, "bets.player.stake must be at least 1, not 0"),
    ("bets.player.stake", 1.5, "bets.player.stake must be a whole number, not 1.5"),
    ("bets.player.result", "won", "bets.player.result must be one of win, push, lose, void"),
    ("win", None, "win must be a whole number, not null"),
    ("balance_after", "100", 'balance_after must be a whole number, not "100"'),
    ("void_reason", 0, "void_reason must be a string, not 0"),
    ("fairness", [], "fairness must be a JSON object"),
]


@pytest.mark.parametrize(("path", "value", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_field_names_line_and_field(path: str, value: Any, message: str) -> None:
    # Line 3 holds a player bet (the sample's third round).
    lines = history("single-deck", 4)
    with pytest.raises(HistoryFormatError) as caught:
        read(edited(lines, 2, path, value))
    assert caught.value.line == 3
    assert str(caught.value).startswith(f"line 3: {message}")


def test_a_missing_field_is_named() -> None:
    lines = history("single-deck", 2)
    del lines[1]["fairness"]["nonce"]
    with pytest.raises(HistoryFormatError, match=r"^line 2: fairness.nonce is missing$"):
        read(lines)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"{not json", "line 1: not JSON (Expecting property name"),
        (b"[1, 2]", "line 1: each line must be a JSON object"),
        (b"\xff\xfe{}", "line 1: not UTF-8 text"),
        (b"[" * 100_000, "line 1: not JSON"),
    ],
)
def test_lines_that_are_not_json_objects(text: bytes, message: str) -> None:
    with pytest.raises(HistoryFormatError) as caught:
        parse_history([text])
    assert str(caught.value).startswith(message)


def test_void_rounds_may_hold_fewer_cards_and_no_winner() -> None:
    lines = history("single-deck", 1)
    line = lines[0] | {"void_reason": "malfunction", "winner": None}
    line["player"] = {"cards": [], "scores": [0, 0]}
    line["banker"] = {"cards": [], "scores": [0, 0]}
    (record,) = parse_history([json.dumps(line)])
    assert record.is_void and record.winner is None and record.cards_used == 0


def test_a_bet_the_rule_set_does_not_offer_is_a_format_error() -> None:
    line = json.loads(jsonl(history("single-deck", 1)).splitlines()[0])
    line["bets"]["super6"] = {"stake": 100, "result": "lose", "returned": 0}
    with pytest.raises(HistoryFormatError, match="single-deck has no super6 bet"):
        parse_record(line, 1)
