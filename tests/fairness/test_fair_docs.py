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
