"""The JSON text the server sends and stores: json's compact text, faster."""

from __future__ import annotations

import json

import pytest

from baccarat.server.jsontext import compact


def test_the_text_is_jsons_compact_text() -> None:
    value = {"id": "r_1", "bets": {"player": {"stake": 500}}, "cards": ("As", "2c"),
             "void_reason": None, "ok": True, 3: [1.5, -2]}  # fmt: skip
    assert compact(value) == json.dumps(value, separators=(",", ":"))


def test_text_past_ascii_is_written_as_it_is_and_reads_back_the_same() -> None:
    value = {"reason": "Störung am Tisch — 台"}
    assert compact(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(compact(value)) == value


def test_integers_past_64_bits_and_unwritable_values() -> None:
    assert json.loads(compact({"n": 2**70})) == {"n": 2**70}
    with pytest.raises(TypeError):
        compact({"s": {1, 2}})
