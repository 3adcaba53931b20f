"""The verifier page in a real browser (Debian's chromium driven by Playwright).

Serves src/baccarat/web from a local static server on 127.0.0.1, opens verify.html with
the query parameters a history links with, and reads what the page shows. Skipped, with
the reason, when Playwright or /usr/bin/chromium is missing.
"""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from baccarat.fairness.history import parse_history
from baccarat.fairness.verify import verify_history

from ..web.webtools import Contexts
from . import cheats
from .cheats import EXPORT_VECTORS_PATH
from .vectors import VECTORS_PATH

CHROMIUM = Path("/usr/bin/chromium")
WEB = Path(__file__).resolve().parents[2] / "src" / "baccarat" / "web"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VECTORS = json.loads(VECTORS_PATH.read_text())["vectors"]
MINI = next(v for v in VECTORS if v["rules"] == "mini")

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)", allow_module_level=True)


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(WEB))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def contexts(browser: Any, base_url: str) -> Iterator[Contexts]:
    with Contexts(browser, base_url) as kept:
        yield kept


@pytest.fixture
def page(contexts: Contexts) -> Iterator[Any]:
    with contexts.page() as page:
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.requests = requests
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
    assert not errors, errors


def query(vector: dict[str, Any], **extra: Any) -> str:
    params = {
        "server_seed": vector["server_seed"],
        "client_seed": vector["client_seed"],
        "nonce": vector["nonce_text"],
        "decks": vector["decks"],
        "position": vector["position"],
        "commitment": vector["commitment"],
    }
    if vector["cut"] is not None:
        params["cut"] = vector["cut"]
    if vector["rules"]:
        params["rules"] = vector["rules"]
    params |= extra
    return urlencode(params)


def open_verified(page: Any, base_url: str, vector: dict[str, Any], **extra: Any) -> None:
    page.goto(f"{base_url}/verify.html?{query(vector, **extra)}")
    page.wait_for_selector("body[data-verified='true']", timeout=15_000)


def test_page_shows_the_vector_order_coup_and_matching_commitment(page: Any, base_url: str) -> None:
    open_verified(page, base_url, MINI)
    order = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert order == MINI["order"]
    assert page.text_content("#commitment") == MINI["commitment"]
    assert "matches" in page.text_content("#commitment-check")
    player = page.eval_on_selector_all("#player-cards .card", "cs => cs.map(c => c.dataset.card)")
    banker = page.eval_on_selector_all("#banker-cards .card", "cs => cs.map(c => c.dataset.card)")
    assert player == MINI["coup"]["player"]["cards"]
    assert banker == MINI["coup"]["banker"]["cards"]
    assert page.get_attribute("#coup-winner", "data-winner") == MINI["coup"]["winner"]
    burned = page.eval_on_selector_all("#order li.burned", "items => items.length")
    assert burned == MINI["burn"]["cards_burned"]
    # Everything came from the local server: no fetch went anywhere else.
    assert page.requests and all(url.startswith(base_url) for url in page.requests)


def test_page_handles_a_nonce_beyond_javascript_numbers(page: Any, base_url: str) -> None:
    (vector,) = [v for v in VECTORS if v["nonce"] > 2**53]
    open_verified(page, base_url, vector)
    order = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert order == vector["order"]


def test_page_flags_a_commitment_that_does_not_match(page: Any, base_url: str) -> None:
    open_verified(page, base_url, VECTORS[0], commitment="0" * 64)
    assert "does NOT match" in page.text_content("#commitment-check")


def test_page_reports_a_malformed_seed_as_an_error(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/verify.html?{query(VECTORS[0], server_seed='xyz')}")
    page.wait_for_selector("#error:not([hidden])", timeout=15_000)
    assert "server seed is 64 hex characters" in page.text_content("#error")


def test_page_form_derives_what_is_typed(page: Any, base_url: str) -> None:
    vector = VECTORS[1]
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    page.fill("#server_seed", vector["server_seed"])
    page.fill("#client_seed", vector["client_seed"])
    page.fill("#nonce", str(vector["nonce"]))
    page.fill("#decks", str(vector["decks"]))
    page.click("#verify-button")
    page.wait_for_selector("body[data-verified='true']", timeout=15_000)
    first = page.eval_on_selector_all("#order li", "items => items.map(i => i.dataset.card)")
    assert first[:10] == vector["first_10"]
    assert "server_seed=" + vector["server_seed"] in page.url


# -- whole exports -------------------------------------------------------------------------


EXPORT_CASES = json.loads(EXPORT_VECTORS_PATH.read_text(encoding="utf-8"))["cases"]


def export_text(lines: list[Any]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def load_export(page: Any, path: Path) -> None:
    page.set_input_files("#export-file", str(path))
    page.wait_for_selector("body[data-export-verified='true']", timeout=30_000)


def load_another_export(page: Any, path: Path) -> None:
    """An export after another: the verdict awaited is the new one's."""
    page.evaluate("delete document.body.dataset.exportVerified")
    load_export(page, path)


BLS = "vendor/noble-curves/bls12-381.js"


def quicknet_shoe(signature: str) -> list[dict[str, Any]]:
    """A shared shoe naming quicknet round 657413, its log and client seed made from
    ``signature`` (the chain's or not)."""
    return cheats.shared_shoe(beacon=cheats.QUICKNET_NAMED, signature=signature)


def signature_difference(page: Any) -> Any:
    return page.locator("#export-rounds tr[data-status='differs'] "
                        "[data-field='table_log.beacon.signature']")  # fmt: skip


def test_the_page_gives_every_export_vector_the_report_of_baccarat_verify(
    page: Any, base_url: str
) -> None:
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    given = [
        [export_text(case["lines"]), {k: case[k] for k in ("keys", "receipts") if k in case}]
        for case in EXPORT_CASES
    ]
    reports = page.evaluate(
        "async given => { const out = []; for (const [t, inputs] of given) "
        "out.push(await BaccaratFair.verifyText(t, inputs)); return out; }",
        given,
    )
    for case, got in zip(EXPORT_CASES, reports, strict=True):
        lines = parse_history(json.dumps(line) for line in case["lines"])
        want = verify_history(lines, *cheats.inputs(case))
        assert got == want.to_json(), case["name"]
        assert got["ok"] is case["expect"]["ok"], case["name"]


def test_the_page_checks_a_beacon_rounds_signature_against_the_chains_pinned_key(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "shoe.jsonl"
    path.write_text(export_text(quicknet_shoe(cheats.QUICKNET_SIGNATURE)))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    load_export(page, path)
    # drand's quicknet round 657413 as the chain signed it: nothing found, nothing left over.
    assert page.get_attribute("body", "data-export-ok") == "true"
    assert page.locator("#export-findings li").count() == 0
    notes = page.locator("#export-notes li").all_text_contents()
    assert not [note for note in notes if "signature" in note or "beacon" in note], notes
    assert page.locator("#export-rounds tr[data-status='verified']").count() == 6

    path = tmp_path / "forged.jsonl"
    path.write_text(export_text(quicknet_shoe(cheats.FORGED_SIGNATURE)))
    load_another_export(page, path)
    assert page.get_attribute("body", "data-export-ok") == "false"
    found = signature_difference(page)
    assert found.count() == 6
    assert "the chain's signature of round 657413" in str(found.first.text_content())

    # Quicknet named with the operator's own key, which signed the round: the page checks
    # the signature against the key it carries for quicknet, not the one the log gives.
    own = cheats.QUICKNET_NAMED | {"public_key": cheats.public_key(cheats.BEACON_SECRET)}
    signed = cheats.sign(cheats.BEACON_SECRET, cheats.QUICKNET_ROUND)
    path = tmp_path / "own-key.jsonl"
    path.write_text(export_text(cheats.shared_shoe(beacon=own, signature=signed)))
    load_another_export(page, path)
    assert page.get_attribute("body", "data-export-ok") == "false"
    key = page.locator("#export-rounds tr[data-line='1'] "
                       "[data-field='table_log.commit.beacon.public_key']")  # fmt: skip
    assert "not the chain's public key" in str(key.text_content())
    assert signature_difference(page).count() == 6


def test_a_chosen_export_that_skipped_nonces_shows_the_finding(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "skipped.jsonl"
    path.write_text(export_text(cheats.skipping_nonces(40)))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    load_export(page, path)
    assert page.get_attribute("body", "data-export-ok") == "false"
    finding = page.locator("#export-findings li.finding")
    assert finding.count() == 1 and finding.is_visible()
    assert finding.get_attribute("data-kind") == "nonce_gap"
    assert "dealt no round in this export" in str(finding.text_content())
    assert "NOT" in str(page.text_content("#export-verdict"))
    assert page.locator("#export-rounds tr[data-status='verified']").count() == 40


def test_a_card_changed_in_an_export_is_named_in_the_page(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    lines = cheats.honest("single-deck", 6)
    original = lines[2]["banker"]["cards"][0]
    lines[2]["banker"]["cards"][0] = cheats.other_card(original)
    path = tmp_path / "changed.jsonl"
    path.write_text(export_text(lines))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    load_export(page, path)
    row = page.locator("#export-rounds tr[data-line='3']")
    assert row.get_attribute("data-status") == "differs"
    difference = row.locator("[data-field='banker.cards']")
    assert f"expected {original}" in str(difference.text_content())
    assert page.get_attribute("body", "data-export-ok") == "false"


def test_a_void_after_a_win_is_shown_as_such(page: Any, base_url: str, tmp_path: Path) -> None:
    lines = cheats.honest("single-deck", 8)
    won = cheats.winning_line(lines)
    lines[won] = cheats.void_export(lines[won], "malfunction")
    path = tmp_path / "voided.jsonl"
    path.write_text(export_text(lines))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    load_export(page, path)
    row = page.locator(f"#export-rounds tr[data-line='{won + 1}']")
    assert row.get_attribute("data-status") == "voided"
    assert "voided after a win" in str(row.text_content())
    assert "1 voided (1 after a win)" in str(page.text_content("#export-summary"))


def test_an_unreadable_export_names_the_line(page: Any, base_url: str, tmp_path: Path) -> None:
    lines = cheats.honest("single-deck", 3)
    lines[1]["fairness"]["nonce"] = "3"
    path = tmp_path / "bad.jsonl"
    path.write_text(export_text(lines))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    page.set_input_files("#export-file", str(path))
    page.wait_for_selector("#export-error:not([hidden])")
    shown = str(page.text_content("#export-error"))
    assert "line 2: fairness.nonce must be a whole number" in shown


def test_the_page_asks_only_its_own_origin_and_without_keys_is_not_green(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "honest.jsonl"
    path.write_text(export_text(cheats.honest("mini", 20)))
    page.goto(f"{base_url}/verify.html?{query(MINI)}")
    page.wait_for_selector("body[data-verified='true']", timeout=15_000)
    load_export(page, path)
    assert page.get_attribute("body", "data-export-ok") == "true"
    # The casino's keys are asked for, on this origin (no one is logged in here: none is
    # needed); this static server publishes none, and the verdict says that the signatures
    # were not checked, and why (neither green nor red).
    loaded = {url.removeprefix(base_url) for url in page.requests}
    assert {u.split("?")[0] for u in loaded} == {
        "/verify.html", "/js/verify-page.js", "/css/app.css", "/css/verify.css",
        "/vendor/noble-curves/bls12-381.js", "/api/fairness/keys",
    }  # fmt: skip
    assert page.get_attribute("body", "data-keys") == "missing"
    assert page.get_attribute("body", "data-export-verdict") == "signatures_not_checked"
    assert page.get_attribute("#export-verdict", "class") == "check warn"
    why = "the casino's public keys could not be fetched (HTTP 404)"
    assert why in str(page.text_content("#export-verdict"))
    assert why in str(page.text_content("#keys-status"))
    # The policy itself refuses a request to another origin, should a script try one.
    refused = page.evaluate("fetch('http://localhost:9/k').then(() => 'fetched', () => 'refused')")
    assert refused == "refused"
    assert not any(url.startswith("http://localhost:9") for url in page.requests)


def test_the_page_saved_to_disk_verifies_an_export_from_a_file(
    browser: Any, tmp_path: Path
) -> None:
    saved = tmp_path / "saved"
    for name in ("verify.html", "js/verify-page.js", "css/app.css", "css/verify.css", BLS):
        (saved / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(WEB / name, saved / name)
    export = tmp_path / "skipped.jsonl"
    export.write_text(export_text(cheats.skipping_cards(20)))
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto((saved / "verify.html").as_uri())
        page.wait_for_selector("body[data-ready='true']", timeout=15_000)
        load_export(page, export)
        assert page.get_attribute("body", "data-export-ok") == "false"
        assert page.locator("#export-rounds tr[data-status='differs']").count() > 0
        # From a file the page fetches no keys, and says so beside its verdict.
        assert "opened from a file" in str(page.text_content("#keys-status"))
        assert "Signatures not checked either" in str(page.text_content("#export-verdict"))
        assert "went to no coup" in str(page.text_content("#export-text"))
        # The BLS library is a classic script too: a beacon round's signature is checked.
        forged = tmp_path / "forged.jsonl"
        forged.write_text(export_text(quicknet_shoe(cheats.FORGED_SIGNATURE)))
        load_another_export(page, forged)
        assert signature_difference(page).count() == 6
    finally:
        page.close()
    assert not errors, errors
    assert requests and all(url.startswith("file://") for url in requests), requests


def test_the_export_verdict_speaks_the_players_language(
    contexts: Contexts, base_url: str, tmp_path: Path
) -> None:
    catalog = json.loads((WEB / "i18n" / "de.json").read_text(encoding="utf-8"))
    path = tmp_path / "missing.jsonl"
    lines = cheats.honest("single-deck", 6)
    del lines[2]
    path.write_text(export_text(lines))
    with contexts.page(locale="de-DE") as page:
        page.goto(f"{base_url}/verify.html")
        page.wait_for_selector("body[data-ready='true']")
        assert page.evaluate("document.documentElement.lang") == "de"
        load_export(page, path)
        assert catalog["verify.export_bad"] in str(page.text_content("#export-verdict"))
        kind = page.text_content("#export-findings li.finding strong")
        assert str(kind).startswith(catalog["verify.kind_nonce_gap"])
        page.select_option("#lang", "sv")
        sv = json.loads((WEB / "i18n" / "sv.json").read_text(encoding="utf-8"))
        assert sv["verify.export_bad"] in str(page.text_content("#export-verdict"))


def load_receipts(page: Any, path: Path, receipts: dict[str, Any]) -> None:
    path.write_text(json.dumps(receipts))
    # Forget the last verdict: the one the page gives with these receipts is awaited.
    page.evaluate("delete document.body.dataset.receipts; delete document.body.dataset.exportOk")
    page.set_input_files("#receipts-file", str(path))
    page.wait_for_selector(f"body[data-receipts='{len(receipts['receipts'])}']")


def test_with_receipts_a_fabricated_history_and_a_swapped_commitment_are_named(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    assert "No receipts" in str(page.text_content("#receipts-status"))
    shown = cheats.receipts((cheats.commitment(cheats.SEED), "2026-01-01T11:59:00Z"))
    load_receipts(page, tmp_path / "receipts.json", shown)
    assert "1 receipts and 1 public keys" in str(page.text_content("#receipts-status"))
    # A history made up afterwards, commitment recomputed, signed with another key.
    path = tmp_path / "fabricated.jsonl"
    path.write_text(export_text(cheats.signed(cheats.fabricated(6), cheats.FORGER)))
    load_export(page, path)
    assert page.get_attribute("body", "data-export-ok") == "false"
    rows = page.locator("#export-rounds tr[data-status='differs']")
    assert rows.count() == 6
    named = str(rows.first.locator("[data-field='signature']").text_content())
    assert "not one of the casino's public keys" in named
    # The honest export, signed by the casino, against a receipt of another commitment.
    swapped = cheats.receipts((cheats.commitment("c0de" * 16), "2026-01-01T11:59:00Z"))
    load_receipts(page, tmp_path / "swapped.json", swapped)
    path = tmp_path / "honest.jsonl"
    path.write_text(export_text(cheats.signed(cheats.honest("single-deck", 6))))
    page.evaluate("delete document.body.dataset.exportVerified")
    load_export(page, path)
    row = page.locator("#export-rounds tr[data-line='1']")
    assert row.get_attribute("data-status") == "differs"
    assert "revealed server seed does not hash to it" in str(
        row.locator("[data-field='fairness.commitment']").text_content()
    )
    # With the receipt of the commitment really shown, the same export verifies.
    load_receipts(page, tmp_path / "receipts.json", shown)
    page.wait_for_selector("body[data-export-ok='true']")


def test_an_honest_mixed_export_checks_out_with_its_receipts_and_not_one_round_differs(
    page: Any, base_url: str, tmp_path: Path
) -> None:
    mixed = json.loads(cheats.MIXED_EXPORT_PATH.read_text(encoding="utf-8"))
    page.goto(f"{base_url}/verify.html")
    page.wait_for_selector("body[data-ready='true']")
    load_receipts(page, tmp_path / "receipts.json", mixed["receipts"])
    path = tmp_path / "mixed.jsonl"
    path.write_text(export_text(mixed["lines"]))
    load_export(page, path)
    assert page.get_attribute("body", "data-export-verdict") == "verified"
    assert page.get_attribute("#export-verdict", "class") == "check ok"
    shown = page.locator("#export-rounds tr").evaluate_all(
        "rows => rows.map(r => r.dataset.status).filter(Boolean)"
    )
    assert shown == mixed["statuses"] and "unverifiable" in shown


@pytest.mark.parametrize("lang", ["en", "de", "da", "sv"])
def test_a_tie_reads_like_the_other_results_and_the_rules_menu_fits_a_phone(
    contexts: Contexts, base_url: str, lang: str
) -> None:
    catalog = json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    with contexts.page({"width": 390, "height": 844}, locale=lang) as page:
        # Nonce 1 of this seed deals a tie (nonce 0 does not).
        seeds = {"server_seed": "00" * 32, "client_seed": "tie", "decks": 1, "position": 0}
        page.goto(f"{base_url}/verify.html?{urlencode(seeds | {'nonce': 1})}")
        page.wait_for_selector("body[data-verified='true']")
        assert page.text_content("#coup-winner") == catalog["verify.tie"]
        assert catalog["verify.tie"].endswith(".")
        page.goto(f"{base_url}/verify.html?{urlencode(seeds | {'nonce': 0})}")
        page.wait_for_selector("body[data-verified='true']")
        winner = page.get_attribute("#coup-winner", "data-winner")
        spot = catalog[f"spot.{winner}"]
        assert page.text_content("#coup-winner") == catalog["result.wins"].format(winner=spot)
        # Every rule set's label fits the menu: measured in the menu's own font.
        overflow = page.evaluate(
            """() => {
              const select = document.getElementById('rules');
              const probe = document.createElement('span');
              probe.style.font = getComputedStyle(select).font;
              probe.style.whiteSpace = 'pre';
              document.body.append(probe);
              const room = select.clientWidth - 40;  // padding and the arrow
              const wide = [...select.options].filter((o) => {
                probe.textContent = o.textContent;
                return probe.offsetWidth > room;
              }).map((o) => o.textContent);
              probe.remove();
              return wide;
            }"""
        )
        assert overflow == []
        labels = page.eval_on_selector_all("#rules option", "os => os.map(o => o.textContent)")
        assert catalog["verify.preset"].format(name="mini", decks=8) in labels
        assert catalog["verify.preset_one"].format(name="single-deck") in labels
