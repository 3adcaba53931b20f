"""``baccarat fair ...``, ``verify`` and ``rng-report``: provably fair shuffles and evidence."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from baccarat.cli.output import print_json, seed_argument

CARDS_PER_LINE = 13


def register(subparsers: Any) -> None:
    fair = subparsers.add_parser("fair", help="provably fair shuffles: derive, commit, new seeds")
    commands = fair.add_subparsers(dest="fair_command", required=True, parser_class=type(fair))

    shuffle = commands.add_parser(
        "shuffle", help="the shoe order for a server seed, client seed and nonce"
    )
    shuffle.add_argument("--server-seed", required=True, help="64 hex characters (revealed)")
    shuffle.add_argument("--client-seed", required=True, help="the player's client seed (text)")
    shuffle.add_argument("--nonce", required=True, type=int, help="the shuffle's nonce, from 0")
    shuffle.add_argument("--decks", required=True, type=int, help="decks in the shoe, 1-8")
    shuffle.add_argument("--cut", type=int, help="the player's cut position (cut-shoe tables)")
    shuffle.add_argument("--json", action="store_true", help="print a JSON list of cards")
    shuffle.set_defaults(handler=run_shuffle)

    commit = commands.add_parser("commit", help="the commitment (sha256) of a server seed")
    commit.add_argument("--server-seed", required=True, help="64 hex characters")
    commit.add_argument("--json", action="store_true", help="machine-readable output")
    commit.set_defaults(handler=run_commit)

    new = commands.add_parser("new", help="a new server seed, its commitment and a client seed")
    new.add_argument("--json", action="store_true", help="machine-readable output")
    new.set_defaults(handler=run_new)

    example = commands.add_parser(
        "example-history", help="play an example table and print its history export (JSON lines)"
    )
    example.add_argument("--rules", default="single-deck", help="rule set preset")
    example.add_argument("--rounds", type=int, default=10, help="rounds to play (default 10)")
    example.add_argument("--seed", type=int, help="seed the bets (and the server seed) for replay")
    example.add_argument("--server-seed", help="64 hex characters (default: a new one)")
    example.add_argument("--client-seed", default="example", help="client seed (default example)")
    example.add_argument(
        "--unrevealed", action="store_true", help="leave the server seed out (not yet revealed)"
    )
    example.set_defaults(handler=run_example)

    verify = subparsers.add_parser(
        "verify",
        help="verify an exported history: shuffles, coups, payouts, balances, signatures",
        description="Exit status: 0 verified (signatures checked); 1 a round differs or "
        "something is missing; 2 the file or the keys cannot be read; 3 nothing differs, but "
        "the signatures were not checked (no --keys or --receipts with keys), so a doctored "
        "export cannot be told from the real one (0 with --accept-unsigned).",
    )
    verify.add_argument("file", help="the history export (JSON lines), or - for stdin")
    verify.add_argument("--json", action="store_true", help="machine-readable report")
    verify.add_argument(
        "--quiet", action="store_true", help="list only the rounds that are not verified"
    )
    verify.add_argument(
        "--keys",
        help="the casino's public keys: the JSON of GET /api/fairness (its signing_keys), a "
        "receipts file, or a list; every line's signature is then checked",
    )
    verify.add_argument(
        "--receipts",
        help="your receipts (baccarat-receipts/1, saved from the browser): each round's "
        "commitment is checked against the ones shown before play (their keys are used "
        "when --keys is not given)",
    )
    verify.add_argument(
        "--accept-unsigned",
        action="store_true",
        help="without keys, exit 0 (not 3) when nothing differs: the headline still says that "
        "the signatures were not checked",
    )
    verify.set_defaults(handler=run_verify)

    report = subparsers.add_parser(
        "rng-report", help="statistical tests of the shuffles at certification scale"
    )
    report.add_argument("--shuffles", required=True, type=int, help="1-deck rounds to shuffle")
    report.add_argument("--shoes", type=int, help="8-deck shoes to shuffle (default shuffles/8)")
    report.add_argument("--server-seed", help="64 hex characters (default: a new one)")
    report.add_argument("--client-seed", default="rng-report", help="client seed")
    report.add_argument("--alpha", type=float, default=0.01, help="significance level per test")
    report.add_argument("--json", action="store_true", help="machine-readable report")
    report.add_argument("--dieharder", help="also feed the byte stream to Debian's dieharder: "
                        "test numbers, e.g. 0,1,2 (dieharder -l lists them)")  # fmt: skip
    report.add_argument("--dieharder-psamples", type=int, help="dieharder's -p (p-values per test)")
    report.set_defaults(handler=run_rng_report)


def order_lines(cards: Sequence[str]) -> list[str]:
    """The order in rows of 13, each row led by the position of its first card."""
    width = len(str(max(len(cards) - 1, 0)))
    return [
        f"  {start:>{width}}  " + " ".join(cards[start : start + CARDS_PER_LINE])
        for start in range(0, len(cards), CARDS_PER_LINE)
    ]


def run_shuffle(args: argparse.Namespace) -> int:
    from baccarat.fairness import commitment, shuffled_order

    seed = seed_argument(args.server_seed)
    order = [
        str(c) for c in shuffled_order(seed, args.client_seed, args.nonce, args.decks, args.cut)
    ]
    if args.json:
        print(json.dumps(order))
        return 0
    print(f"server seed  {seed}")
    print(f"commitment   {commitment(seed)}")
    print(f"client seed  {args.client_seed}")
    print(f"nonce        {args.nonce}")
    print(f"decks        {args.decks} ({len(order)} cards)")
    print(f"cut          {'none' if args.cut is None else args.cut}")
    print("order (dealt from position 0):")
    print("\n".join(order_lines(order)))
    return 0


def run_commit(args: argparse.Namespace) -> int:
    from baccarat.fairness import commitment

    seed = seed_argument(args.server_seed)
    if args.json:
        print_json({"server_seed": seed, "commitment": commitment(seed)})
    else:
        print(commitment(seed))
    return 0


def run_new(args: argparse.Namespace) -> int:
    from baccarat.fairness import commitment, new_client_seed, new_server_seed

    seed = new_server_seed()
    data = {"server_seed": seed, "commitment": commitment(seed), "client_seed": new_client_seed()}
    if args.json:
        print_json(data)
    else:
        print(f"server seed  {data['server_seed']}  (keep secret until rotated)")
        print(f"commitment   {data['commitment']}  (show before play)")
        print(f"client seed  {data['client_seed']}  (a default for the player)")
    return 0


def run_example(args: argparse.Namespace) -> int:
    import random

    from baccarat.core import get_rules
    from baccarat.fairness import new_server_seed
    from baccarat.fairness.example import example_history

    if args.rounds < 1:
        raise ValueError(f"--rounds must be at least 1, not {args.rounds}")
    rules = get_rules(args.rules)
    rng = random.Random(args.seed)
    if args.server_seed is not None:
        server_seed = seed_argument(args.server_seed)
    elif args.seed is not None:
        server_seed = rng.randbytes(32).hex()
    else:
        server_seed = new_server_seed()
    lines = example_history(
        rules,
        args.rounds,
        server_seed=server_seed,
        client_seed=args.client_seed,
        random=rng,
        revealed=not args.unrevealed,
    )
    for line in lines:
        print(json.dumps(line, ensure_ascii=False))
    return 0


def _json_file(path: str, what: str) -> Any:
    try:
        with open(path, "rb") as stream:
            return json.load(stream)
    except json.JSONDecodeError as error:
        raise ValueError(f"{what} {path} is not JSON ({error.msg})") from None


def _keys_and_receipts(args: argparse.Namespace) -> tuple[Any, Any]:
    from baccarat.fairness.signing import PublicKeys, parse_keys, parse_receipts

    keys, receipts = None, None
    if args.receipts:
        receipts, held = parse_receipts(_json_file(args.receipts, "the receipts file"))
        if held:
            keys = PublicKeys(held)
    if args.keys:
        keys = PublicKeys(parse_keys(_json_file(args.keys, "the keys file")))
    return keys, receipts


# ``baccarat verify``'s exit status when nothing differs but no key checked the signatures.
UNSIGNED_EXIT = 3


def run_verify(args: argparse.Namespace) -> int:
    from baccarat.fairness.history import parse_history
    from baccarat.fairness.verify import Verdict, render, verify_history

    keys, receipts = _keys_and_receipts(args)
    if args.file == "-":
        records = parse_history(sys.stdin.buffer)
    else:
        with open(args.file, "rb") as stream:
            records = parse_history(stream)
    report = verify_history(records, keys, receipts)
    if args.json:
        print_json(report.to_json())
    else:
        print("\n".join(render(report, quiet=args.quiet)))
    if report.verdict is Verdict.UNSIGNED and not args.accept_unsigned:
        return UNSIGNED_EXIT
    return 0 if report.ok else 1


def run_rng_report(args: argparse.Namespace) -> int:
    from baccarat.cli.rng_report import run

    return run(args)
