"""Time as the session sees it, injectable so reconnect timing is tested without real waits."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (stops while the machine sleeps)."""

    def time(self) -> float:
        """Wall-clock seconds since the epoch (jumps forward across a sleep)."""

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of this clock's time."""


class SystemClock:
    """The real clocks and ``asyncio.sleep``."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


async def wait_or_timeout(event: asyncio.Event, clock: Clock, seconds: float) -> bool:
    """Wait until ``event`` is set or ``seconds`` of ``clock`` pass; True if the event fired."""
    if event.is_set():
        return True
    waiter = asyncio.ensure_future(event.wait())
    timer = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait((waiter, timer), return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        timer.cancel()
    return event.is_set()
