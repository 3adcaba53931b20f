"""Per-account request rates for the reads whose answers are large (history pages, the
revealed seeds, the roads): a token bucket per account in this worker, taken inside the
read's own unit of work once the caller is known and before the rows are read; and the
same allowance per session token before any database work, so that a caller who keeps
asking past their allowance is refused without costing a query (``before_reading``)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Hashable
from typing import Any

from ..errors import RateLimited

# A player paging through their history does a few a second at most.
READS_PER_S = 10.0
READS_BURST = 30
_MAX_TRACKED = 100_000


class AccountRate:
    def __init__(self, per_s: float = READS_PER_S, burst: int = READS_BURST):
        self.per_s, self.burst = per_s, burst
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: Hashable) -> None:
        """Spend one request of the allowance of ``key`` (an account's id, a session), or
        refuse (429, Retry-After)."""
        with self._lock:
            now = time.monotonic()
            tokens, at = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.per_s)
            if tokens < 1:
                wait = max(1, math.ceil((1 - tokens) / self.per_s))
                raise RateLimited("too many requests: slow down", retry_after_s=wait)
            if len(self._buckets) >= _MAX_TRACKED:
                self._buckets.clear()  # a full bucket for everyone: generous, and bounded
            self._buckets[key] = (tokens - 1, now)


def reads(app: Any) -> AccountRate:
    """The app's account rate for large reads (made on first use)."""
    rate: AccountRate | None = getattr(app.state, "reads", None)
    if rate is None:
        rate = app.state.reads = AccountRate()
    return rate


def before_reading(app: Any, token_hash: str | None) -> AccountRate:
    """Spend the session's allowance before the read (no query when refused); the app's
    rate, for the account's own allowance inside the read."""
    rate = reads(app)
    if token_hash is not None:
        rate.take(("session", token_hash))
    return rate
