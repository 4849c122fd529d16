"""Fixed-window rate budgets kept in memory (protocol.md §7.16).

A window opens at the first counted event and resets ``window_secs`` later; keys are agent ids,
room names or source IPs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable

from parler_desktop.hub.config import RateBudget

PRUNE_EVERY = 4096


class FixedWindowLimiter:
    """``allow(key)`` counts one event and says whether it fits the budget."""

    def __init__(self, budget: RateBudget, clock: Callable[[], float] = time.monotonic) -> None:
        self._budget = budget
        self._clock = clock
        self._windows: dict[Hashable, list[float | int]] = {}
        self._calls = 0

    def allow(self, key: Hashable) -> bool:
        now = self._clock()
        self._calls += 1
        if self._calls % PRUNE_EVERY == 0:
            self._prune(now)
        window = self._windows.get(key)
        if window is None or now - window[0] >= self._budget.window_secs:
            self._windows[key] = [now, 1]
            return True
        window[1] += 1
        return window[1] <= self._budget.count

    def _prune(self, now: float) -> None:
        expired = [k for k, (start, _) in self._windows.items() if now - start >= self._budget.window_secs]
        for key in expired:
            del self._windows[key]
