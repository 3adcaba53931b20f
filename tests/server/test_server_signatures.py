"""The casino signs: each export line and each commitment it shows (Ed25519), with keys from
the settings or kept in the data folder; what it published verifies its export, and the
receipts a browser keeps catch a commitment that was not the one shown."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from baccarat.cli import main as cli
from baccarat.fairness.history import parse_history
from baccarat.fairness.signing import (
    RECEIPTS_FORMAT,
    PublicKeys,
    Signer,
    commitment_message,
    new_private_key_pem,
    parse_keys,
    parse_receipts,
    private_key,
)
from baccarat.fairness.verify import Status, verify_history
from baccarat.server import keys
from baccarat.server.settings import Settings

from ..harness import Api
from .conftest import both_backends

pytestmark = pytest.mark.anyio


def receipts_of(*answers: dict[str, Any]) -> dict[str, Any]:
    """What the browser keeps (js/receipts.js) of the GET /api/fairness answers it saw."""
    kept = [
        {k: answer[mode][k] for k in ("commitment", "mode", "time", "signature", "key_id")}
        for answer in answers
        for mode in ("fun", "real")
    ]
    return {"format": RECEIPTS_FORMAT, "signing_keys": answers[-1]["signing_keys"],
            "receipts": kept}  # fmt: skip


async def test_the_commitments_shown_are_signed_and_the_export_verifies_with_their_keys(
    api: Api,
) -> None:
    token = await api.player()
    auth = api.auth(token, None)
    shown = (await api.client.get("/api/fairness", headers=auth)).json()
    (key,) = shown["signing_keys"]
    assert key["current"] and key["key_id"] == api.casino.signer.key_id
    trusted = PublicKeys(parse_keys(shown))
    for mode in ("fun", "real"):
        state = shown[mode]
        message = commitment_message(state["commitment"], mode, state["time"])
        assert trusted.check(state["signature"], state["key_id"], message) is None
    for _ in range(3):
        assert (await api.play(token, player=500)).status_code == 201
    rotated = (await api.client.post("/api/fairness/rotate", json={"mode": "fun"},
                                     headers=auth)).json()  # fmt: skip
    current = rotated["current"]
    message = commitment_message(current["commitment"], "fun", current["time"])
    assert trusted.check(current["signature"], current["key_id"], message) is None
    text = (await api.client.get("/api/history/export?mode=fun", headers=auth)).text
    lines = [json.loads(line) for line in text.splitlines()]
    assert {line["key_id"] for line in lines} == {key["key_id"]}
    receipts, _ = parse_receipts(receipts_of(shown))
    report = verify_history(parse_history(text.splitlines()), trusted, receipts)
    assert report.ok and [r.status for r in report.rounds] == [Status.VERIFIED] * 3
    # A line changed afterwards no longer carries the casino's signature.
    lines[1]["time"] = "2026-01-01T00:00:00Z"
    changed = [json.dumps(line) for line in lines]
    report = verify_history(parse_history(changed), trusted)
    assert "signature" in {d.field for d in report.rounds[1].differences}


@both_backends
async def test_the_keys_are_published_to_anyone_and_verify_what_the_casino_signed(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await api.player()
    shown = (await api.client.get("/api/fairness", headers=api.auth(token, None))).json()

    # No session, and no database read: the signer's keys, whatever the database holds.
    def no_database(*args: Any) -> Any:
        raise AssertionError("the published keys read the database")

    monkeypatch.setattr(api.casino.db, "read", no_database)
    monkeypatch.setattr(api.casino.db, "write", no_database)
    published = await api.client.get("/api/fairness/keys")
    assert published.status_code == 200, published.text
    assert published.json() == shown["signing_keys"]
    assert published.json()[0]["key_id"] == api.casino.signer.key_id
    # They verify a commitment the casino signed for a player.
    trusted = PublicKeys(parse_keys(published.json()))
    for mode in ("fun", "real"):
        state = shown[mode]
        message = commitment_message(state["commitment"], mode, state["time"])
        assert trusted.check(state["signature"], state["key_id"], message) is None
    # Kept by a cache and revalidated: the same keys are a 304 without a body.
    assert published.headers["Cache-Control"] == "no-cache"
    again = await api.client.get(
        "/api/fairness/keys", headers={"If-None-Match": published.headers["ETag"]}
    )
    assert (again.status_code, again.content) == (304, b"")


def test_the_key_is_made_once_in_the_data_folder_and_kept(tmp_path: Path) -> None:
    settings = Settings.for_data_dir(tmp_path)
    first = keys.signer(settings)
    path = tmp_path / "keys" / keys.SIGNING_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert keys.signer(settings).key_id == first.key_id  # a restart keeps it
    # A key from the environment wins, and retired public keys stay published.
    pem = new_private_key_pem()
    given = dataclasses.replace(settings, signing_key=pem, retired_public_keys=(first.public_key,))
    signer = keys.signer(given)
    assert signer.key_id == Signer(private_key(pem)).key_id
    assert [k.key_id for k in signer.keys] == [signer.key_id, first.key_id]
    assert Settings.from_env({"BACCARAT_SIGNING_KEY": pem}).signing_key == pem
    assert pem not in repr(given)


def test_the_operator_rotates_the_data_folders_key_and_the_old_one_stays_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BACCARAT_SIGNING_KEY", raising=False)
    old = keys.signer(Settings.for_data_dir(tmp_path)).key_id
    assert cli(["admin", "--data-dir", str(tmp_path), "signing-key", "rotate"]) == 0
    assert f"retired key {old}" in capsys.readouterr().out
    assert cli(["admin", "--data-dir", str(tmp_path), "signing-key", "show"]) == 0
    shown = json.loads(capsys.readouterr().out)["signing_keys"]
    assert [k["current"] for k in shown] == [True, False] and shown[1]["key_id"] == old
    assert cli(["admin", "signing-key", "new"]) == 0
    made = capsys.readouterr()
    assert Signer(private_key(made.out)).key_id in made.err
    monkeypatch.setenv("BACCARAT_SIGNING_KEY", made.out)
    assert cli(["admin", "--data-dir", str(tmp_path), "signing-key", "rotate"]) == 2
