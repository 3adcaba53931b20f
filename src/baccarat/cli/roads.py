"""``baccarat roads``: the five scoreboards of a sequence of results."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from baccarat.cli.output import print_json

NAMES = {"big_eye_boy": "big eye boy", "small_road": "small road", "cockroach_pig": "cockroach pig"}


def register(subparsers: Any) -> None:
    roads = subparsers.add_parser("roads", help="bead plate, big road and the derived roads")
    roads.add_argument("--results", required=True, help='results, oldest first: "BPPTB..."')
    roads.add_argument("--json", action="store_true", help="machine-readable output")
    roads.set_defaults(handler=run_roads)


def grid(cells: Iterable[tuple[int, int, str]], rows: int = 6) -> str:
    """Text of ``(col, row, text)`` cells in a grid of ``rows`` rows; empty cells are dots."""
    placed = {(col, row): text for col, row, text in cells}
    if not placed:
        return "(empty)"
    width = max(len(text) for text in placed.values())
    cols = max(col for col, _ in placed) + 1
    lines = [
        " ".join(placed.get((col, row), ".").ljust(width) for col in range(cols)).rstrip()
        for row in range(rows)
    ]
    return "\n".join(lines)


def run_roads(args: argparse.Namespace) -> int:
    from baccarat.core.roads import RoadResult, compute_roads

    results = RoadResult.parse_many(args.results)
    roads = compute_roads(results)
    if args.json:
        print_json(roads.to_json())
        return 0
    layout = roads.layout_json()
    print("bead plate")
    print(grid((c["col"], c["row"], c["winner"]) for c in layout["bead"]))
    print("\nbig road (a digit after the letter: ties that followed)")
    big = [
        (c["col"], c["row"], c["winner"] + (str(c["ties"]) if c["ties"] else ""))
        for c in layout["big_road"]
    ]
    if layout["leading_ties"]:
        big = [(0, 0, "T" + str(layout["leading_ties"]))]
    print(grid(big))
    for road in roads.derived:
        print(f"\n{NAMES[road.name]} (r = red, b = blue)")
        print(grid((c["col"], c["row"], c["colour"][0]) for c in layout[road.name]))
    print()
    for outcome, ask in roads.ask.items():
        marks = ", ".join(
            f"{NAMES[name]} {'-' if colour is None else colour.value}"
            for name, colour in ask.items()
        )
        print(f"ask {outcome.value}: {marks}")
    return 0
