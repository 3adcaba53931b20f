"""Benchmark what the responsible-gaming checks cost a round, side by side in one process.

Plays real-money rounds at table I through the service (``rounds.play_round`` in one write
transaction each, on a fresh SQLite or a given PostgreSQL database) in interleaved phases:

* ``no checks``: ``responsible.admit_round`` replaced by a no-op (the round as before);
* ``checks``: the real checks (exclusion, session, reality check, today's usage upsert);
* ``checks+limits``: the same for players with loss and wager limits on every period (the
  usage of the month is read too);
* ``fun``: fun-money rounds, which only check the exclusion.

It prints rounds per CPU second of this process (the machine may be shared: CPU time is what
other processes do not disturb) and each phase's cost per round over ``no checks``. HTTP, the
event loop, group commit and (on SQLite, whose file goes to /dev/shm) the disk are left out
(``bench/server.py --mode real`` measures them), so the figures isolate the checks' own
statements.

    .venv/bin/python bench/responsible.py [--rounds 500] [--passes 8] [--players 16]
        [--database URL]
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from baccarat.core import Bets
from baccarat.server import accounts, auth, responsible, wallet
from baccarat.server.casino import Casino
from baccarat.server.kinds.house import service as rounds
from baccarat.server.settings import DatabaseUrl, Settings

PHASES = ("no checks", "checks", "checks+limits", "fun")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500, help="rounds per phase and pass")
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--passes", type=int, default=8, help="interleaved passes (8)")
    parser.add_argument("--database", help="postgresql://... instead of a fresh SQLite file")
    args = parser.parse_args()
    # On tmpfs where there is one: the fsync of each commit would drown the checks' cost.
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    folder = Path(tempfile.mkdtemp(prefix="baccarat-rg-bench-", dir=shm))
    url = DatabaseUrl.parse(args.database) if args.database else DatabaseUrl.sqlite_in(folder)
    casino = Casino(Settings(database=url, data_dir=folder, web_dir=folder / "no-web"))
    casino.start()
    try:
        table = casino.tables.require("table-i")
        tag = str(time.monotonic_ns())[-8:]
        plain, limited = [], []
        for i in range(2 * args.players):

            def setup(uow: Any, i: int = i) -> int:
                player = accounts.register(uow, f"rg{tag}x{i}", "-", casino.system)
                wallet.deposit(uow, player.id, 10**11, casino.system)
                auth.create_session(uow, player.id, 86_400)
                if i % 2:
                    big = {f"{kind}_{period}": 10**12 for kind in ("loss", "wager")
                           for period in ("day", "week", "month")}  # fmt: skip
                    responsible.set_limits(uow, player.id, big)
                return player.id

            (limited if i % 2 else plain).append(casino.db.run_write(setup))
        bets = Bets(banker=200)
        real_admit = responsible.admit_round
        totals = dict.fromkeys(PHASES, 0.0)

        def run(phase: str) -> float:
            players = itertools.cycle(limited if phase == "checks+limits" else plain)
            mode = "fun" if phase == "fun" else "real"
            responsible.admit_round = (lambda *a: None) if phase == "no checks" else real_admit
            started = time.process_time()
            for _ in range(args.rounds):
                player = next(players)
                casino.db.run_write(
                    lambda uow, p=player: rounds.play_round(
                        uow, casino.dealer, p, table, mode, bets
                    )
                )
            return time.process_time() - started

        for phase in PHASES:  # warm-up
            run(phase)
        for _ in range(args.passes):
            for phase in PHASES:
                totals[phase] += run(phase)
        responsible.admit_round = real_admit
    finally:
        casino.close()
        shutil.rmtree(folder, ignore_errors=True)
    count = args.rounds * args.passes
    base = totals["no checks"] / count
    print(f"responsible-gaming checks: {url.dialect}, {count} rounds per phase "
          f"({args.passes} interleaved passes), {args.players} players per phase")  # fmt: skip
    for phase in PHASES:
        per = totals[phase] / count
        rate = count / totals[phase]
        print(f"{phase:<14} {rate:7.0f} rounds/CPU s  {per * 1e6:6.0f} us/round  "
              f"{(per - base) * 1e6:+5.0f} us ({per / base:.2f}x)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
