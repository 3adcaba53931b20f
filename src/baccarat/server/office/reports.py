"""The back office's reports, read from the daily aggregates (``daily_stats``), never from
the rounds: what a page costs is bounded by the days, tables and bets it shows.

* Gross gaming revenue and rounds, by day, table, bet, mode (play money or real money) or
  currency: every row is of one mode, one currency (ISO 4217: amounts of different
  currencies are never added together) and one banker, the casino's revenue from it as the
  ledger has it. Where the house banks (``banker`` "house"), GGR is stakes - returns; at a
  player-banked table ("player") the stakes and returns are the players' between
  themselves and GGR is the casino's fee (``fees``). A table's banker is its kind's
  (``TableKind.banker``); a table no longer in the tables file counts as the house's.
  By bet, the fees are a row of their own (bet ``fee``): the casino's fee is on a round's
  stakes, not on any one bet, and the bets at player-banked tables win the casino nothing.
* RTP actual (returns / stakes) against theoretical (the exact analyser's, per table and
  bet; at a multiplier table the multiplier analysis's, per unit wagered: a bet's stake in
  the aggregates there is its stake and the fee taken with it) for a day, the month to
  date and life to date, per mode and currency, with its confidence band and an alarm when
  the actual leaves it. Only the bets the house covers:
  player-banked tables' bets are left out (the casino pays none of their returns). The
  band: a bet of stake s returns s·X, where X per unit staked has the exact mean μ (the
  theoretical RTP) and standard deviation σ of the bet's pay table under the table's rules.
  Over bets of stakes s_i the actual RTP ΣsX/Σs has mean μ and standard deviation
  σ·√(Σs²)/Σs (the aggregates keep Σs²); the band is μ ± z of them (z = 3: a fair game
  leaves it about 3 times in 1,000 per figure).
* Liability: players' balances, withdrawals reserved, deposits pending, and what
  player-banked seats hold in play, per mode and currency; an operator's players' accounts
  are not the casino's to answer for (their money is at the operator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from baccarat.core import RuleSet
from baccarat.core.paytable import PUSH
from baccarat.server.currencies import HOME
from baccarat.server.daily import DAY_US, ROUND
from baccarat.server.db.uow import UnitOfWork
from baccarat.server.errors import ServiceError
from baccarat.server.kinds import find_kind
from baccarat.server.tables import TableSet

Z = 3.0
GROUPS = ("day", "table", "bet", "mode", "currency")
BANKERS = ("house", "player")
FEE_ROW = "fee"  # by bet: the casino's fees at player-banked tables
PERIODS = ("day", "month", "life")
MAX_DAYS = 3660


@lru_cache(maxsize=64)
def unit_moments(rules: RuleSet) -> dict[str, tuple[Fraction, float]]:
    """Each bet's exact RTP and the standard deviation of its return per unit staked; at a
    multiplier table per unit wagered (the stake and its fee, as the aggregates count a
    bet's stake there: ``daily``), from the multiplier analysis. (The analysers, and
    numpy with them, are imported when a report first asks: not at every server start.)"""
    from baccarat.analysis.exact import analyse
    from baccarat.analysis.multiplier import exact

    if rules.multipliers is not None:
        wagered = float(1 + rules.multipliers.fee)
        return {bet: (one.rtp, one.sd / wagered) for bet, one in exact(rules).bets.items()}
    analysis = analyse(rules)
    moments = {}
    for table in rules.paytables:
        mean = Fraction(0)  # the net result per unit: pay on a win, 0 on a push, -1 lost
        square = Fraction(0)
        settled = Fraction(0)
        for line, pay in table.pays:
            chance = analysis.lines[table.bet, line]
            settled += chance
            if pay is not PUSH:
                mean += chance * pay
                square += chance * pay * pay
        mean -= 1 - settled
        square += 1 - settled
        moments[table.bet] = (1 + mean, math.sqrt(float(square - mean * mean)))
    return moments


def check_days(first: int, last: int) -> None:
    if last < first or last - first > MAX_DAYS:
        raise ServiceError("invalid_request", f"a report spans 1 to {MAX_DAYS} days")


def _player_banked(tables: TableSet) -> tuple[str, dict[str, str]]:
    """SQL that tells a ``daily_stats`` row's banker (house or player) by its table, and its
    parameters."""
    banked = [i for i, table in tables.items() if find_kind(table.kind).banker == "player"]
    ids = {f"pb{n}": table_id for n, table_id in enumerate(banked)}
    if not ids:
        return "'house'", {}
    listed = ", ".join(f":{name}" for name in ids)
    return f"CASE WHEN table_id IN ({listed}) THEN 'player' ELSE 'house' END", ids


def ggr(uow: UnitOfWork, tables: TableSet, first: int, last: int, by: str) -> list[dict[str, Any]]:
    """GGR and rounds (or bets, by bet) per ``by``, mode, currency and banker, days
    ``first``-``last``."""
    if by not in GROUPS:
        raise ServiceError("invalid_request", f"group by one of {', '.join(GROUPS)}")
    check_days(first, last)
    key = {"day": "day", "table": "table_id", "bet": "bet"}.get(by)
    rows_of = "bet <> :whole" if by == "bet" else "bet = :whole"
    group = {"mode": "mode, currency", "currency": "currency, mode"}.get(
        by
    ) or f"{key}, mode, currency"
    banker, ids = _player_banked(tables)
    params = {"a": first, "b": last, "whole": ROUND} | ids
    rows = uow.all(
        f"SELECT {group}, banker, SUM(rounds), SUM(stake), SUM(returned), SUM(voided), "
        f"SUM(fees) FROM (SELECT *, {banker} AS banker FROM daily_stats "
        f"WHERE day BETWEEN :a AND :b AND {rows_of}) d "
        f"GROUP BY {group}, banker ORDER BY {group}, banker",
        params,
    )
    if by == "bet" and ids:
        rows += [
            (FEE_ROW, mode, currency, "player", count, 0, 0, voided, fees)
            for mode, currency, count, voided, fees in uow.all(
                "SELECT mode, currency, SUM(rounds), SUM(voided), SUM(fees) "
                f"FROM (SELECT *, {banker} AS banker FROM daily_stats "
                "WHERE day BETWEEN :a AND :b AND bet = :whole) d WHERE banker = 'player' "
                "GROUP BY mode, currency ORDER BY mode, currency",
                params,
            )
        ]
    answer = []
    for row in rows:
        *keys, who, count, stake, returned, voided, fees = row
        named = dict(zip(group.split(", "), keys, strict=True))
        item: dict[str, Any] = {} if key is None else {by: _key(by, named[key])}
        earned = int(fees) if who == "player" else int(stake) - int(returned)
        item |= {"mode": named["mode"], "currency": named["currency"], "banker": who,
                 "rounds": int(count), "stake": int(stake), "returned": int(returned),
                 "fees": int(fees), "ggr": earned, "voided": int(voided)}  # fmt: skip
        answer.append(item)
    return answer


def _key(by: str, value: Any) -> Any:
    if by == "day":
        from baccarat.server.history import iso_time

        return iso_time(int(value) * DAY_US)[:10]
    return value


def period_days(period: str, today: int) -> tuple[int, int]:
    """The days of a period that ends today: today, the month to date, life to date."""
    if period == "day":
        return today, today
    if period == "month":
        from datetime import UTC, datetime

        start = datetime.fromtimestamp(today * 86_400, UTC).replace(day=1)
        return int(start.timestamp()) // 86_400, today
    if period == "life":
        return 0, today
    raise ServiceError("invalid_request", f"a period is one of {', '.join(PERIODS)}")


def rtp(
    uow: UnitOfWork, tables: TableSet, first: int, last: int, mode: str | None = None
) -> list[dict[str, Any]]:
    """Actual against theoretical RTP per table, bet, mode and currency over the days, with
    the band: the bets the house covers (player-banked tables' are left out)."""
    banker, ids = _player_banked(tables)
    where = " AND mode = :m" if mode is not None else ""
    rows = uow.all(
        "SELECT table_id, bet, mode, currency, SUM(rounds), SUM(stake), SUM(returned), "
        f"SUM(stake_sq) FROM (SELECT *, {banker} AS banker FROM daily_stats "
        f"WHERE day BETWEEN :a AND :b AND bet <> :whole{where}) d WHERE banker = 'house' "
        "GROUP BY table_id, bet, mode, currency ORDER BY table_id, bet, mode, currency",
        {"a": max(first, 0), "b": last, "whole": ROUND, "m": mode} | ids,
    )
    answer = []
    for table_id, bet, played_in, currency, count, stake, returned, stake_sq in rows:
        table = tables.get(table_id)
        moments = unit_moments(table.rules) if table is not None else {}
        item = _band(int(stake), int(returned), int(stake_sq), moments.get(bet))
        answer.append({"table": table_id, "bet": bet, "mode": played_in, "currency": currency,
                       "bets": int(count)} | item)  # fmt: skip
    return answer


@dataclass(frozen=True, slots=True)
class _Band:
    low: float
    high: float


def _band(
    stake: int, returned: int, stake_sq: int, moments: tuple[Fraction, float] | None
) -> dict[str, Any]:
    actual = returned / stake if stake > 0 else None
    item: dict[str, Any] = {"stake": stake, "returned": returned, "actual": actual}
    if moments is None or stake <= 0:
        return item | {"theoretical": None, "low": None, "high": None, "alarm": False}
    mean, sd = float(moments[0]), moments[1]
    spread = Z * sd * math.sqrt(max(stake_sq, 0)) / stake  # cents / cents
    band = _Band(max(mean - spread, 0.0), mean + spread)  # nothing returns less than 0
    alarm = actual is not None and not band.low <= actual <= band.high
    return item | {"theoretical": mean, "low": band.low, "high": band.high, "alarm": alarm}


def liability(uow: UnitOfWork) -> list[dict[str, Any]]:
    """What the casino holds for others, per mode and currency (minor units)."""
    figures: dict[tuple[str, str], dict[str, int]] = {}
    queries = {
        # An operator's players' money is the operator's; the play money their accounts
        # are given here can never be played (their sessions play the operator's money).
        "balances": "SELECT mode, currency, COALESCE(SUM(balance), 0) FROM accounts a "
                    "WHERE kind = 'player' AND NOT EXISTS (SELECT 1 FROM operator_players o "
                    "WHERE o.player_id = a.player_id) GROUP BY mode, currency",
        "withdrawals_pending": "SELECT mode, currency, balance FROM accounts "
                               "WHERE kind = 'withdrawals' AND player_id IS NULL",
        "deposits_pending": "SELECT c.mode, a.currency, COALESCE(SUM(c.amount), 0) "
                            "FROM cashier_requests c JOIN accounts a ON a.player_id = c.player_id "
                            "AND a.mode = c.mode AND a.kind = 'player' "
                            "WHERE c.status = 'pending' AND c.kind = 'deposit' "
                            "GROUP BY c.mode, a.currency",
        # Player-banked seats play in USD alone.
        "in_play": "SELECT mode, 'USD', COALESCE(SUM(stake + reserve), 0) FROM banked_seats "
                   "WHERE mode IS NOT NULL AND (stake > 0 OR reserve > 0) GROUP BY mode",
    }  # fmt: skip
    for name, sql in queries.items():
        for mode, currency, total in uow.all(sql):
            figures.setdefault((mode, currency), {})[name] = int(total)
    for mode in ("fun", "real"):
        figures.setdefault((mode, HOME), {})
    return [{"mode": mode, "currency": currency} | {k: values.get(k, 0) for k in queries}
            for (mode, currency), values in sorted(figures.items())]  # fmt: skip
