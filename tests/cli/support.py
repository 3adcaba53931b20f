"""Helpers of the command-line tests."""

from __future__ import annotations

import pytest

from baccarat.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``baccarat ARGV``: its exit status and what it printed (out, err)."""
    try:
        status = main(list(argv))
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err
