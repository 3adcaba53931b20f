"""docs/fairness.md: its Python runs, and its vectors and sample output are the real ones."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from baccarat.cli import main

from .vectors import VECTORS_PATH

DOC = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
VECTORS = json.loads(VECTORS_PATH.read_text())["vectors"]


def test_the_by_hand_python_prints_the_commitment_and_the_first_cards() -> None:
    code = re.search(r"```python\n(.*?)```", DOC, re.S)
    assert code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.group(1), {})
    assert out.getvalue().splitlines() == [
        VECTORS[0]["commitment"],
        " ".join(VECTORS[0]["first_10"]),
    ]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_the_doc_shows_each_vector(vector: dict[str, object]) -> None:
    assert f"`{vector['commitment']}`" in DOC
    assert f"`{vector['first_block_hex']}`" in DOC
    assert f"`{' '.join(vector['first_10'])}`" in DOC  # type: ignore[arg-type]
    if vector["decks"] == 1:
        order = vector["order"]
        rows = [" ".join(order[k : k + 13]) for k in range(0, 52, 13)]  # type: ignore[index]
        assert "\n".join(rows) in DOC


def test_the_doc_shows_the_real_output_of_fair_shuffle(capsys: pytest.CaptureFixture[str]) -> None:
    command = re.search(r"\$ baccarat (fair shuffle [^\n]*)\n(.*?)```", DOC, re.S)
    assert command is not None
    assert main(command.group(1).split()) == 0
    assert capsys.readouterr().out == command.group(2)


def test_the_signature_vector_is_what_the_signer_makes_and_its_python_checks_it() -> None:
    from baccarat.fairness.signing import Signer, commitment_message, private_key

    section = DOC[DOC.index("### Signature test vector") :]
    table: dict[str, str] = {}
    for name, value in re.findall(r"^\| ([a-z ,()0-9]+?) \| `([^`]+)`", section, re.M):
        table.setdefault(name, value)  # this vector's rows, not those of the shuffles after
    signer = Signer(private_key(table["private key (32 bytes, base64)"]))
    message = commitment_message(table["commitment"], "fun", "2026-01-01T12:00:00Z")
    assert table["public key"] == signer.public_key
    assert table["key id"] == signer.key_id
    assert table["signed bytes"] == message.decode()
    assert table["signature"] == signer.sign(message)
    (code,) = [c for c in re.findall(r"```python\n(.*?)```", DOC, re.S) if "Ed25519" in c]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    assert out.getvalue().split() == [signer.key_id]
