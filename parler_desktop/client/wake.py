"""Resume detection: notice that the machine slept, so a dead socket is probed at once.

While a laptop sleeps the monotonic clock stops but the wall clock keeps going, so after resume
the wall clock has advanced much more than the monotonic one between two ticks. (A large manual
clock change looks the same; probing then costs one ping, which is harmless.)
"""

from __future__ import annotations

from collections.abc import Callable

from parler_desktop.client.clock import Clock

DEFAULT_TICK_SECS = 1.0
DEFAULT_JUMP_SECS = 5.0


class ResumeDetector:
    """Call ``on_resume(gap_secs)`` whenever wall time outruns monotonic time by ``jump_secs``."""

    def __init__(
        self,
        clock: Clock,
        on_resume: Callable[[float], None],
        *,
        tick_secs: float = DEFAULT_TICK_SECS,
        jump_secs: float = DEFAULT_JUMP_SECS,
    ) -> None:
        self._clock = clock
        self._on_resume = on_resume
        self.tick_secs = tick_secs
        self.jump_secs = jump_secs

    def check(self, previous: tuple[float, float]) -> tuple[float, float]:
        """Compare with the ``(wall, monotonic)`` pair of the previous tick; return the new pair."""
        now = (self._clock.time(), self._clock.monotonic())
        gap = (now[0] - previous[0]) - (now[1] - previous[1])
        if gap >= self.jump_secs:
            self._on_resume(gap)
        return now

    async def run(self) -> None:
        """Tick forever (run it under a TaskSupervisor)."""
        mark = (self._clock.time(), self._clock.monotonic())
        while True:
            await self._clock.sleep(self.tick_secs)
            mark = self.check(mark)
