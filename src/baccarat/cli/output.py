"""Helpers shared by the subcommands: JSON output, plain text tables, arguments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2))


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table: first column left-aligned, the others right-aligned."""
    cells = [list(map(str, header)), *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def percent(x: float, places: int = 4) -> str:
    return f"{x * 100:.{places}f}%"


def seed_argument(text: str) -> str:
    """A server seed as typed: surrounding blanks and upper case are forgiven."""
    from baccarat.fairness import server_seed_bytes

    seed = text.strip().lower()
    try:
        server_seed_bytes(seed)
    except ValueError:
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise ValueError(f"a server seed is 64 hex characters (32 bytes), not {shown!r}") from None
    return seed
