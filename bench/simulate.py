"""Simulator speed, measured side by side with a plain numpy simulation, and the shoe trace.

Run: ``.venv/bin/python bench/simulate.py`` (``--quick`` for a short run, ``--no-memory``
to skip the 10^9-round memory run, ``--repeat N`` runs of each speed measure).

1. Peak memory (RSS) of ``baccarat simulate --rounds 1000000000`` with every core, run as
   its own process first: that process and its largest worker (limit 200 MB).
2. Our simulator on one core: classic-8deck (8-deck shoe, burn, cut card), rounds/s, with
   the main bets only and with every bet the game offers (main bets and its eight side
   bets), interleaved in one run: the kernel counts the same outcome classes either way
   (pair kinds, third cards and scores are always kept), so side bets cost only their pay
   vectors, built once, and their estimates at the end; both are timed.
3. The reference: a numpy-vectorised infinite-deck simulation of the main bets, written
   here the plain way (draw six cards per round for a batch, apply the tableau with array
   operations, count the outcomes), rounds/s on one core. Then the ratio (target >= 1.5).
4. Scaling: one worker against two, same rounds per worker.
5. A full 8-deck shoe trace: about 80 exact analyses (target: well under a second).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from baccarat.analysis.outcomes import class_coups, main_bets, rule_bets
from baccarat.analysis.simulate import default_workers, ensure_compiled, simulate
from baccarat.analysis.trace import trace_shoe
from baccarat.core import banker_draws, get_rules

RULES = get_rules("classic-8deck")
# Card values by rank for an infinite deck: A-9 count 1-9, T J Q K count 0.
VALUES = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int8)
BANKER_DRAWS = np.array([[banker_draws(s, p3) for p3 in range(10)] for s in range(10)])
BATCH = 1 << 20


def numpy_batch(rng: np.random.Generator, size: int) -> tuple[int, int, int]:
    """One batch of infinite-deck rounds: (banker wins, player wins, ties)."""
    c: npt.NDArray[np.int8] = VALUES[rng.integers(0, 13, size=(6, size), dtype=np.int8)]
    # Deal order P B P B; the fifth card is the player's third if the player draws.
    p = (c[0] + c[2]) % 10
    b = (c[1] + c[3]) % 10
    natural = (p >= 8) | (b >= 8)
    player_draws = ~natural & (p <= 5)
    banker_draws_ = ~natural & np.where(player_draws, BANKER_DRAWS[b, c[4]], b <= 5)
    banker_third = np.where(player_draws, c[5], c[4])
    p_final = (p + np.where(player_draws, c[4], 0)) % 10
    b_final = (b + np.where(banker_draws_, banker_third, 0)) % 10
    banker = int(np.count_nonzero(b_final > p_final))
    player = int(np.count_nonzero(p_final > b_final))
    return banker, player, size - banker - player


def numpy_reference(rounds: int, seed: int) -> tuple[float, float, dict[str, float]]:
    """Rounds per second and per CPU second of the numpy simulation, and each main bet's
    mean net result."""
    rng = np.random.default_rng(seed)
    numpy_batch(rng, 1000)  # first-call costs out of the timing
    banker = player = tie = done = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while done < rounds:
        size = min(BATCH, rounds - done)
        b, p, t = numpy_batch(rng, size)
        banker, player, tie, done = banker + b, player + p, tie + t, done + size
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    win = float(RULES.banker_win_multiplier)
    means = {
        "player": (player - banker) / done,
        "banker": (banker * win - player) / done,
        "tie": (tie * float(RULES.tie_pays) - banker - player) / done,
    }
    return done / seconds, done / cpu, means


def children_cpu() -> float:
    """CPU seconds used so far by this process's finished children (the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best_rate(runs: list[float]) -> str:
    return f"best {max(runs) / 1e6:6.2f}  (runs: {', '.join(f'{r / 1e6:.2f}' for r in runs)})"


# Runs the command, then reports its own peak RSS and its largest worker's (Linux: KiB).
MEMORY_PROBE = """
import json, resource, sys
from baccarat.cli import main
status = main(sys.argv[1:])
self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"RUSAGE_SELF": self, "RUSAGE_CHILDREN": children}), file=sys.stderr)
sys.exit(status)
"""


def memory_run(rounds: int) -> tuple[dict[str, Any], float, float]:
    """Run ``baccarat simulate`` in a fresh process: its JSON, its peak RSS and its largest
    worker's, in MB."""
    args = ["simulate", "--rounds", str(rounds), "--seed", "1", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, *args], capture_output=True, text=True, check=True
    )
    peak = json.loads(done.stderr.strip().splitlines()[-1])
    data: dict[str, Any] = json.loads(done.stdout)
    return data, peak["RUSAGE_SELF"] / 1024, peak["RUSAGE_CHILDREN"] / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--no-memory", action="store_true", help="skip the 10^9-round run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best counts")
    args = parser.parse_args()
    ours_rounds = 20_000_000 if args.quick else 100_000_000
    numpy_rounds = 5_000_000 if args.quick else 20_000_000

    print(f"rules: {RULES.name} ({RULES.description}); cores here: {default_workers()}")
    if not args.no_memory:
        # First, while this process is small: a child's peak RSS on Linux includes what it
        # shared with this process between fork and exec.
        data, parent, worker = memory_run(10**9)
        print(
            f"baccarat simulate --rounds 1000000000 (every core): {data['seconds']:.1f} s, "
            f"{data['rounds_per_second'] / 1e6:.1f} M rounds/s; peak RSS {parent:.0f} MB, "
            f"largest worker {worker:.0f} MB (limit 200)"
        )

    ensure_compiled()
    print(
        f"rounds/s in millions, best of {args.repeat} interleaved runs "
        "(the machine is shared: the best run is the least disturbed)"
    )
    start = time.perf_counter()
    class_coups()
    every_bet = rule_bets(RULES)
    built = time.perf_counter() - start
    main_only = main_bets(RULES)
    ours: list[float] = []
    ours_main: list[float] = []
    ours_main_cpu: list[float] = []
    ours_cpu: list[float] = []
    reference: list[float] = []
    reference_cpu: list[float] = []
    settle_main: list[float] = []
    settle_all: list[float] = []
    for run in range(args.repeat):
        cpu_start = time.process_time()
        bare = simulate(RULES, ours_rounds, seed=run + 1, workers=1, bets=main_only)
        ours_main_cpu.append(bare.rounds / (time.process_time() - cpu_start))
        ours_main.append(bare.rounds_per_second)
        cpu_start = time.process_time()
        one = simulate(RULES, ours_rounds, seed=run + 1, workers=1, bets=every_bet)
        ours_cpu.append(one.rounds / (time.process_time() - cpu_start))
        ours.append(one.rounds_per_second)
        for result, times in ((bare, settle_main), (one, settle_all)):
            start = time.perf_counter()
            dict(result.estimates)
            times.append(time.perf_counter() - start)
        rate, cpu_rate, means = numpy_reference(numpy_rounds, seed=run + 1)
        reference.append(rate)
        reference_cpu.append(cpu_rate)
    print(f"ours, 1 worker, main bets only, {ours_rounds:,} rounds: {best_rate(ours_main)}")
    print(f"ours, 1 worker, all {len(every_bet)} bets, {ours_rounds:,} rounds: {best_rate(ours)}")
    print(
        f"side bets: ratio every bet / main only {max(ours) / max(ours_main):.2f}, per CPU "
        f"second {max(ours_cpu) / max(ours_main_cpu):.2f} (same kernel: ideal 1.00); pay "
        f"vectors built once in {built * 1000:.0f} ms; estimates at the end "
        f"{min(settle_all) * 1000:.1f} ms (main only {min(settle_main) * 1000:.1f} ms)"
    )
    print(f"numpy infinite deck, {numpy_rounds:,} rounds:   {best_rate(reference)}")
    print(f"ratio ours / numpy (1 core): {max(ours) / max(reference):.2f}  (target >= 1.5)")
    print(
        f"  per CPU second: ours {max(ours_cpu) / 1e6:.2f}, numpy {max(reference_cpu) / 1e6:.2f}, "
        f"ratio {max(ours_cpu) / max(reference_cpu):.2f}"
    )
    ours_means = {name: e.mean for name, e in one.estimates.items()}
    print(
        "  last runs' means: "
        + ", ".join(f"{k} {ours_means[k]:+.5f} vs {means[k]:+.5f}" for k in ("player", "banker"))
    )

    two: list[float] = []
    two_cpu: list[float] = []
    for run in range(args.repeat):
        cpu_start = children_cpu()
        result = simulate(RULES, 2 * ours_rounds, seed=run + 1, workers=2)
        two.append(result.rounds_per_second)
        two_cpu.append(result.rounds / (children_cpu() - cpu_start))
    print(f"ours, 2 workers, {2 * ours_rounds:,} rounds per run: {best_rate(two)}")
    print(f"scaling 2 workers / 1 worker: {max(two) / max(ours):.2f}  (ideal 2.00)")
    print(
        f"  per CPU second of the workers: {max(two_cpu) / 1e6:.2f} (1 worker: "
        f"{max(ours_cpu) / 1e6:.2f}); what two workers lose to each other: "
        f"{1 - max(two_cpu) / max(ours_cpu):+.1%}"
    )

    trace_shoe(RULES, random.Random(0))  # builds the analyser's table once
    timings = []
    coups = 0
    for seed in range(1, 6):
        start = time.perf_counter()
        trace = trace_shoe(RULES, random.Random(seed))
        timings.append(time.perf_counter() - start)
        coups = len(trace.coups)
    print(
        f"8-deck shoe trace: median {statistics.median(timings) * 1000:.1f} ms "
        f"over 5 shoes (last: {coups} coups, {coups + 1} exact analyses)"
    )


if __name__ == "__main__":
    main()
