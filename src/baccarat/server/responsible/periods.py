"""Calendar periods in UTC for the responsible-gaming limits: day, ISO week, month.

A limit's period is the calendar day (from 00:00 UTC), the ISO week (from Monday 00:00 UTC)
or the calendar month (from the 1st, 00:00 UTC) that contains the moment; it resets at the
start of the next one. Usage is kept in whole UTC days, so every period is a run of days.

>>> start, end = period_bounds("week", 1_790_000_000_000_000)
>>> iso_day(start), iso_day(end)
('2026-09-21', '2026-09-28')
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime

DAY_US = 86_400 * 1_000_000
PERIODS = ("day", "week", "month")


def day_of(us: int) -> int:
    """Days since the Unix epoch (UTC) of a moment."""
    return us // DAY_US


def iso_day(us: int) -> str:
    return datetime.fromtimestamp(us // 1_000_000, UTC).strftime("%Y-%m-%d")


def period_bounds(period: str, now_us: int) -> tuple[int, int]:
    """``(start, end)`` in microseconds of the calendar period that contains ``now_us``."""
    day = day_of(now_us)
    if period == "day":
        return day * DAY_US, (day + 1) * DAY_US
    if period == "week":
        # 1970-01-01 was a Thursday: Monday is weekday 0.
        start = day - (day + 3) % 7
        return start * DAY_US, (start + 7) * DAY_US
    if period == "month":
        moment = datetime.fromtimestamp(now_us // 1_000_000, UTC)
        first = datetime(moment.year, moment.month, 1, tzinfo=UTC)
        days = calendar.monthrange(moment.year, moment.month)[1]
        start = int(first.timestamp()) * 1_000_000
        return start, start + days * DAY_US
    raise ValueError(f"unknown period {period!r}")


def add_months(now_us: int, months: int) -> int:
    """The same moment ``months`` calendar months later (the day clamped to the month's end)."""
    moment = datetime.fromtimestamp(now_us // 1_000_000, UTC)
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    later = moment.replace(year=year, month=month, day=day)
    return int(later.timestamp()) * 1_000_000 + now_us % 1_000_000
