"""The progress of a long command (``simulate``, ``rng-report``), drawn by Rich.

On a terminal: a bar that fits its width, the share done, the count, the rate and the time
left (in a notebook, Rich's own widget). Anywhere else (stderr piped or sent to a file)
nothing is written: no control codes end up in a log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


def format_rate(per_second: float) -> str:
    """A large count in a few characters: 43.5M, 1.2k, 999."""
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per_second >= factor:
            return f"{per_second / factor:.1f}{suffix}"
    return f"{per_second:.0f}"


class CountColumn(ProgressColumn):
    """``4.5M/10.0M``: what is done of the total."""

    def render(self, task: Task) -> Text:
        return Text(f"{format_rate(task.completed)}/{format_rate(task.total or 0)}")


class RateColumn(ProgressColumn):
    """``38.2M rounds/s``, from Rich's running estimate of the speed (blank until known)."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{format_rate(speed)} {self.unit}/s")


@contextmanager
def progress(
    total: int, *, unit: str = "rounds", stream: TextIO | None = None
) -> Iterator[Callable[[int], None]]:
    """A bar for ``total`` units of work on ``stream`` (stderr); yields ``update(done)``.

    The bar goes when the block ends (the command's report follows on stdout).
    """
    console = Console(file=stream if stream is not None else sys.stderr)
    bar = Progress(
        BarColumn(),
        TaskProgressColumn(),
        CountColumn(),
        RateColumn(unit),
        TimeRemainingColumn(),
        TextColumn("left"),
        console=console,
        transient=True,
        disable=not (console.is_terminal or console.is_jupyter),
    )
    with bar:
        task = bar.add_task(unit, total=max(total, 1))
        yield lambda done: bar.update(task, completed=done)
