"""A one-line progress bar on a terminal: share done, rate and time left."""

from __future__ import annotations

import time
from typing import TextIO

# A bar appears only once a run has lasted this long, and is redrawn at most this often.
SHOW_AFTER = 1.0
REDRAW_EVERY = 0.1
WIDTH = 30


def format_duration(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def format_rate(per_second: float) -> str:
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per_second >= factor:
            return f"{per_second / factor:.1f}{suffix}"
    return f"{per_second:.0f}"


class ProgressBar:
    """Draws ``[####....]  45.0%  4.5M/10.0M  38.2M rounds/s  0:03 left`` on ``stream``."""

    def __init__(self, total: int, stream: TextIO, *, unit: str = "rounds"):
        self.total = total
        self.stream = stream
        self.unit = unit
        self.start = time.monotonic()
        self.last_draw = 0.0
        self.drawn = False

    def line(self, done: int, elapsed: float) -> str:
        share = done / self.total if self.total else 1.0
        filled = int(WIDTH * share)
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (self.total - done) / rate if rate > 0 else 0.0
        return (
            f"[{'#' * filled}{'.' * (WIDTH - filled)}] {share * 100:5.1f}%  "
            f"{format_rate(done)}/{format_rate(self.total)}  "
            f"{format_rate(rate)} {self.unit}/s  {format_duration(left)} left"
        )

    def update(self, done: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < SHOW_AFTER or now - self.last_draw < REDRAW_EVERY:
            return
        self.last_draw = now
        self.drawn = True
        self.stream.write("\r" + self.line(done, elapsed) + "\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        """Clear the bar's line, if one was drawn."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
