"""Reconnect delays: exponential with full jitter, reset after a healthy stretch.

"Full jitter" (a uniform draw between 0 and the exponential ceiling) spreads many clients that
lost the same hub at the same moment, so a restarted hub is not hit by a synchronized wave.
"""

from __future__ import annotations

import random


class Backoff:
    """Counts consecutive failures and turns the count into the next delay."""

    def __init__(self, *, base: float = 0.5, cap: float = 30.0, rng: random.Random | None = None) -> None:
        if base <= 0 or cap < base:
            raise ValueError("backoff needs 0 < base <= cap")
        self.base = base
        self.cap = cap
        self._rng = rng or random.Random()
        self.attempt = 0

    def ceiling(self, attempt: int) -> float:
        """The largest delay after ``attempt`` consecutive failures (1-based)."""
        exponent = min(max(attempt - 1, 0), 62)  # 2**62 * base is past any cap; avoids overflow
        return min(self.cap, self.base * 2**exponent)

    def failed(self) -> float:
        """Record one more failure; return how long to wait before the next attempt."""
        self.attempt += 1
        return self._rng.uniform(0.0, self.ceiling(self.attempt))

    def again(self) -> float:
        """A failure of an attempt the human asked for (Retry now): the same wait as before,
        not a longer one — asking should never make the next automatic attempt come later."""
        return self._rng.uniform(0.0, self.ceiling(max(self.attempt, 1)))

    def reset(self) -> None:
        """The connection proved healthy: the next failure starts from the base again."""
        self.attempt = 0
