"""The push inbox: deliveries wait here until the session stores them.

Pushes are doorbells, not the record (the cursor and ``since`` pulls are), so when the consumer
falls behind the oldest ones are dropped rather than growing memory without bound (a hub pushing
50,000 a second for 20 s took the window from 116 to 650 MB); the rooms of dropped pushes are
pulled (``HubConnection.dropped_rooms``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

Item = TypeVar("Item")

DEFAULT_CAPACITY = 1024  # protocol.md §9.2


class BoundedInbox(Generic[Item]):
    """A FIFO that drops its oldest item when full; ``dropped`` counts the losses."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("inbox capacity must be at least 1")
        self._items: deque[Item] = deque(maxlen=capacity)
        self._ready = asyncio.Event()
        self.dropped = 0

    def put(self, item: Item) -> Item | None:
        """Queue ``item``; returns the oldest item if it was dropped to make room."""
        lost = None
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
            lost = self._items[0]
        self._items.append(item)
        self._ready.set()
        return lost

    def drain(self) -> list[Item]:
        """Everything waiting, oldest first, without blocking."""
        items = list(self._items)
        self._items.clear()
        self._ready.clear()
        return items

    async def wait(self) -> list[Item]:
        """Wait until something arrives, then take everything waiting."""
        while not self._items:
            self._ready.clear()
            await self._ready.wait()
        return self.drain()
