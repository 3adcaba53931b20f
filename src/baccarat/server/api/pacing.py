"""Request rates: token buckets.

* Per-account rates for the reads whose answers are large (history pages, the revealed
  seeds, the roads): a token bucket per account in this worker, taken inside the read's own
  unit of work once the caller is known and before the rows are read; and the same
  allowance per session token before any database work, so that a caller who keeps asking
  past their allowance is refused without costing a query (``before_reading``).
* The same buckets per client address for the anonymous reads (``api.guard``), and one
  ``Allowance`` per WebSocket for the messages it sends (``api.sockets``)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Hashable
from typing import Any

from baccarat.server.errors import RateLimited

# A player paging through their history does a few a second at most.
READS_PER_S = 10.0
READS_BURST = 30
_MAX_TRACKED = 100_000


def _refilled(tokens: float, at: float, now: float, per_s: float, burst: int) -> float:
    return min(float(burst), tokens + (now - at) * per_s)


class Allowance:
    """One token bucket, for one user (a socket's task): ``take`` spends one if it can."""

    def __init__(self, per_s: float, burst: int):
        self.per_s, self.burst = per_s, burst
        self.tokens, self.at = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = _refilled(self.tokens, self.at, now, self.per_s, self.burst)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class AccountRate:
    def __init__(self, per_s: float = READS_PER_S, burst: int = READS_BURST):
        self.per_s, self.burst = per_s, burst
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: Hashable) -> None:
        """Spend one request of the allowance of ``key`` (an account's id, a session, a
        client address), or refuse (429, Retry-After)."""
        with self._lock:
            now = time.monotonic()
            tokens, at = self._buckets.get(key, (float(self.burst), now))
            tokens = _refilled(tokens, at, now, self.per_s, self.burst)
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
