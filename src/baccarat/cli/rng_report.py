"""``baccarat rng-report``: the RNG battery at certification scale, as a report for a lab."""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
import time
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from baccarat import __version__
from baccarat.cli.output import print_json, seed_argument, table
from baccarat.cli.progress import progress


class StopFlag:
    """Ctrl-C sets the flag; the loop finishes its shuffle and stops between shuffles."""

    def __init__(self) -> None:
        self.stopped = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.stopped = True


def run(args: argparse.Namespace) -> int:
    from baccarat.fairness import commitment, new_server_seed
    from baccarat.fairness.battery import RngBattery

    if args.shuffles < 1:
        raise ValueError(f"--shuffles must be at least 1, not {args.shuffles}")
    shoes = args.shuffles // 8 if args.shoes is None else args.shoes
    if shoes < 0:
        raise ValueError(f"--shoes must be 0 or more, not {shoes}")
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha must be between 0 and 1, not {args.alpha}")
    external = _dieharder_tests(getattr(args, "dieharder", None))
    seed = new_server_seed() if args.server_seed is None else seed_argument(args.server_seed)
    battery = RngBattery(seed, args.client_seed, args.shuffles, shoes)
    # Check the client seed before the long run, not after.
    commitment(seed)
    battery.order(0, 1)

    flag = StopFlag()
    previous = signal.signal(signal.SIGINT, flag)
    # Said once the handler is in place: from here on Ctrl-C gives a partial report.
    print(
        f"baccarat rng-report: {args.shuffles} 1-deck rounds and {shoes} 8-deck shoes; "
        "Ctrl-C stops with a partial report",
        file=sys.stderr,
        flush=True,
    )
    started = time.monotonic()
    try:
        with progress(battery.work, unit="decks") as update:
            while not battery.is_complete and not flag.stopped:
                battery.step()
                update(battery.done)
    finally:
        signal.signal(signal.SIGINT, previous)
    elapsed = time.monotonic() - started
    report = build_report(battery, seed, args.alpha, elapsed)
    if external:
        from baccarat.cli import dieharder

        report["dieharder"] = dieharder.run(external, seed, battery.client_seed,
                                            battery.shuffles + battery.shoes,
                                            getattr(args, "dieharder_psamples", None))  # fmt: skip
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    if flag.stopped and not battery.is_complete:
        return 130
    return 0 if report["passed"] else 1


def build_report(battery: Any, seed: str, alpha: float, elapsed: float) -> dict[str, Any]:
    from baccarat.fairness import commitment
    from baccarat.fairness.battery import DESCRIPTIONS, NotRun

    results = battery.results()
    tests = [
        r.to_json(alpha) | {"description": DESCRIPTIONS[r.name]}
        for r in results
        if not isinstance(r, NotRun)
    ]
    not_run = [
        {"name": r.name, "reason": r.reason, "description": DESCRIPTIONS[r.name]}
        for r in results
        if isinstance(r, NotRun)
    ]
    return {
        "format": "baccarat-rng-report/1",
        "software": f"baccarat {__version__}",
        "protocol": "HMAC-SHA256 byte stream, rejection sampling, Fisher-Yates (docs/fairness.md)",
        "generated": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "server_seed": seed,
        "commitment": commitment(seed),
        "client_seed": battery.client_seed,
        "rounds_1deck": {
            "planned": battery.shuffles,
            "done": battery.done_shuffles,
            "nonces": _nonces(0, battery.done_shuffles),
        },
        "shoes_8deck": {
            "planned": battery.shoes,
            "done": battery.done_shoes,
            "nonces": _nonces(battery.shuffles, battery.done_shoes),
        },
        "complete": battery.is_complete,
        "elapsed_seconds": round(elapsed, 3),
        "alpha": alpha,
        "family_false_alarm": 1 - (1 - alpha) ** len(tests) if tests else 0.0,
        "tests": tests,
        "not_run": not_run,
        "passed": all(t["passed"] for t in tests),
    }


def _nonces(first: int, count: int) -> str:
    return f"{first}..{first + count - 1}" if count else "none"


def format_report(report: dict[str, Any]) -> str:
    alpha = report["alpha"]
    one, eight = report["rounds_1deck"], report["shoes_8deck"]
    lines = [
        "baccarat RNG report" + ("" if report["complete"] else " (PARTIAL: stopped early)"),
        f"  software       {report['software']}",
        f"  protocol       {report['protocol']}",
        f"  generated      {report['generated']}",
        f"  server seed    {report['server_seed']}",
        f"  commitment     {report['commitment']}",
        f"  client seed    {report['client_seed']}",
        f"  1-deck rounds  {one['done']} of {one['planned']} (nonces {one['nonces']})",
        f"  8-deck shoes   {eight['done']} of {eight['planned']} (nonces {eight['nonces']})",
        f"  elapsed        {report['elapsed_seconds']:.1f} s",
        f"  significance   alpha = {alpha} per test; with {len(report['tests'])} tests a fair "
        f"generator fails at least one with probability {report['family_false_alarm']:.1%}",
        "",
    ]
    rows = [
        (
            t["name"],
            f"{t['statistic']:.3f}",
            "-" if t["df"] is None else t["df"],
            f"{t['p_value']:.4f}",
            t["samples"],
            "pass" if t["passed"] else "FAIL",
        )
        for t in report["tests"]
    ]
    header = ("test", "statistic", "df", "p-value", "samples", "result")
    lines.append(table(header, rows))
    for t in report["not_run"]:
        lines.append(f"not run: {t['name']} ({t['reason']})")
    lines += ["", "methods (H0: every shuffle is uniform and independent of every other):"]
    for t in sorted(report["tests"] + report["not_run"], key=lambda t: str(t["name"])):
        test_id, _, name = str(t["name"]).partition(" ")
        lines.append(f"  {test_id} {name}")
        lines += textwrap.wrap(
            t["description"], width=92, initial_indent="     ", subsequent_indent="     "
        )
    lines.append("")
    failed = [t for t in report["tests"] if not t["passed"]]
    verdict = (
        f"all {len(report['tests'])} tests pass at alpha = {alpha}"
        if not failed
        else f"{len(failed)} of {len(report['tests'])} tests FAIL at alpha = {alpha}"
    )
    if report.get("dieharder"):
        lines += ["", "dieharder (Debian), on the derivation's byte stream (docs/fairness.md):"]
        lines.append(table(("test", "ntup", "tsamples", "psamples", "p-value", "assessment"), [
            (d["test"], d["ntup"], d["tsamples"], d["psamples"], f"{d['p_value']:.8f}",
             d["assessment"]) for d in report["dieharder"]
        ]))  # fmt: skip
        lines.append("")
    lines.append(f"result: {verdict}")
    lines.append(
        f"reproduce: baccarat rng-report --shuffles {one['planned']} --shoes {eight['planned']} "
        f"--server-seed {report['server_seed']} --client-seed {_quote(report['client_seed'])}"
    )
    return "\n".join(lines)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _dieharder_tests(text: str | None) -> list[int]:
    """``--dieharder 0,1,2``: the test numbers (checked before the long run)."""
    if text is None:
        return []
    from baccarat.cli import dieharder

    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--dieharder takes test numbers like 0,1,2, not {text!r}") from None
    if not numbers or any(not 0 <= n <= 300 for n in numbers):
        raise ValueError("--dieharder test numbers are 0 to 300 (dieharder -l lists them)")
    if not dieharder.available():
        raise ValueError("--dieharder needs Debian's dieharder: apt-get install dieharder")
    return numbers
