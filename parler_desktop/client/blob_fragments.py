"""A blob's bytes on their way from the connection's reader to the download taking them.

The reader puts each fragment of the blob's binary message as it is read; at most ``DEPTH`` wait,
and the reader waits for room (so the socket's buffers fill and TCP slows the hub down): a blob is
never held whole here, however fast the hub sends. The end of the message, a frame the hub sent
in place of the bytes, or the line closing end the stream without waiting.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any

DEPTH = 4


class LineClosed:
    """The stream's end when the line closed before the message did."""


END = None  # the message's end: every byte came
Item = Any  # bytes, END, LineClosed, or the hub frame that came instead of the bytes


class Fragments:
    def __init__(self, depth: int = DEPTH) -> None:
        self._items: collections.deque[Item] = collections.deque()
        self._depth = depth
        self._changed = asyncio.Event()
        self.dropped = False  # the download stopped taking them: the reader's puts are let go

    async def put(self, item: Item) -> None:
        """The reader's side: waits while ``DEPTH`` items wait."""
        while len(self._items) >= self._depth and not self.dropped:
            self._changed.clear()
            await self._changed.wait()
        if not self.dropped:
            self._items.append(item)
            self._changed.set()

    def end(self, item: Item) -> None:
        """A last item that cannot wait (the line closed, or a frame came instead of the bytes)."""
        self._items.append(item)
        self._changed.set()

    async def get(self) -> Item:
        while not self._items:
            self._changed.clear()
            await self._changed.wait()
        item = self._items.popleft()
        self._changed.set()
        return item

    def drop(self) -> None:
        """The download is over: nothing more is kept, and a reader waiting for room goes on."""
        self.dropped = True
        self._items.clear()
        self._changed.set()
