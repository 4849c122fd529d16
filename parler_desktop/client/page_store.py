"""Storing a pulled page in bounded transactions, so a tight disk still makes progress.

A page may be hundreds of messages (megabytes). Written as one transaction, a disk without room
for all of it refuses the whole page on every retry and the cache never advances. Written in
small transactions, each moving the room's sync mark over its chunk (in the same transaction:
a chunk is never kept above the mark), everything that fits is kept; on a full disk the write
fails at the first message that does not fit (``StoreError``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import StoreError, StoreProblem

MESSAGES_PER_WRITE = 50  # halved while the disk refuses a write, down to one message


async def store_page(
    messages: Sequence[StoredMessage],
    mark: int,
    store: Callable[[Sequence[StoredMessage], int], Awaitable[list[StoredMessage]]],
) -> tuple[int, bool]:
    """Store ``messages`` (ascending by seq) with ``store(chunk, mark)``, one transaction per
    chunk that also moves the sync mark to ``mark``; returns the new mark and whether any
    message was new."""
    stored_any = False
    size = MESSAGES_PER_WRITE
    rest = list(messages)
    while rest:
        chunk = rest[:size]
        chunk_mark = max(mark, max(m.seq for m in chunk))
        try:
            stored_any |= bool(await store(chunk, chunk_mark))
        except StoreError as error:
            if error.problem is not StoreProblem.DISK_FULL or size == 1:
                raise
            size //= 2
            continue
        rest = rest[size:]
        mark = chunk_mark
    return mark, stored_any
