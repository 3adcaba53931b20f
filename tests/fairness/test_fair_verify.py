"""The verifier: honest histories verify, every kind of tampering is caught and named."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from baccarat.core import PRESETS
from baccarat.fairness import commitment
from baccarat.fairness.history import parse_history, parse_record, verifier_query, void_export
from baccarat.fairness.verify import (
    VOID_AFTER,
    VOID_AFTER_WIN,
    VOID_BEFORE,
    Difference,
    HistoryReport,
    Status,
    verify_history,
)

from .samples import CLIENT_SEED, SERVER_SEED, edited, history, jsonl

OTHER_SEED = "0123456789abcdef" * 4


def verify(lines: list[Any]) -> HistoryReport:
    return verify_history(parse_history(jsonl(lines).splitlines()))


def fields(report: HistoryReport, index: int) -> list[str]:
    return [d.field for d in report.rounds[index].differences]


@pytest.mark.parametrize("rules", [p.name for p in PRESETS])
def test_an_honest_history_of_every_preset_verifies(rules: str) -> None:
    report = verify(history(rules, 8))
    assert [r.status for r in report.rounds] == [Status.VERIFIED] * 8
    assert report.ok


def test_a_cut_shoe_history_across_several_shoes_verifies() -> None:
    lines = history("mini", 90)
    nonces = {line["fairness"]["nonce"] for line in lines}
    assert nonces == {0, 1}, "the 8-deck shoe runs out after about 73 coups"
    report = verify(lines)
    assert report.counts[Status.VERIFIED] == 90


def test_rounds_under_an_unrevealed_seed_are_unverifiable_not_failed() -> None:
    report = verify(history("mini", 5, revealed=False))
    assert {r.verdict for r in report.rounds} == {"unverifiable: seed not revealed"}
    assert report.ok


# (field to change, new value, field named in the report)
TAMPERING = [
    ("player.cards.0", "Ks", "player.cards"),
    ("banker.cards.1", "As", "banker.cards"),
    ("player.scores", [9, 9], "player.scores"),
    ("winner", "tie", "winner"),
    ("bets.player.returned", 5000, "bets.player.returned"),
    ("bets.player.result", "lose", "bets.player.result"),
    ("win", 99999, "win"),
    ("balance_after", 1, "balance_after"),
    ("fairness.server_seed", OTHER_SEED, "fairness.commitment"),
    ("fairness.commitment", commitment(OTHER_SEED), "fairness.commitment"),
    ("fairness.client_seed", "someone else's seed", "player.cards"),
    ("fairness.cut", 5, "fairness.cut"),
    ("fairness.position", 1, "fairness.position"),
]


@pytest.mark.parametrize(("path", "value", "named"), TAMPERING, ids=[t[0] for t in TAMPERING])
def test_tampering_is_caught_and_named(path: str, value: Any, named: str) -> None:
    # Round 3 (index 2) of the single-deck sample is a player bet that won.
    lines = history("single-deck", 6)
    assert lines[2]["winner"] == "player" and "player" in lines[2]["bets"]
    report = verify(edited(lines, 2, path, value))
    assert report.rounds[2].status is Status.DIFFERS
    assert named in fields(report, 2)
    assert [r.status for i, r in enumerate(report.rounds) if i != 2] == [Status.VERIFIED] * 5
    assert not report.ok


def test_a_changed_card_reports_expected_and_recorded_cards() -> None:
    lines = history("single-deck", 3)
    original = lines[1]["banker"]["cards"]
    report = verify(edited(lines, 1, "banker.cards.0", "Ks" if original[0] != "Ks" else "Kd"))
    (difference,) = [d for d in report.rounds[1].differences if d.field == "banker.cards"]
    assert difference.expected == original
    assert difference.recorded[0] != original[0]
    assert str(difference).startswith(f"banker.cards: expected {' '.join(original)}, recorded ")


def test_a_changed_payout_reports_the_settled_amount() -> None:
    lines = history("single-deck", 6)
    report = verify(edited(lines, 5, "bets.banker.returned", 4900))
    (difference,) = report.rounds[5].differences
    # A 25.00 banker win returns 25.00 + 23.75 (5% commission).
    assert difference == Difference(
        "bets.banker.returned", 4875, 4900, "banker bet of 2500 on a banker win"
    )


def test_a_seed_that_does_not_match_its_commitment_is_named_first() -> None:
    lines = history("single-deck", 2)
    report = verify(edited(lines, 0, "fairness.server_seed", OTHER_SEED))
    first = report.rounds[0].differences[0]
    assert first.field == "fairness.commitment"
    assert first.expected == commitment(OTHER_SEED)
    assert first.recorded == lines[0]["fairness"]["commitment"]


def test_unrevealed_rounds_still_have_their_money_checked() -> None:
    lines = history("single-deck", 6, revealed=False)
    report = verify(edited(lines, 5, "win", 10))
    assert report.rounds[5].status is Status.DIFFERS
    assert fields(report, 5) == ["win"]


def test_unrevealed_rounds_are_checked_against_the_tableau() -> None:
    lines = history("single-deck", 6, revealed=False)
    # Round 6: player 0 draws Qc, banker 4 stands on a player third card of 0.
    assert lines[5]["banker"]["cards"] == ["4h", "Js"]
    report = verify(edited(lines, 5, "banker.cards", ["4h", "Js", "2c"]))
    diff = report.rounds[5].differences[0]
    assert diff.field == "banker.cards" and diff.expected == "2 cards"
    assert "banker 4 stands when the player's third card is 0" in diff.note


def test_unrevealed_round_where_the_player_should_have_drawn() -> None:
    lines = history("single-deck", 6, revealed=False)
    # Round 1: player 2h 9d (1) draws; drop the third card.
    report = verify(edited(lines, 0, "player.cards", ["2h", "9d"]))
    assert "player.cards" in fields(report, 0)


def test_unrevealed_natural_with_a_third_card_is_caught() -> None:
    lines = history("single-deck", 6, revealed=False)
    # Round 4: player 3h 6s is a natural 9.
    report = verify(edited(lines, 3, "player.cards", ["3h", "6s", "2c"]))
    assert report.rounds[3].differences[0].field == "player.cards"
    assert "natural" in report.rounds[3].differences[0].note


def test_a_void_round_returns_every_stake_and_is_reported_as_a_void() -> None:
    lines = history("single-deck", 3)
    won = lines[1]["win"] > sum(bet["stake"] for bet in lines[1]["bets"].values())
    lines[1] = void_export(lines[1], "malfunction")
    report = verify(lines)
    assert report.rounds[1].status is Status.VOIDED
    assert report.rounds[1].reason == (VOID_AFTER_WIN if won else VOID_AFTER)
    assert report.counts[Status.VOIDED] == 1 and report.ok


def test_a_void_round_that_keeps_a_stake_differs() -> None:
    lines = history("single-deck", 3)
    lines[2] = void_export(lines[2], "malfunction")
    lines[2]["bets"]["player"]["returned"] = 0
    report = verify(lines)
    assert fields(report, 2) == ["bets.player.returned"]
    assert report.rounds[2].differences[0].note == "a voided round returns every stake"


def test_a_void_round_may_hold_only_the_cards_dealt_before_the_malfunction() -> None:
    lines = history("single-deck", 3)
    voided = void_export(lines[0], "connection lost while dealing")
    voided["player"] = {"cards": voided["player"]["cards"][:2], "scores": [1, 1]}
    voided["banker"] = {"cards": voided["banker"]["cards"][:1], "scores": [0, 0]}
    voided["winner"] = None
    report = verify([voided, *lines[1:]])
    assert report.rounds[0].status is Status.VOIDED, report.rounds[0].differences
    assert report.rounds[0].reason == VOID_BEFORE
    voided["banker"]["cards"] = ["9s"]
    report = verify([voided, *lines[1:]])
    assert fields(report, 0) == ["banker.cards"]


def test_a_void_round_that_names_a_winner_of_an_unfinished_coup_differs() -> None:
    lines = history("single-deck", 1)
    voided = void_export(lines[0], "malfunction")
    voided["player"] = {"cards": voided["player"]["cards"][:2], "scores": [1, 1]}
    report = verify([voided])
    assert fields(report, 0) == ["winner"]


def test_a_fresh_shuffle_nonce_used_twice_is_caught() -> None:
    lines = history("single-deck", 3)
    replay = dict(lines[0], id="r_replayed")
    report = verify([*lines, replay])
    assert fields(report, 3) == ["fairness.nonce"]
    assert "already used on line 1" in report.rounds[3].differences[0].note


def test_overlapping_coups_in_one_shoe_are_caught() -> None:
    lines = history("mini", 3)
    replay = dict(lines[1], id="r_replayed")
    report = verify([*lines, replay])
    assert fields(report, 3) == ["fairness.position"]
    assert "overlaps the coup on line 3" in report.rounds[3].differences[0].note


def test_one_shoe_keeps_its_client_seed_and_cut() -> None:
    lines = history("mini", 3)
    report = verify(edited(lines, 2, "fairness.cut", lines[2]["fairness"]["cut"] - 1))
    assert "fairness.cut" in fields(report, 2)


def test_a_cut_shoe_coup_cannot_start_among_the_burned_cards_or_after_the_cut_card() -> None:
    lines = history("mini", 1)
    burned = lines[0]["fairness"]["position"]
    report = verify(edited(lines, 0, "fairness.position", burned - 1))
    assert report.rounds[0].differences[0].field == "fairness.position"
    assert report.rounds[0].differences[0].expected == f"at least {burned}"
    report = verify(edited(lines, 0, "fairness.position", 364))
    assert report.rounds[0].differences[0].expected == "below 364"


def test_a_fresh_table_has_no_cut_and_deals_from_the_top() -> None:
    lines = history("single-deck", 1)
    report = verify(edited(lines, 0, "fairness.position", 4))
    assert fields(report, 0) == ["fairness.position"]


def test_report_json_is_the_documented_contract() -> None:
    lines = history("single-deck", 3)
    data = verify(edited(lines, 1, "win", 7)).to_json()
    assert data["format"] == "baccarat-verify/1"
    assert data["ok"] is False
    assert data["summary"] == {"rounds": 3, "verified": 2, "unverifiable": 0, "differs": 1}
    assert data["rounds"][1]["status"] == "differs"
    assert data["rounds"][1]["differences"][0]["field"] == "win"
    assert set(data["rounds"][0]) == {"line", "id", "status", "reason", "differences"}


def test_records_round_trip_through_json() -> None:
    for line in history("mini", 4) + history("single-deck", 2):
        assert parse_record(line, 1).to_json() == line


def test_verifier_query_carries_what_the_page_needs() -> None:
    record = parse_record(history("mini", 2)[1], 2)
    query = parse_qs(verifier_query(record))
    assert query["server_seed"] == [SERVER_SEED]
    assert query["client_seed"] == [CLIENT_SEED]
    assert query["decks"] == ["8"] and query["rules"] == ["mini"]
    assert query["position"] == [str(record.fairness.position)]
    assert query["cut"] == [str(record.fairness.cut)]
    assert query["commitment"] == [commitment(SERVER_SEED)]


def test_an_export_written_before_side_bets_still_verifies() -> None:
    # Written by `baccarat fair example-history` as it was before side bets (commit b271ecf).
    path = Path(__file__).parent.parent / "data" / "history-before-side-bets.ndjson"
    with path.open("rb") as stream:
        records = parse_history(stream)
    report = verify_history(records)
    assert [r.status for r in report.rounds] == [Status.VERIFIED] * 6
    assert {b.bet for r in records for b in r.bets} <= {"player", "banker", "tie"}
