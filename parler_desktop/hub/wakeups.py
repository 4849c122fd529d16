"""Parked long-polls, one set per room, woken by a new message, an approval or a deletion.

A pull registers its waiter *before* it reads, so a message committed between the read and the
park still wakes it.
"""

from __future__ import annotations

import asyncio


class RoomWakeups:
    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Future[None]]] = {}
        self._closed = False

    def register(self, room: str) -> asyncio.Future[None]:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._closed:
            waiter.set_result(None)
        else:
            self._waiters.setdefault(room, set()).add(waiter)
        return waiter

    def unregister(self, room: str, waiter: asyncio.Future[None]) -> None:
        waiters = self._waiters.get(room)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiters[room]
        if not waiter.done():
            waiter.cancel()

    def wake(self, room: str) -> None:
        for waiter in self._waiters.pop(room, ()):
            if not waiter.done():
                waiter.set_result(None)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def parked(self) -> int:
        """How many polls are parked right now."""
        return sum(len(waiters) for waiters in self._waiters.values())

    def close(self) -> None:
        """Release every parked poll now and every later one at once (the hub is stopping)."""
        self._closed = True
        for room in list(self._waiters):
            self.wake(room)
