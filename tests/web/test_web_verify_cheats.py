"""The browser verifier on real exports from a real server: every kind of house table
verifies, with its voids, and every line's signature with the casino's published keys,
which the page fetches (a visitor who is not logged in too); the same export, cut or changed
by a cheat, shows the finding; and without the keys (their request blocked) an export
doctored to be consistent in itself is not shown as verified.

A server of its own (a subprocess on a temporary SQLite database), so that the operator's
void (``baccarat admin void``) can reach its database.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli
from tests.fairness import cheats
from tests.fairness.samples import jsonl

from .webtools import Player, console_errors, new_nickname, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("verify-server")
    with serving(data) as url:
        yield url, data


def rounds_of(who: Player, table: str, count: int, **bets: int) -> list[dict[str, Any]]:
    played = []
    for _ in range(count):
        response = who.context.request.post(
            f"{who.base_url}/api/tables/{table}/rounds",
            data=json.dumps({"mode": "fun", "bets": bets}),
            headers={"Content-Type": "application/json", "Idempotency-Key": uuid.uuid4().hex,
                     **who.csrf()},
        )  # fmt: skip
        assert response.ok, response.text()
        played.append(response.json())
    return played


def export(player: Player) -> str:
    response = player.context.request.get(f"{player.base_url}/api/history/export")
    assert response.ok, response.text()
    return str(response.text())


def open_verifier(player: Player, text: str, path: Path) -> Any:
    path.write_text(text)
    page = player.page
    page.goto(f"{player.base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    page.set_input_files("#export-file", str(path))
    page.wait_for_selector("body[data-export-verified='true']", timeout=30_000)
    return page


def test_a_real_export_verifies_in_the_page_and_a_round_cut_from_it_is_a_finding(
    browser: Any, server: tuple[str, Path], tmp_path: Path
) -> None:
    url, data = server
    context = browser.new_context()
    try:
        player = Player(context, url, new_nickname())
        player.register_and_login()
        requests: list[str] = []
        player.page.on("request", lambda request: requests.append(request.url))
        fresh = rounds_of(player, "table-i", 4, player=500)
        player.api("POST", "/api/tables/mini/shoe", {"mode": "fun", "cut": 150})
        rounds_of(player, "mini", 5, banker=200)
        won = next((r for r in fresh if r["win"] > 500), fresh[0])
        assert cli(["admin", "--data-dir", str(data), "--database",
                    f"sqlite:///{data / 'web.db'}", "void", won["id"],
                    "--reason", "malfunction"]) == 0  # fmt: skip
        # The shoe is dealt to its cut card: a rotation takes effect at the next shoe.
        dealt = player.finish_shoe("mini", {"banker": 200})
        player.api("POST", "/api/fairness/rotate", {"mode": "fun"})
        text = export(player)
        lines = text.splitlines()
        assert len(lines) == 9 + dealt
        assert all("nonces_used" in json.loads(x)["fairness"] for x in lines)
        page = open_verifier(player, text, tmp_path / "honest.jsonl")
        assert page.get_attribute("body", "data-export-ok") == "true", page.text_content(
            "#export-text"
        )
        # Checked with the casino's published keys: every line's signature too.
        assert page.get_attribute("body", "data-keys") == "fetched"
        assert page.get_attribute("body", "data-export-verdict") == "verified"
        assert page.get_attribute("#export-verdict", "class") == "check ok"
        assert page.locator("#export-rounds tr[data-status='voided']").count() == 1
        assert page.locator("#export-findings li").count() == 0
        # The server serves the BLS library the page checks a beacon round's signature with.
        assert page.evaluate("typeof globalThis.nobleBls12381?.shortSignatures.verify") == (
            "function"
        )
        # No browser page set a client seed for this API client: the page names its rounds.
        note = page.locator("#export-notes li[data-kind='server_client_seed']")
        assert f"{len(lines)} round(s) dealt with a client seed the server set" in str(
            note.text_content()
        )
        # The page asked the server for nothing but its own files and the casino's keys.
        asked = {u.removeprefix(url) for u in requests if "/api/" in u or "/i18n/" in u}
        assert asked == {"/api/fairness/keys"}, requests

        # The operator leaves a round out of the export (say, one the player won).
        cut = [x for x in lines if json.loads(x)["id"] != fresh[2]["id"]]
        page = open_verifier(player, "\n".join(cut) + "\n", tmp_path / "cut.jsonl")
        assert page.get_attribute("body", "data-export-ok") == "false"
        finding = page.locator("#export-findings li.finding[data-kind='nonce_gap']")
        assert finding.is_visible()
        assert f"nonce(s) {fresh[2]['fairness']['nonce']} " in str(finding.text_content())
        assert player.errors == []
    finally:
        context.close()


def test_the_table_keeps_the_signed_commitment_and_the_verifier_checks_the_export_with_it(
    browser: Any, server: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = server
    context = browser.new_context()
    try:
        player = Player(context, url, new_nickname())
        player.register_and_login()
        player.goto("table/table-i")
        shown = player.api("GET", "/api/fairness")
        player.page.wait_for_function("localStorage.getItem('baccarat.receipts') !== null")
        kept = json.loads(player.page.evaluate("localStorage.getItem('baccarat.receipts')"))
        assert kept["format"] == "baccarat-receipts/1"
        assert kept["signing_keys"] == [
            {k: key[k] for k in ("key_id", "public_key")} for key in shown["signing_keys"]
        ]
        fun = next(r for r in kept["receipts"] if r["mode"] == "fun")
        assert (fun["commitment"], fun["signature"], fun["table"]) == (
            shown["fun"]["commitment"], shown["fun"]["signature"], "table-i"
        )  # fmt: skip
        rounds_of(player, "table-i", 3, player=500)
        player.api("POST", "/api/fairness/rotate", {"mode": "fun"})
        text = export(player)
        page = open_verifier(player, text, tmp_path / "signed.jsonl")
        # Both modes' commitments: the fresh shuffles' seed and the cut shoes'.
        assert "Using the 4 receipts" in str(page.text_content("#receipts-status"))
        assert page.get_attribute("body", "data-export-ok") == "true", page.text_content(
            "#export-text"
        )
        # The same rounds under a commitment other than the one the table showed.
        lines = [json.loads(line) for line in text.splitlines()]
        for line in lines:
            line["fairness"]["commitment"] = "ab" * 32
        page = open_verifier(player, "".join(json.dumps(x) + "\n" for x in lines),
                             tmp_path / "swapped.jsonl")  # fmt: skip
        assert page.get_attribute("body", "data-export-ok") == "false"
        first = page.locator("#export-rounds tr[data-line='1']")
        named = first.locator("[data-field='fairness.commitment']").all_text_contents()
        assert any("not the commitment shown before play" in text for text in named), named
        assert first.locator("[data-field='signature']").count() == 1
        assert player.errors == []
    finally:
        context.close()


def test_an_export_cut_short_fails_with_the_published_keys_and_is_not_green_without_them(
    browser: Any, server: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = server
    context = browser.new_context()
    # Someone who is not logged in at the casino (a regulator, a journalist, the player on
    # another browser): the casino publishes its keys to anyone.
    anonymous = browser.new_context()
    try:
        player = Player(context, url, new_nickname())
        player.register_and_login()
        rounds_of(player, "table-i", 4, player=500)
        player.api("POST", "/api/fairness/rotate", {"mode": "fun"})
        lines = [json.loads(line) for line in export(player).splitlines()]
        assert [line["fairness"]["nonces_used"] for line in lines] == [4] * 4
        # The last round removed, and nonces_used lowered by one on every line.
        doctored = jsonl(cheats.cut_short(lines))
        visitor = Player(anonymous, url, "visitor")
        errors = console_errors(visitor)
        assert anonymous.cookies() == []
        page = open_verifier(visitor, doctored, tmp_path / "doctored.jsonl")
        assert page.get_attribute("body", "data-keys") == "fetched"
        assert page.get_attribute("body", "data-export-verdict") == "fails"
        assert page.get_attribute("#export-verdict", "class") == "check bad"
        signatures = page.locator("#export-rounds tr[data-status='differs'] "
                                  "[data-field='signature']")  # fmt: skip
        assert signatures.count() == 3
        assert "changed afterwards" in str(signatures.first.text_content())

        # The keys cannot be fetched (offline, blocked): nothing else differs, and the verdict
        # is neither green nor silent about it.
        page.route("**/api/fairness/keys", lambda route: route.abort())
        page = open_verifier(visitor, doctored, tmp_path / "doctored.jsonl")
        assert page.get_attribute("body", "data-keys") == "missing"
        assert page.get_attribute("body", "data-export-ok") == "true"  # nothing differs
        assert page.get_attribute("body", "data-export-verdict") == "signatures_not_checked"
        verdict = page.locator("#export-verdict")
        assert verdict.get_attribute("class") == "check warn"
        shown = str(verdict.text_content())
        assert shown.startswith("\u26a0 Signatures NOT checked: the casino's public keys could not")
        assert "cannot be told from the real one" in shown
        assert "Every round checks out" not in str(page.text_content("#export-result"))
        assert "could not be fetched" in str(page.text_content("#keys-status"))
        assert str(page.text_content("#export-text")).startswith("SIGNATURES NOT CHECKED")
        # Every note is named in words (the server's client seed had no name of its own).
        assert "verify.kind_" not in str(page.text_content("#export-notes"))
        assert player.errors == [] and visitor.errors == [] and errors == []
    finally:
        anonymous.close()
        context.close()
