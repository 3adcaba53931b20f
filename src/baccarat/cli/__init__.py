"""The ``baccarat`` command: one subcommand module per concern, each with ``register``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from baccarat import __version__

# Each module defines register(subparsers); its handlers import what they need lazily.
COMMAND_MODULES = (
    "baccarat.cli.game",
    "baccarat.cli.fair",
    "baccarat.cli.server",
    "baccarat.cli.simulate",
    "baccarat.cli.roads",
    "baccarat.cli.operators",
    "baccarat.cli.sheet",
)


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


class CannotRun(Exception):
    """The command could not run (no such database, the database unreachable): exit 3."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="baccarat", description="Punto Banco baccarat: odds, play, fairness.")
    parser.add_argument("--version", action="version", version=f"baccarat {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; bad input exits 2 and a command that could not run (no database)
    exits 3, each with one line on stderr, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``baccarat ... | head``): not an error; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, ValueError, OSError) as error:
        print(f"baccarat {args.command}: error: {error}", file=sys.stderr)
        return 2
    except CannotRun as error:
        print(f"baccarat {args.command}: could not run: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"baccarat {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
