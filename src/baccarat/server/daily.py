"""Daily aggregates for the back office's reports, kept as rounds are recorded.

Each recorded round adds itself (bet ``*``) and each of its bets to ``daily_stats`` (day
UTC, table, mode, bet, the currency its money moved in (amounts in different currencies are
never added together) and the writer's shard (on PostgreSQL each connection adds to a shard
of its own, so that rounds on different connections never wait for each other's commit on a
day's row; SQLite has one writer and one shard): rounds, stakes, returns and the sum of the
squared stakes (cents², exact integers, for the confidence band of the RTP; at a multiplier
table a bet's stake here is what it wagered, its stake and the fee taken with it, whose RTP
the exact analysis states), and on the row
of whole rounds the casino's fees (a player-banked round's: ``fee``; its stakes and returns
are the players' between themselves), in the round's own transaction: summed over the
rounds committed together and written just before the commit, one upsert per row
(``UnitOfWork.add_totals``); a void takes them off again and counts it (a round on an
operator's wallet that the operator refused or that was rolled back is taken off without
counting a void: its money never moved). The reports read these rows only, never the
rounds. A real-money round at or above the large-win or large-wager
threshold is a significant event (``events``).
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from functools import lru_cache
from typing import cast

from baccarat.server import significant
from baccarat.server.currencies import HOME
from baccarat.server.db.uow import UnitOfWork

DAY_US = 86_400 * 1_000_000
# The row of a day, table and mode that counts whole rounds (the others count each bet).
ROUND = "*"

# The shard a connection adds to (``UnitOfWork.shard``): PostgreSQL's server process of the
# connection (a few per key and day: the writer connections); SQLite's one writer: 0.
SHARDS = 1024
_UPSERT = (
    "INSERT INTO daily_stats (day, table_id, mode, bet, currency, shard, rounds, stake, "
    "returned, stake_sq, voided, fees) VALUES (:d, :t, :m, :b, :c, {shard}, :n, :s, :r, :q, "
    ":v, :f) ON CONFLICT (day, table_id, mode, bet, currency, shard) DO UPDATE SET "
    "rounds = daily_stats.rounds + :n, stake = daily_stats.stake + :s, "
    "returned = daily_stats.returned + :r, stake_sq = daily_stats.stake_sq + :q, "
    "voided = daily_stats.voided + :v, fees = daily_stats.fees + :f"
)


@lru_cache(maxsize=4)
def _upsert(shard: str) -> str:
    return _UPSERT.format(shard=shard)


@lru_cache(maxsize=4096)
def _bets(bets_json: str) -> tuple[tuple[str, int, int], ...]:
    # Cached: a table's settlements are few distinct texts. A bet's stake here is what it
    # wagered: at a multiplier table its stake and the fee taken with it.
    return tuple(
        (kind, int(bet["stake"]) + int(bet.get("fee", 0)), int(bet["returned"]))
        for kind, bet in json.loads(bets_json).items()
    )


def _add(
    uow: UnitOfWork, day: int, table_id: str, mode: str, bets_json: str, currency: str,
    sign: int, voided: bool = True,
) -> None:  # fmt: skip
    bets = _bets(bets_json)
    whole = (ROUND, sum(b[1] for b in bets), sum(b[2] for b in bets))
    void = 1 if sign < 0 and voided else 0
    for bet, stake, returned in (whole, *bets):
        values = (sign, sign * stake, sign * returned, sign * stake * stake, void, 0)
        uow.add_totals(_write, (day, table_id, mode, bet, currency), values)


def fee(
    uow: UnitOfWork, played_us: int, table_id: str, mode: str, amount: int, currency: str,
    sign: int = 1,
) -> None:  # fmt: skip
    """The casino's fee on a player-banked round (``sign`` -1: its void gave it back), on
    the round's row of whole rounds."""
    key = (played_us // DAY_US, table_id, mode, ROUND, currency)
    uow.add_totals(_write, key, (0, 0, 0, 0, 0, sign * amount))


def _write(uow: UnitOfWork, rows: list[tuple[Hashable, tuple[int, ...]]]) -> None:
    """The summed rows of a transaction's rounds, just before its commit."""
    upsert = _upsert(uow.shard(SHARDS))
    for key, (n, stake, returned, squares, voided, fees) in rows:
        day, table_id, mode, bet, currency = cast(tuple[int, str, str, str, str], key)
        uow.send(upsert, {"d": day, "t": table_id, "m": mode, "b": bet, "c": currency, "n": n,
                          "s": stake, "r": returned, "q": squares, "v": voided,
                          "f": fees})  # fmt: skip


def rebuild(uow: UnitOfWork, batch: int = 20_000) -> int:
    """Recompute every aggregate from the rounds (once, after upgrading a casino that has
    rounds from before the aggregates); the number of rounds read."""
    uow.run("DELETE FROM daily_stats")
    after, total = 0, 0
    while True:
        # A round's currency: its operator's wallet's, else its player's accounts'.
        rows = uow.all(
            "SELECT r.seq, r.created_us, r.table_id, r.mode, r.bets, r.voided_us, "
            "COALESCE(o.currency, a.currency), b.fee FROM rounds r "
            "LEFT JOIN operator_rounds o ON o.round_id = r.id "
            "LEFT JOIN accounts a ON a.player_id = r.player_id AND a.mode = r.mode "
            "AND a.kind = 'player' LEFT JOIN banked_rounds b ON b.round_id = r.id "
            "WHERE r.seq > :after ORDER BY r.seq LIMIT :n",
            {"after": after, "n": batch},
        )
        for seq, created, table_id, mode, bets_json, voided, currency, paid in rows:
            day, currency = created // DAY_US, currency or HOME
            _add(uow, day, table_id, mode, bets_json, currency, 1)
            if voided is not None:  # counted, then taken off again: the void is counted
                _add(uow, day, table_id, mode, bets_json, currency, -1)
            elif paid is not None:  # a player-banked round: the casino's fee
                fee(uow, created, table_id, mode, int(paid), currency)
            after = seq
        total += len(rows)
        if len(rows) < batch:
            return total


def count(
    uow: UnitOfWork, round_id: str, player_id: int, table_id: str, mode: str,
    bets_json: str, stake: int, returned: int, currency: str = HOME,
) -> None:  # fmt: skip
    """A round is recorded: its bets count in today's aggregates."""
    _add(uow, uow.now // DAY_US, table_id, mode, bets_json, currency, 1)
    if mode != "real":
        return
    limits = significant.thresholds(uow, currency)  # in its minor units
    subject = f"round:{round_id}"
    if returned - stake >= limits["large_win"]:
        significant.record(uow, "large_win", f"player:{player_id}", subject, table=table_id,
                      stake=stake, returned=returned, currency=currency)  # fmt: skip
    if stake >= limits["large_wager"]:
        significant.record(uow, "large_wager", f"player:{player_id}", subject, table=table_id,
                      stake=stake, currency=currency)  # fmt: skip


def uncount(
    uow: UnitOfWork, played_us: int, table_id: str, mode: str, bets_json: str,
    currency: str = HOME, voided: bool = True,
) -> None:  # fmt: skip
    """A round is voided (or, ``voided`` False, never happened: an operator refused its
    bet, or it was rolled back): its bets leave the day it was played."""
    _add(uow, played_us // DAY_US, table_id, mode, bets_json, currency, -1, voided)
