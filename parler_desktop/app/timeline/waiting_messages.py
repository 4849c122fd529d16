"""Messages waiting to enter the timeline: taken oldest first, each seq once.

In a burst the window falls behind the socket and thousands of messages wait; sorting all of them
again for each frame's few rows took an eighth of the window's thread (``bench/bench_ui.py``).
Here a heap of their seqs gives the oldest ones in O(log n) each.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any


class WaitingMessages:
    def __init__(self) -> None:
        self._by_seq: dict[int, Any] = {}
        self._seqs: list[int] = []  # a heap of the keys of _by_seq

    def __len__(self) -> int:
        return len(self._by_seq)

    def add(self, messages: Iterable[Any]) -> None:
        """Messages with a ``seq``; one whose seq is already waiting replaces it."""
        for message in messages:
            if message.seq not in self._by_seq:
                heapq.heappush(self._seqs, message.seq)
            self._by_seq[message.seq] = message

    def take(self, count: int) -> list[Any]:
        """The oldest ``count`` waiting messages (fewer if fewer wait), ascending by seq."""
        taken = []
        while self._seqs and len(taken) < count:
            taken.append(self._by_seq.pop(heapq.heappop(self._seqs)))
        return taken

    def clear(self) -> None:
        self._by_seq.clear()
        self._seqs.clear()
