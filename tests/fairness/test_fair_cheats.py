"""A cheating operator against the verifier: each way of choosing outcomes is named.

The exports come from ``cheats.py``, the same cases the browser's verifier reads from
``tests/data/export_vectors.json``; the CLI's exit status and wording are checked here too.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli
from baccarat.cli.fair import UNSIGNED_EXIT
from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import (
    VOID_AFTER_WIN,
    VOID_BEFORE,
    HistoryReport,
    Kind,
    Status,
    verify_history,
)

from . import cheats
from .samples import jsonl

CASES = cheats.build()["cases"]


def verify(lines: list[Any]) -> HistoryReport:
    return verify_history(parse_history(jsonl(lines).splitlines()))


def run_cli(
    tmp_path: Path, lines: list[Any], capsys: pytest.CaptureFixture[str], *options: str
) -> tuple[int, str]:
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(lines), encoding="utf-8")
    capsys.readouterr()
    status = cli(["verify", str(path), *options])
    return status, capsys.readouterr().out


def test_the_export_vectors_file_is_what_the_cheats_build() -> None:
    stored = json.loads(cheats.EXPORT_VECTORS_PATH.read_text(encoding="utf-8"))
    assert stored == json.loads(cheats.text(cheats.build()))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_export_vector_gets_the_verdicts_it_was_built_for(case: dict[str, Any]) -> None:
    report = verify_history(parse_history(jsonl(case["lines"]).splitlines()), *cheats.inputs(case))
    expect = case["expect"]
    assert [r.status.value for r in report.rounds] == expect["statuses"], report.summary()
    differences = {
        str(r.line): sorted({d.field for d in r.differences})
        for r in report.rounds
        if r.differences
    }
    assert differences == {line: sorted(f) for line, f in expect["differences"].items()}
    assert sorted(f.kind.value for f in report.findings) == sorted(expect["findings"])
    assert report.voided_after_win == expect["voided_after_win"]
    assert report.balance_breaks == expect["balance_breaks"]
    assert report.server_client_seeds == expect["server_client_seeds"]
    assert report.ok is expect["ok"]
    assert report.verdict.value == expect["verdict"]


def test_an_operator_that_skips_nonces_until_the_player_loses_fails_verification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.skipping_nonces(40)
    assert all(line["bets"]["player"]["result"] == "lose" for line in lines)
    status, out = run_cli(tmp_path, lines, capsys)
    assert status == 1
    (finding,) = [line for line in out.splitlines() if line.startswith("finding:")]
    skipped = lines[-1]["fairness"]["nonces_used"] - 40
    assert f"{skipped} of its {skipped + 40} nonces dealt no round" in finding
    assert out.splitlines()[-1].startswith("40 rounds: 40 verified")
    assert "1 finding" in out.splitlines()[-1]


def test_an_operator_that_publishes_only_the_nonces_it_dealt_is_caught_by_the_nonces_beyond() -> (
    None
):
    lines = cheats.skipping_nonces(40)
    for line in lines:
        line["fairness"]["nonces_used"] = 40
    report = verify(lines)
    beyond = [r for r in report.rounds if r.status is Status.DIFFERS]
    assert beyond and all(d.field == "fairness.nonce" for r in beyond for d in r.differences)
    assert not report.ok


def test_an_operator_that_skips_cards_of_a_cut_shoe_until_the_player_loses_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.skipping_cards(30)
    assert all(line["bets"]["player"]["result"] == "lose" for line in lines)
    status, out = run_cli(tmp_path, lines, capsys)
    assert status == 1
    assert "went to no coup" in out


def test_a_round_removed_from_the_middle_of_an_export_is_a_nonce_gap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.honest("single-deck", 10)
    gone = lines.pop(4)
    status, out = run_cli(tmp_path, lines, capsys)
    assert status == 1
    assert f"nonce(s) {gone['fairness']['nonce']} " in out


def test_an_export_without_nonces_used_verifies_and_says_what_it_could_not_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.honest("single-deck", 6)
    for line in lines:
        del line["fairness"]["nonces_used"], line["fairness"]["undealt_shoes"]
    status, out = run_cli(tmp_path, lines, capsys, "--accept-unsigned")
    assert status == 0
    assert "without nonces_used" in out and "could not be checked" in out


def test_a_shared_shoe_is_the_one_shuffle_of_its_seed_not_a_commitment_missing_its_count() -> None:
    # The shoe's own record, and a bettor's export of shared, house, cut-shoe and seat rounds.
    mixed = json.loads(cheats.MIXED_EXPORT_PATH.read_text(encoding="utf-8"))["lines"]
    assert any("shared" in line for line in mixed)
    for lines in (cheats.shared_shoe(beacon=None), mixed):
        report = verify(lines)
        assert report.ok, [str(f) for f in report.findings]
        assert not [n for n in report.notes if "without nonces_used" in n.message]
    # Its seed is shuffled once: a shoe dealt from another of its shuffles is named.
    chosen = verify(cheats.shared_shoe(beacon=None, nonce=1))
    assert {d.field for r in chosen.rounds for d in r.differences} == {"fairness.nonce"}
    assert "shuffled once (nonce 0, cut 0)" in chosen.rounds[0].differences[0].note


def test_a_shoe_cut_and_never_dealt_accounts_for_its_nonce() -> None:
    lines = cheats.honest("single-deck", 6)
    # The player cut a shoe at mini with nonce 6 and rotated before dealing from it.
    for line in lines:
        line["fairness"]["nonces_used"] = 7
        line["fairness"]["undealt_shoes"] = [{"nonce": 6, "table_id": "mini", "cut": 40}]
    report = verify(lines)
    assert report.ok, [str(f) for f in report.findings]
    (note,) = [n for n in report.notes if n.kind is Kind.UNDEALT]
    assert "nonce 6 is a shoe you cut at mini, cut at 40" in note.message
    # Without that record, nonce 6 is a gap.
    for line in lines:
        line["fairness"]["undealt_shoes"] = []
    assert [f.kind for f in verify(lines).findings] == [Kind.NONCE_GAP]


def test_an_undealt_shoe_whose_nonce_dealt_a_round_is_a_finding() -> None:
    lines = cheats.honest("single-deck", 3)
    for line in lines:
        line["fairness"]["undealt_shoes"] = [{"nonce": 1, "table_id": "mini", "cut": 0}]
    report = verify(lines)
    assert [f.kind for f in report.findings] == [Kind.UNDEALT]
    assert "dealt the round on line 2" in report.findings[0].message


def test_lines_that_disagree_on_nonces_used_are_a_finding() -> None:
    lines = cheats.honest("single-deck", 3)
    lines[1]["fairness"]["nonces_used"] += 1
    report = verify(lines)
    assert Kind.NONCES_USED in [f.kind for f in report.findings]


def test_rounds_banked_for_another_player_are_left_out_of_the_nonce_check() -> None:
    # A banker's export holds only the rounds it banked: the player's other nonces are not
    # in it, and no gap is claimed.
    lines = cheats.honest("single-deck", 6)[::2]
    for line in lines:
        line |= {"role": "banker", "fee": 0}
        line["balance_before"], line["balance_after"] = (
            50_000,
            50_000 + sum(b["stake"] for b in line["bets"].values()) - line["win"],
        )
    report = verify(lines)
    assert report.findings == (), [str(f) for f in report.findings]
    assert any("rounds you banked" in n.message for n in report.notes)


def test_a_nulled_seed_is_checked_with_the_seed_revealed_on_another_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.honest("single-deck", 4)
    original = copy.deepcopy(lines)
    lines[2]["fairness"]["server_seed"] = None
    assert verify(lines).rounds[2].status is Status.VERIFIED
    lines[2]["banker"]["cards"][0] = cheats.other_card(lines[2]["banker"]["cards"][0])
    status, out = run_cli(tmp_path, lines, capsys)
    assert status == 1
    assert "banker.cards: expected " + " ".join(original[2]["banker"]["cards"]) in out


def test_a_seed_that_differs_from_the_one_its_commitment_revealed_is_named() -> None:
    lines = cheats.honest("single-deck", 3)
    lines[1]["fairness"]["server_seed"] = "ab" * 32
    report = verify(lines)
    assert "fairness.server_seed" in {d.field for d in report.rounds[1].differences}
    assert "revealed on line 1" in str(report.rounds[1].differences)


def test_a_void_after_a_win_is_reported_as_such_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.honest("single-deck", 8)
    won = cheats.winning_line(lines)
    lines[won] = cheats.void_export(lines[won], "malfunction")
    status, out = run_cli(tmp_path, lines, capsys)
    assert f"line {won + 1:>4}  {lines[won]['id']}  voided after a win" in out
    assert "1 voided (1 after a win)" in out.splitlines()[-1]
    assert "balance chain: 1 break" in out.splitlines()[-1]
    assert status == UNSIGNED_EXIT  # nothing differs; no key checked the signatures
    report = verify(lines)
    assert report.rounds[won].reason == VOID_AFTER_WIN
    assert report.to_json()["summary"]["voided_after_win"] == 1


def test_a_void_before_the_result_is_a_void_of_its_own() -> None:
    lines = cheats.honest("single-deck", 3)
    voided = cheats.void_export(lines[1], "connection lost while dealing")
    voided["player"] = {"cards": voided["player"]["cards"][:1], "scores": [0, 0]}
    voided["player"]["scores"] = [int(lines[1]["player"]["scores"][0] * 0)] * 2
    voided["banker"] = {"cards": [], "scores": [0, 0]}
    voided["winner"] = None
    report = verify([lines[0], voided, lines[2]])
    card = voided["player"]["cards"][0]
    value = min("A23456789TJQK".index(card[0]) + 1, 10) % 10
    voided["player"]["scores"] = [value, value]
    report = verify([lines[0], voided, lines[2]])
    assert report.rounds[1].status is Status.VOIDED, report.rounds[1].differences
    assert report.rounds[1].reason == VOID_BEFORE


def test_the_balance_chain_names_money_moved_between_rounds() -> None:
    lines = cheats.honest("single-deck", 4)
    for line in lines[2:]:  # a deposit of 50.00 before round 3
        line["balance_before"] += 5_000
        line["balance_after"] += 5_000
    report = verify(lines)
    (note,) = [n for n in report.notes if n.kind is Kind.BALANCE]
    assert note.amount == 5_000 and note.lines == (2, 3)
    assert report.ok


def test_rounds_with_the_servers_client_seed_are_named_not_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.seat(sources=("client", "server"))
    status, out = run_cli(tmp_path, lines, capsys, "--accept-unsigned")
    assert status == 0
    named = "note: 4 round(s) dealt with a client seed the server set, not you (line(s) 2, 4, 6, 8)"
    assert named in out
    assert out.rstrip().endswith("; 4 with the server's client seed")


def test_a_seat_dealt_from_one_participants_client_seed_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_cli(tmp_path, cheats.seat(client=cheats.PLAYER_CLIENT), capsys)
    assert status == 1
    expected = json.dumps([cheats.BANKER_CLIENT, cheats.PLAYER_CLIENT], separators=(",", ":"))
    assert f"fairness.client_seed: expected {expected}, recorded player:p" in out


# -- signatures and receipts (issue: the commitment must not vouch for itself) --------------


def write_json(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_the_cli_names_every_line_of_a_history_fabricated_afterwards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The casino's published keys, as GET /api/fairness gives them.
    keys = write_json(tmp_path / "fairness.json", {"signing_keys": cheats.CASINO.keys_json()})
    made_up = cheats.fabricated(6)
    for lines, says in (
        (made_up, "recorded null (the line carries no signature of the casino)"),
        (cheats.signed(made_up, cheats.FORGER), "not one of the casino's public keys"),
    ):
        path = tmp_path / "export.jsonl"
        path.write_text(jsonl(lines), encoding="utf-8")
        capsys.readouterr()
        assert cli(["verify", str(path), "--keys", keys]) == 1
        out = capsys.readouterr().out
        assert out.count("    signature: expected a valid signature by key") == 6, out
        assert says in out
        assert out.splitlines()[-1].endswith("6 differ")
        # Without the keys nothing else differs: the signature is what tells it apart, and
        # the verdict says it was not checked.
        capsys.readouterr()
        assert cli(["verify", str(path)]) == UNSIGNED_EXIT
        assert capsys.readouterr().out.startswith("SIGNATURES NOT CHECKED")


def test_the_cli_names_a_signed_line_changed_afterwards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = write_json(tmp_path / "keys.json", [cheats.CASINO.public_key])
    lines = cheats.signed(cheats.honest("single-deck", 5))
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(lines), encoding="utf-8")
    assert cli(["verify", str(path), "--keys", keys]) == 0
    lines[2]["win"] += 1
    lines[2]["balance_after"] += 1
    path.write_text(jsonl(lines), encoding="utf-8")
    capsys.readouterr()
    assert cli(["verify", str(path), "--keys", keys]) == 1
    out = capsys.readouterr().out
    assert "line    3  r_000003  differs" in out
    assert "signature: expected a valid signature by key" in out and "changed afterwards" in out


def test_the_cli_names_a_commitment_swapped_after_the_receipt_was_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = cheats.signed(cheats.honest("single-deck", 4))
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(lines), encoding="utf-8")
    before = "2026-01-01T11:59:00Z"
    shown = cheats.commitment("c0de" * 16)
    swapped = write_json(tmp_path / "swapped.json", cheats.receipts((shown, before)))
    capsys.readouterr()
    assert cli(["verify", str(path), "--receipts", swapped]) == 1
    out = capsys.readouterr().out
    assert out.count(f"fairness.commitment: expected {shown}") == 4
    assert "the revealed server seed does not hash to it" in out
    honest = write_json(
        tmp_path / "honest.json", cheats.receipts((lines[0]["fairness"]["commitment"], before))
    )
    assert cli(["verify", str(path), "--receipts", honest, "--json"]) == 0
    # A receipt the casino did not sign is named and not used.
    forged = write_json(
        tmp_path / "forged.json", cheats.receipts((shown, before), signer=cheats.FORGER)
    )
    capsys.readouterr()
    assert cli(["verify", str(path), "--receipts", forged]) == 1
    assert "finding: receipt 1 (commitment" in capsys.readouterr().out


def test_the_cli_clears_an_honest_mixed_export_with_its_receipts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = json.loads(cheats.MIXED_EXPORT_PATH.read_text(encoding="utf-8"))
    receipts = write_json(tmp_path / "receipts.json", mixed["receipts"])
    status, out = run_cli(tmp_path, mixed["lines"], capsys, "--receipts", receipts)
    waiting = mixed["statuses"].count("unverifiable")
    assert status == 0, out
    assert out.startswith("VERIFIED: ")
    assert out.splitlines()[-1].endswith(f"{waiting} unverifiable (seed not revealed), 0 differ")


def test_without_keys_a_signed_export_says_what_was_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_cli(tmp_path, cheats.signed(cheats.honest("single-deck", 3)), capsys)
    assert status == UNSIGNED_EXIT
    assert f"note: 3 of 3 lines are signed (key {cheats.CASINO.key_id})" in out
    # Accepted unsigned: exit 0, and the headline still says what was not checked.
    status, out = run_cli(tmp_path, cheats.signed(cheats.honest("single-deck", 3)), capsys,
                          "--accept-unsigned")  # fmt: skip
    assert status == 0
    assert out.startswith("SIGNATURES NOT CHECKED (no public key of the casino given")


def test_an_export_cut_short_and_made_consistent_is_not_green_without_keys_and_fails_with_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    honest = cheats.signed(cheats.honest("single-deck", 8))
    doctored = cheats.cut_short(honest)
    assert len(doctored) == 7
    assert {line["fairness"]["nonces_used"] for line in doctored} == {7}
    # Without keys: nothing else differs, but the verdict is not "verified" (nor exit 0), and
    # its first line says what could not be checked.
    status, out = run_cli(tmp_path, doctored, capsys)
    assert status == UNSIGNED_EXIT
    first = out.splitlines()[0]
    assert first.startswith("SIGNATURES NOT CHECKED (no public key of the casino given")
    assert "cannot be told from the real one" in first
    assert out.splitlines()[-1].startswith("7 rounds: 7 verified, 0 unverifiable")
    status, out = run_cli(tmp_path, doctored, capsys, "--json")
    report = json.loads(out)
    assert status == UNSIGNED_EXIT
    assert (report["verdict"], report["signatures_checked"]) == ("signatures_not_checked", False)
    # With the casino's published keys: every line's signature fails (nonces_used is signed).
    keys = write_json(tmp_path / "fairness.json", {"signing_keys": cheats.CASINO.keys_json()})
    status, out = run_cli(tmp_path, doctored, capsys, "--keys", keys)
    assert status == 1
    assert out.splitlines()[0] == "FAILS: 7 rounds differ"
    assert out.count("changed afterwards, or another key") == 7
    # The honest export with the keys: verified, exit 0.
    status, out = run_cli(tmp_path, honest, capsys, "--keys", keys)
    assert status == 0
    assert out.splitlines()[0].startswith("VERIFIED: every round checks out")


def test_unreadable_keys_or_receipts_are_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text(jsonl(cheats.honest("single-deck", 2)), encoding="utf-8")
    bad = write_json(tmp_path / "bad.json", {"format": "something else"})
    assert cli(["verify", str(path), "--receipts", bad]) == 2
    assert "not a receipts file" in capsys.readouterr().err
    assert cli(["verify", str(path), "--keys", write_json(tmp_path / "k.json", ["abc"])]) == 2
