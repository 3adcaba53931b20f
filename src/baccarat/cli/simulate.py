"""``baccarat simulate`` and ``baccarat shoe``: Monte Carlo runs and a traced shoe."""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from baccarat.cli.output import percent, print_json, table
from baccarat.core import RuleSet, ShufflePolicy

if TYPE_CHECKING:
    from baccarat.analysis.outcomes import BetEstimate

_COUNT = re.compile(r"^\d[\d_,]*$|^\d+(\.\d+)?e\d+$", re.IGNORECASE)


def count(text: str) -> int:
    """A whole number from 1: ``1000000``, ``1_000_000``, ``1,000,000`` or ``1e6``."""
    token = text.strip()
    value = None
    if _COUNT.match(token):
        number = token.replace(",", "").replace("_", "")
        value = float(number) if "e" in number.lower() else int(number)
    if value is None or value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(
            f"a count is a whole number from 1 (1000000, 1_000_000, 1,000,000 or 1e6), not {text!r}"
        )
    return int(value)


def seed(text: str) -> int:
    """A seed: a whole number from 0."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed: use a whole number from 0")
    return int(text)


def register(subparsers: Any) -> None:
    simulate = subparsers.add_parser(
        "simulate", help="Monte Carlo: deal many rounds, estimate every bet's return"
    )
    simulate.add_argument("--rules", default="classic-8deck", help="rule set preset")
    simulate.add_argument("--rounds", type=count, required=True, help="rounds to deal, e.g. 1e8")
    simulate.add_argument("--seed", type=seed, help="seed (default: a random one, shown)")
    simulate.add_argument("--workers", type=count, help="processes (default: every core)")
    simulate.add_argument("--json", action="store_true", help="machine-readable output")
    simulate.set_defaults(handler=run_simulate)

    shoe = subparsers.add_parser(
        "shoe", help="deal one whole shoe, with the exact odds of the rest after each coup"
    )
    shoe.add_argument("--rules", default="classic-8deck", help="rule set preset")
    shoe.add_argument("--seed", type=seed, help="seed of the shuffle (default: a random one)")
    shoe.add_argument(
        "--bets",
        default="banker,player,tie",
        help="bets whose house edge to show, comma-separated (e.g. dragon7,panda8)",
    )
    shoe.add_argument("--json", action="store_true", help="machine-readable output")
    shoe.set_defaults(handler=run_shoe)


def run_simulate(args: argparse.Namespace) -> int:
    from baccarat.analysis.simulate import simulate
    from baccarat.cli.progress import progress
    from baccarat.core import get_rules

    rules = get_rules(args.rules)
    with progress(args.rounds, unit="rounds") as update:
        result = simulate(
            rules, args.rounds, seed=args.seed, workers=args.workers, on_progress=update
        )
    if result.interrupted:
        print(
            f"baccarat simulate: interrupted after {result.rounds:,} of "
            f"{result.requested:,} rounds; the results below are for those",
            file=sys.stderr,
        )
    status = 130 if result.interrupted else 0
    if args.json:
        print_json(result.to_json())
        return status
    print(f"rules: {rules.name} ({rules.description})")
    print(
        f"rounds: {result.rounds:,} in {result.seconds:.2f} s "
        f"({result.rounds_per_second / 1e6:.1f} million rounds/s), "
        f"{result.workers} worker{'s' if result.workers > 1 else ''}, seed {result.seed}\n"
    )
    outcomes = result.outcomes
    rounds = max(result.rounds, 1)
    print(
        table(
            ("outcome", "count", "share"),
            [(o.value, f"{n:,}", percent(n / rounds)) for o, n in outcomes.items()],
        )
        + "\n"
    )
    if rules.multipliers is not None:
        print(multiplier_table(result.estimates, _cut_shoe(rules)))
        return status
    rows = []
    for name, e in result.estimates.items():
        lo, hi = e.ci95
        rows.append(
            (
                name,
                f"{e.mean:+.6f}",
                f"{e.stderr:.6f}",
                f"[{lo:+.6f}, {hi:+.6f}]",
                "-" if e.exact is None else f"{e.exact:+.6f}",
                "-" if e.z is None else f"{e.z:+.2f}",
            )
        )
    print(table(("bet", "mean net/unit", "stderr", "95% CI", "exact", "z"), rows))
    note = "exact: the exact expectation for a fresh full shoe" + _cut_shoe(rules)
    print(f"\n{note}; z = (mean - exact) / stderr")
    return status


def _cut_shoe(rules: RuleSet) -> str:
    """What the exact figures leave out when the game deals a cut shoe."""
    if rules.shuffle is not ShufflePolicy.CUT_SHOE:
        return ""
    return " (this game deals a cut shoe, with burn)" if rules.burn else " (a cut shoe)"


def multiplier_table(estimates: Mapping[str, BetEstimate], cut_shoe: str = "") -> str:
    """A multiplier game's simulated RTP per bet, with its 95% interval and the exact RTP."""
    rows = []
    for name, e in estimates.items():
        lo, hi = e.ci95
        rows.append(
            (
                name,
                percent(1 + e.mean, 4),
                f"{e.stderr * 100:.4f}%",
                f"[{percent(1 + lo, 4)}, {percent(1 + hi, 4)}]",
                "-" if e.exact is None else percent(1 + e.exact, 4),
                "-" if e.z is None else f"{e.z:+.2f}",
                "yes" if e.exact is not None and lo <= e.exact <= hi else "no",
            )
        )
    header = ("bet", "RTP", "stderr", "95% CI", "exact RTP", "z", "exact in CI")
    return (
        table(header, rows)
        + "\n\nRTP per unit wagered (the stake and its fee); exact: the exact RTP for a fresh "
        f"full shoe{cut_shoe}, its pays before rounding; z = (RTP - exact) / stderr"
    )


def run_shoe(args: argparse.Namespace) -> int:
    import random

    from baccarat.analysis.trace import STANDARD_PENETRATION, house_edges, trace_shoe
    from baccarat.core import get_rules

    rules = get_rules(args.rules)
    shown = [name.strip() for name in args.bets.split(",") if name.strip()]
    for name in shown:
        rules.paytable(name)  # a bet the game does not offer is an error, naming those it does
    shuffle_seed = secrets.randbits(64) if args.seed is None else args.seed
    trace = trace_shoe(rules, random.Random(shuffle_seed))
    if args.json:
        print_json({"seed": shuffle_seed} | trace.to_json())
        return 0
    print(f"rules: {rules.name} ({rules.description}), seed {shuffle_seed}")
    if trace.standard_cut:
        print(
            f"a fresh-shuffle game deals one coup per shoe; this trace deals the shoe through "
            f"to a cut card at the standard {STANDARD_PENETRATION} penetration, no burn"
        )
    if trace.burned:
        first, rest = trace.burned[0], len(trace.burned) - 1
        print(f"burn: first card {first}, {rest} more burned")
    print(f"cut card after {trace.cut_card} of {trace.cards} cards\n")

    def edges(values: dict[str, float] | None) -> tuple[str, ...]:
        return tuple("-" if values is None else percent(values[name], 3) for name in shown)

    rows: list[tuple[object, ...]] = [
        (
            "start",
            "",
            "",
            "",
            "",
            "",
            sum(trace.start.composition),
            *edges(house_edges(trace.start)),
        )
    ]
    for traced in trace.coups:
        coup = traced.coup
        rows.append(
            (
                f"#{traced.number}",
                " ".join(map(str, coup.player.cards)),
                coup.player.score_text,
                " ".join(map(str, coup.banker.cards)),
                coup.banker.score_text,
                coup.winner.value + (" (natural)" if coup.natural else ""),
                traced.remaining,
                *edges(house_edges(traced.analysis)),
            )
        )
    header = ("coup", "player", "", "banker", "", "winner", "left")
    print(table((*header, *(f"{name} edge" for name in shown)), rows))
    print(f"\n{len(trace.coups)} coups, {trace.undealt} cards left undealt")
    return 0
