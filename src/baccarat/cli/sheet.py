"""``baccarat game-sheet``: the game sheet (docs/game-sheet.md) on standard output."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sheet = subparsers.add_parser(
        "game-sheet", help="every rule set and table: bets, pays, exact RTP, limits (Markdown)"
    )
    sheet.add_argument("--tables", help="a tables file (default: the shipped tables.toml)")
    sheet.set_defaults(handler=run_game_sheet)


def run_game_sheet(args: argparse.Namespace) -> int:
    from pathlib import Path

    from baccarat.server.kinds import load_tables
    from baccarat.server.office.sheet import game_sheet

    print(game_sheet(load_tables(Path(args.tables) if args.tables else None)))
    return 0
