"""The folder the workers of one ``baccarat serve`` share their metrics through
(prometheus-client's multiprocess mode: each worker writes its values to files of its own
there, and the worker answering ``GET /metrics`` sums them).

prometheus-client chooses its mode when it is first imported, from ``PROMETHEUS_MULTIPROC_DIR``:
``prepare`` sets it before anything imports the library, in the process that then starts
the workers (they inherit it). This module imports nothing of it.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def prepare() -> Path:
    """The folder of this deployment's metrics: the operator's (``$PROMETHEUS_MULTIPROC_DIR``),
    emptied of a former run's files (a counter would otherwise start from the old run's
    values; this process's own, made as the library was imported, stay), else a new
    temporary folder, removed when this process exits. Called by ``baccarat serve`` before
    it starts its workers (new processes, which inherit the variable)."""
    given = os.environ.get(VARIABLE)
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        mine = f"_{os.getpid()}.db"
        for stale in folder.glob("*.db"):
            if not stale.name.endswith(mine):
                with contextlib.suppress(FileNotFoundError):
                    stale.unlink()
        return folder
    folder = Path(tempfile.mkdtemp(prefix="baccarat-metrics-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ[VARIABLE] = str(folder)
    return folder


def shared() -> bool:
    """Whether the metrics of this process are shared with other workers' (a folder set)."""
    return bool(os.environ.get(VARIABLE))
