"""Per-user rate limiting for questions from chat (``discord.rate_limit``), a sliding window.

A user may ask ``count`` questions in any ``per_seconds`` window. A refused ask is not
counted, so someone who waits the time they were told is always let in.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from bot.config import RateLimit

_SWEEP_EVERY = 1000  # admissions between sweeps of users whose window has emptied


class RateLimiter:
    """Counts each user's recent asks; the clock is injectable for tests."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._asks: dict[str, deque[float]] = {}
        self._since_sweep = 0

    def acquire(self, user: str) -> float:
        """Count an ask by ``user`` and return 0, or return the seconds until one is allowed."""
        moment = self._clock()
        window = self._asks.setdefault(user, deque())
        self._expire(window, moment)
        if len(window) >= self.limit.count:
            return max(window[0] + self.limit.per_seconds - moment, 0.001)
        window.append(moment)
        self._since_sweep += 1
        if self._since_sweep >= _SWEEP_EVERY:
            self._sweep(moment)
        return 0.0

    def _expire(self, window: deque[float], moment: float) -> None:
        while window and window[0] + self.limit.per_seconds <= moment:
            window.popleft()

    def _sweep(self, moment: float) -> None:
        # Without this, every user who ever asked would keep an empty entry forever.
        self._since_sweep = 0
        for user in list(self._asks):
            window = self._asks[user]
            self._expire(window, moment)
            if not window:
                del self._asks[user]


def whole_seconds(wait: float) -> int:
    """A wait as the whole number of seconds to tell someone (never 0)."""
    return max(1, math.ceil(wait))
