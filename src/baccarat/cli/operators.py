"""``baccarat admin operators`` (the rounds on operators' wallets and their calls) and
``baccarat operator-demo`` (the reference operator, docs/operator-api.md)."""

from __future__ import annotations

import argparse
from typing import Any

from baccarat.cli.database import _read
from baccarat.cli.output import print_json, table

STATES = ("bet", "placed", "win", "settled", "refused", "rollback", "rolled_back")


def register(subparsers: Any) -> None:
    demo = subparsers.add_parser(
        "operator-demo",
        help="run the reference operator: its players, wallet (SQLite) and login page",
    )
    demo.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    demo.add_argument("--port", default="9000", help="port (9000)")
    demo.add_argument("--game-url", default="http://127.0.0.1:8000",
                      help="the game server (http://127.0.0.1:8000)")  # fmt: skip
    demo.add_argument("--operator-id", default="demo", help="its id at the game (demo)")
    demo.add_argument(
        "--secret-env",
        default="DEMO_OPERATOR_SECRET",
        help="the variable holding the shared secret (DEMO_OPERATOR_SECRET)",
    )
    demo.add_argument("--data-dir", default="data/operator-demo",
                      help="folder of its SQLite wallet (data/operator-demo)")  # fmt: skip
    demo.add_argument("--currency", default="USD", help="its players' currency (USD)")
    demo.add_argument("--protocol", default="v1",
                      help="the wallet contract it speaks: v1 or actions (v1)")  # fmt: skip
    for name, what in (("late", "answered late (after --late-s)"),
                       ("fail", "answered 500, not applied"),
                       ("drop", "applied and never answered")):  # fmt: skip
        demo.add_argument(f"--{name}", default="0", metavar="SHARE",
                          help=f"the share of wallet calls {what} (0 to 1; 0)")  # fmt: skip
    demo.add_argument("--late-s", default="6", help="how late a late answer is (6 s)")
    demo.set_defaults(handler=run_demo)


def register_admin(commands: Any) -> None:
    operators = commands.add_parser(
        "operators", help="rounds on operators' wallets: their states, calls and retries"
    )
    sub = operators.add_subparsers(dest="operators_command", required=True)
    rounds = sub.add_parser("rounds", help="the newest rounds (stuck ones with --unfinished)")
    rounds.add_argument("--operator", help="only this operator's")
    rounds.add_argument("--state", choices=STATES, help="only rounds in this state")
    rounds.add_argument("--unfinished", action="store_true",
                        help="only rounds whose win or rollback is still to land (or, at a shared "
                             "table, whose coup is not dealt yet)")  # fmt: skip
    rounds.add_argument("--limit", default="50", help="how many (1-10000; 50)")
    rounds.add_argument("--json", action="store_true", help="machine-readable output")
    rounds.set_defaults(handler=run_rounds)
    calls = sub.add_parser(
        "calls",
        help="the calls to operators' wallets and their answers (every one is kept): of a "
        "round, of a player, sent in a time",
    )
    calls.add_argument("round_id", nargs="?", help="a round's calls (as --round)")
    calls.add_argument("--round", dest="round", help="only this round's")
    calls.add_argument("--player", help="only those of this player (the operator's id of them)")
    calls.add_argument("--operator", help="only this operator's")
    calls.add_argument("--from", dest="start",
                       help="only those sent at or after this time (ISO 8601, like "
                            "2026-12-01T00:00:00Z)")  # fmt: skip
    calls.add_argument("--to", dest="end", help="only those sent before this time (ISO 8601)")
    calls.add_argument("--limit", default="200", help="how many, the oldest first (1-100000; 200)")
    calls.add_argument("--bodies", action="store_true",
                       help="with each call's body as sent and its answer's as "
                            "received")  # fmt: skip
    calls.add_argument("--json", action="store_true",
                       help="machine-readable output (the bodies included)")  # fmt: skip
    calls.set_defaults(handler=run_calls)


def _time(us: int | None) -> str:
    from baccarat.server.history import iso_time

    return "-" if not us else iso_time(int(us))


def run_rounds(args: argparse.Namespace) -> int:
    from baccarat.cli import inputs
    from baccarat.server.currencies import format_amount
    from baccarat.server.wallets.operator import report

    limit = inputs.whole(args.limit, "--limit", 1, 10_000)
    found = _read(
        args, lambda uow: report.listing(uow, args.operator, args.state, args.unfinished, limit)
    )
    if args.json:
        print_json(found)
        return 0
    if not found:
        print("no rounds on operators' wallets" + (" unfinished" if args.unfinished else ""))
        return 0
    print(table(
        ("round", "operator", "player", "currency", "state", "stake", "win", "attempt",
         "calls", "created", "next attempt"),
        # Amounts in the session's currency (--json gives its minor units).
        [(r["round"], r["operator"], r["player"], r["currency"], r["state"],
          format_amount(r["stake"], r["currency"]),
          "-" if r["win"] is None else format_amount(r["win"], r["currency"]), r["attempts"],
          r["calls"], _time(r["created_us"]),
          _time(r["next_us"]) if r["state"] in ("bet", "win", "rollback") else "-")
         for r in found],
    ))  # fmt: skip
    return 0


def _moment(text: str | None, flag: str) -> int | None:
    from baccarat.cli import UsageError
    from baccarat.server.wallets.operator.report import iso_us

    if text is None:
        return None
    moment = iso_us(text)
    if moment is None:
        raise UsageError(f"{flag} is a time in ISO 8601, like 2026-12-01T00:00:00Z")
    return moment


def run_calls(args: argparse.Namespace) -> int:
    from baccarat.cli import UsageError, inputs
    from baccarat.server.wallets.operator import report

    if args.round_id and args.round and args.round_id != args.round:
        raise UsageError("give the round once (ROUND_ID or --round)")
    round_text = args.round_id or args.round
    round_id = None if round_text is None else inputs.round_id(round_text)
    player = None if args.player is None else inputs.note(args.player, "--player")
    start, end = _moment(args.start, "--from"), _moment(args.end, "--to")
    limit = inputs.whole(args.limit, "--limit", 1, 100_000)

    def read(uow: Any) -> list[dict[str, Any]]:
        if round_id is not None and player is None and start is None and end is None:
            report.calls(uow, round_id)  # an unknown round is refused as such
        return report.find_calls(uow, round_id=round_id, player=player,
                                 operator_id=args.operator, start=start, end=end,
                                 limit=limit)  # fmt: skip

    found = _read(args, read)
    if args.json:
        print_json(found)
        return 0
    if not found:
        print("no calls to operators' wallets found")
        return 0
    print(table(
        ("round", "player", "call", "attempt", "transaction", "sent", "answered", "http",
         "status", "balance", "error"),
        [(c["round"] or "-", c["player"] or "-", c["call"], c["attempt"],
          c["transaction_uuid"] or "-", _time(c["sent_us"]), _time(c["answered_us"]),
          c["http_status"] or "-", c["status"] or "-",
          "-" if c["balance"] is None else c["balance"], c["reason"] or c["error"] or "")
         for c in found],
    ))  # fmt: skip
    if args.bodies:
        for c in found:
            print(f"\n#{c['id']} {c['call']} sent {_time(c['sent_us'])}:\n  {c['body'] or '-'}\n"
                  f"  answered: {c['answer'] or '-'}")  # fmt: skip
    return 0


def run_demo(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    import uvicorn

    from baccarat.cli import UsageError, inputs
    from baccarat.operator_demo.app import SIDES, DemoSettings, create_demo

    port = inputs.whole(args.port, "--port", 1, 65535)
    if args.protocol not in SIDES:
        raise UsageError(
            f"--protocol is one of {', '.join(SIDES)}, not {inputs.shown(args.protocol)}"
        )
    shares = {}
    for name in ("late", "fail", "drop"):
        try:
            shares[name] = float(getattr(args, name))
        except ValueError:
            raise UsageError(f"--{name} is a share from 0 to 1") from None
        if not 0 <= shares[name] <= 1:
            raise UsageError(f"--{name} is a share from 0 to 1")
    if sum(shares.values()) > 1:
        raise UsageError("--late, --fail and --drop add up to at most 1")
    try:
        late_s = float(args.late_s)
    except ValueError:
        raise UsageError("--late-s is a number of seconds") from None
    secret = os.environ.get(args.secret_env, "")
    if len(secret) < 16:
        raise UsageError(f"the variable {args.secret_env} must hold a secret of 16 characters "
                         "or more (the one the game's operators file names)")  # fmt: skip
    settings = DemoSettings(
        data_dir=Path(args.data_dir), game_url=args.game_url.rstrip("/"),
        operator_id=args.operator_id, secret=secret, currency=args.currency,
        late=shares["late"], fail=shares["fail"], drop=shares["drop"], late_s=late_s,
        protocol=args.protocol,
    )  # fmt: skip
    print(f"operator-demo: serving on http://{args.host}:{port}/ for the game at "
          f"{settings.game_url}", flush=True)  # fmt: skip
    # A dropped answer's handler sleeps on: a stop does not wait for it.
    uvicorn.run(create_demo(settings), host=args.host, port=port, log_level="warning",
                timeout_graceful_shutdown=1)  # fmt: skip
    return 0
