"""Pulled pages stored behind the pulls, several rooms per transaction.

A catch-up pulls page after page (after a night away, hundreds of them). Each page used to wait
for its writes before the next pull went out, one transaction per 50 messages; and since a seq is
hub-global, one room's messages of the night sit between every other room's rows, so each of
those transactions rewrote most of the table's newest pages again (34 µs a message written a room
at a time, 16 µs twenty rooms at a time). So the pulls queue their pages here and go on; the
writer stores them ``MESSAGES_PER_WRITE`` at a time, in one transaction each, each chunk moving
its room's sync mark in that transaction: a chunk is never kept above its mark.

The writes wait for the pulls: they start once the pulls are over (``flush``), or once
``MAX_QUEUED`` messages wait. Written as they came, they took the cores (a write is mostly
Python holding the GIL) from the pulls, which then took 1.6 s instead of 1.3 s for a night of
50,000 messages on five hubs (bench_hubs.py's wake); meanwhile the room list counts and shows
what the pulls brought (``MessagesPulled``), so nothing waits for the writes to be seen. For
the same reason a writer whose pulls are over waits for those of the other hubs in the process,
for ``OTHER_PULLS_WAIT_SECS`` at most (the first hub done wrote while the others still pulled).

One write at a time in the process, whichever hub's: a write is 10-20 ms of work on its store's
thread, much of it Python holding the GIL, and five hubs' writes at once kept the window's thread
from it (bench_hubs' wake: stalls of 54-73 ms, 35-38 ms one write at a time, the wake as fast).

Bounded: at most ``MAX_QUEUED`` messages wait in the process, every hub's writer counted (then
the pulls wait for the writers, which write beside them from then on): a bound a hub, as it was,
let five hubs' catch-ups hold 100,000 messages (~1 KB each; issue 47). A tight disk
still progresses: a write the disk refuses is tried again with half as many messages, down to
one, each part moving its room's mark only over what it holds; any other failure ends the writer,
and the pulls' next ``put`` (or ``flush``) raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import StoreError, StoreProblem

MESSAGES_PER_WRITE = 1000  # one transaction at most (halved while the disk refuses a write)
MAX_QUEUED = 50_000  # pulled messages waiting for the writers (~1 KB each), every hub's, before the pulls wait too
# (20,000 made a night of 50,000 over five hubs wait mid catch-up: bench_hubs' wake 2.94-3.47 s; 1.58-1.71 s at
# 50,000, as at 100,000, the five hubs' 20,000 each before the budget was shared)
OTHER_PULLS_WAIT_SECS = 1.0  # how long pulls that are over wait for other hubs' to write


@dataclass(frozen=True)
class PulledChunk:
    """Messages of ``room`` (ascending by seq) to store; ``mark``: the room's sync mark once they
    are stored."""

    room: str
    messages: Sequence[StoredMessage]
    mark: int


@dataclass(frozen=True)
class RoomPulled:
    """The room's pull is complete with the chunks queued before this; ``hub_unread`` as the
    ``rooms`` call counted it (None: not listed)."""

    room: str
    hub_unread: int | None


class _Writers:
    """What the page writers on one loop share."""

    def __init__(self) -> None:
        self.turn = asyncio.Lock()  # held for each write
        self.pulling: set[PageWriter] = set()  # writers whose pulls are not over
        self.pulls_over = asyncio.Event()  # set when one of them is
        self.writers: weakref.WeakSet[PageWriter] = weakref.WeakSet()  # not closed
        self.queued = 0  # messages queued by all of them (``MAX_QUEUED``)
        self.room = asyncio.Event()  # set when a write or a close made room in the queues

    def start_writing(self) -> None:
        """``MAX_QUEUED`` messages wait: every writer with a queue writes (see ``_drain``)."""
        for writer in list(self.writers):
            writer._start()


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Writers] = weakref.WeakKeyDictionary()


def _writers() -> _Writers:
    loop = asyncio.get_running_loop()
    if loop not in _loops:
        _loops[loop] = _Writers()
    return _loops[loop]


def write_turn() -> asyncio.Lock:
    """The lock every page writer on the running loop takes for a write (see the module
    docstring), and search indexing for each batch (``sync.py``): one at a time in the process."""
    return _writers().turn


Queued = PulledChunk | RoomPulled
Write = Callable[[list[PulledChunk]], Awaitable[set[str]]]  # -> the rooms that got new rows
Done = Callable[[list[tuple[RoomPulled, bool]]], Awaitable[None]]  # rooms complete, whether any new row


class PageWriter:
    """Stores what the pulls queue, in order, on a task of its own (see the module docstring)."""

    def __init__(self, write: Write, done: Done) -> None:
        self._write = write
        self._done = done
        self._queue: list[Queued] = []
        self._queued_messages = 0
        self._stored_new: set[str] = set()  # rooms of the pulls in progress that got new rows
        self._tasks = TaskSupervisor("page-writer", log_failures=False)
        self._task: asyncio.Task[None] | None = None
        self._flushing = False  # write what is queued, a whole write's worth or not
        self._failure: BaseException | None = None
        self._shared = _writers()
        self._shared.pulling.add(self)
        self._shared.writers.add(self)

    async def put(self, item: Queued) -> None:
        """Queue ``item``; waits while ``MAX_QUEUED`` messages wait already (this hub's or any
        other's). Raises what ended the writer (a ``StoreError``)."""
        shared = self._shared
        while shared.queued >= MAX_QUEUED and self._failure is None:
            shared.start_writing()
            shared.room.clear()
            await shared.room.wait()
        self._raise_failure()
        self._queue.append(item)
        if isinstance(item, PulledChunk):
            self._count(len(item.messages))
        if shared.queued >= MAX_QUEUED:
            shared.start_writing()

    async def flush(self) -> None:
        """The pulls are over: until everything queued is stored (and reported done), once the
        other writers' pulls are over too or ``OTHER_PULLS_WAIT_SECS`` have passed; raises what
        ended the writer."""
        self._pulls_over()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + OTHER_PULLS_WAIT_SECS
        while self._queue and self._shared.pulling and loop.time() < deadline:
            self._shared.pulls_over.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._shared.pulls_over.wait(), deadline - loop.time())
        self._flushing = True
        self._start()
        while self._task is not None:
            await asyncio.wait([self._task])
        self._raise_failure()

    def _start(self) -> None:
        if self._task is None and self._queue and self._failure is None:
            self._task = self._tasks.spawn("write", self._drain())

    async def close(self) -> None:
        """Stop writing: what is queued is dropped (its marks never moved, so it is pulled again),
        a write under way completes (``Committer``)."""
        self._pulls_over()
        self._shared.writers.discard(self)
        self._queue.clear()
        self._count(-self._queued_messages)
        self._shared.room.set()
        await self._tasks.cancel_all()

    def _count(self, messages: int) -> None:
        self._queued_messages += messages
        self._shared.queued += messages

    def _pulls_over(self) -> None:
        if self in self._shared.pulling:
            self._shared.pulling.discard(self)
            self._shared.pulls_over.set()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    async def _drain(self) -> None:
        try:
            size = MESSAGES_PER_WRITE
            while self._queue and (
                self._flushing or self._queued_messages >= size or self._shared.queued >= MAX_QUEUED
            ):
                batch, finished = self._take(size)
                try:
                    if batch:
                        async with write_turn():
                            self._stored_new |= await self._write(batch)
                except StoreError as error:
                    if error.problem is not StoreProblem.DISK_FULL or sum(len(c.messages) for c in batch) <= 1:
                        raise
                    self._queue[:0] = [*batch, *finished]  # again, half of it
                    size = max(1, size // 2)
                    continue
                self._count(-sum(len(chunk.messages) for chunk in batch))
                self._shared.room.set()
                if finished:
                    await self._done([(room, room.room in self._stored_new) for room in finished])
                    self._stored_new -= {room.room for room in finished}
        except BaseException as error:
            self._failure = error
            self._shared.room.set()
            if not isinstance(error, Exception):
                raise
        finally:
            self._task = None

    def _take(self, size: int) -> tuple[list[PulledChunk], list[RoomPulled]]:
        """The next write: chunks of up to ``size`` messages in all (a chunk split if it alone is
        larger: its first part's mark is its last seq), and the rooms those complete."""
        batch: list[PulledChunk] = []
        finished: list[RoomPulled] = []
        room_left = size
        while self._queue:
            item = self._queue[0]
            if isinstance(item, RoomPulled):
                finished.append(self._queue.pop(0))
                continue
            if len(item.messages) > room_left:
                if batch:
                    break
                head, tail = item.messages[:room_left], item.messages[room_left:]
                self._queue[0] = PulledChunk(item.room, tail, item.mark)
                batch.append(PulledChunk(item.room, head, head[-1].seq))
                break
            batch.append(self._queue.pop(0))
            room_left -= len(item.messages)
        return batch, finished
