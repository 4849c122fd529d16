"""A clock tests move by hand: ``sleep`` returns only when ``advance`` passes its deadline."""

from __future__ import annotations

import asyncio

WALL_OFFSET = 1_700_000_000.0


class ManualClock:
    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._wall_offset = WALL_OFFSET
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def monotonic(self) -> float:
        return self._now

    def time(self) -> float:
        return self._now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future = asyncio.get_running_loop().create_future()
        entry = (self._now + seconds, future)
        self._sleepers.append(entry)
        try:
            await future
        finally:
            if entry in self._sleepers:
                self._sleepers.remove(entry)

    def advance(self, seconds: float) -> None:
        """Move both clocks forward and wake every sleeper whose deadline has come."""
        self._now += seconds
        for deadline, future in list(self._sleepers):
            if deadline <= self._now + 1e-6 and not future.done():  # wall-time rounding
                future.set_result(None)

    def sleep_machine(self, seconds: float) -> None:
        """The machine was suspended: only the wall clock moved."""
        self._wall_offset += seconds

    async def settle(self, rounds: int = 20) -> None:
        """Let everything that can run without the clock moving run."""
        for _ in range(rounds):
            await asyncio.sleep(0)
