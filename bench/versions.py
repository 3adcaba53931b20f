"""Two versions of the code side by side in one run: a benchmark's figures before and after.

The machine is shared and noisy, so absolute times drift: the versions run alternately
(before, after, before, after, ...), each from its own source tree (the earlier revision is
checked out into a temporary git worktree and put first on ``PYTHONPATH``, for the benchmark
and the servers it starts), and each figure's ratio after / before is of the medians.

    .venv/bin/python bench/versions.py --before REV [--repeat 3] [--only server,banked,shared]

The benchmarks and the figures compared (higher is better for all):

* ``bench/server.py``: house rounds/s and with side bets (``--seconds 4``);
* ``bench/banked.py``: player-banked rounds/s over the seats' sockets (``--seconds 6``, 128
  seats, so that each seat's socket stays below its message rate, and as many connections
  and socket handshakes from one address as they take);
* ``bench/shared.py``: bets settled per second by one coup's settlement, on SQLite (a small
  crowd: 100 bettors, 100 watchers, 4 coups).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Bench:
    script: str
    args: tuple[str, ...]
    # figure name -> a pattern whose first group is the figure
    figures: dict[str, str]
    # settings of the servers it starts (BACCARAT_*), the same for both versions
    env: tuple[tuple[str, str], ...] = ()


BENCHES = {
    "server": Bench(
        "bench/server.py",
        ("--seconds", "4"),
        {
            "house rounds/s": r"^round\s+(\d+)/s",
            "rounds with side bets/s": r"^side bets\s+(\d+)/s",
        },
    ),
    "banked": Bench(
        "bench/banked.py",
        ("--seconds", "6", "--seats", "128"),
        {"banked rounds/s": r"^rounds/s: (\d+)"},
        # Two sockets a seat, all from 127.0.0.1: more than one address may hold, and
        # more handshakes at once than one address's allowance of anonymous reads.
        (
            ("BACCARAT_CONNECTIONS_PER_ADDRESS", "1000"),
            ("BACCARAT_ANONYMOUS_READS_PER_S", "1000"),
            ("BACCARAT_ANONYMOUS_READS_BURST", "1000"),
        ),
    ),
    "shared": Bench(
        "bench/shared.py",
        (
            "--only",
            "sqlite",
            "--bettors",
            "100",
            "--watchers",
            "100",
            "--coups",
            "4",
            "--betting-s",
            "4",
            "--result-s",
            "2",
        ),
        {"shared bets settled/s": r"bets settled per second [^:]*: ([\d,]+)/s"},
    ),
}


def run(tree: Path, bench: Bench) -> dict[str, float]:
    """One run of the benchmark from this source tree: its figures."""
    env = os.environ | dict(bench.env) | {"PYTHONPATH": str(tree / "src")}
    done = subprocess.run(
        [sys.executable, str(tree / bench.script), *bench.args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{bench.script} in {tree} failed:\n{done.stdout}\n{done.stderr}")
    found = {}
    for name, pattern in bench.figures.items():
        match = re.search(pattern, done.stdout, re.MULTILINE)
        if match is None:
            raise SystemExit(f"{bench.script}: no {name!r} in its output:\n{done.stdout}")
        found[name] = float(match.group(1).replace(",", ""))
    return found


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--before", required=True, help="the earlier revision (git)")
    options.add_argument("--repeat", type=int, default=3, help="runs of each version (3)")
    options.add_argument("--only", default=",".join(BENCHES), help="benchmarks, comma-separated")
    args = options.parse_args()
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    with tempfile.TemporaryDirectory(prefix="baccarat-before-") as folder:
        before = Path(folder) / "tree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.before],
            check=True,
            capture_output=True,
        )
        try:
            for name in names:
                bench = BENCHES[name]
                seen: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
                for _ in range(args.repeat):
                    for version, tree in (("before", before), ("after", ROOT)):
                        for figure, value in run(tree, bench).items():
                            seen[version].setdefault(figure, []).append(value)
                for figure in bench.figures:
                    old = statistics.median(seen["before"][figure])
                    new = statistics.median(seen["after"][figure])
                    print(
                        f"{name}: {figure}: before {old:,.0f} (runs {seen['before'][figure]}), "
                        f"after {new:,.0f} (runs {seen['after'][figure]}), "
                        f"ratio {new / old:.3f}x",
                        flush=True,
                    )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                check=False,
                capture_output=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
