"""Pulled pages stored behind the pulls, several rooms per transaction.

A catch-up pulls page after page (after a night away, hundreds of them). Each page used to wait
for its writes before the next pull went out, one transaction per 50 messages; and since a seq is
hub-global, one room's messages of the night sit between every other room's rows, so each of
those transactions rewrote most of the table's newest pages again (34 µs a message written a room
at a time, 16 µs twenty rooms at a time). So the pulls queue their pages here and go on; the
writer stores them ``MESSAGES_PER_WRITE`` at a time, in one transaction each, each chunk moving
its room's sync mark in that transaction: a chunk is never kept above its mark.

The writes wait for the pulls: they start once the pulls are over (``flush``), or once the
budget below is spent and a pull waits for room. Written as they came, they took the cores (a write is mostly
Python holding the GIL) from the pulls, which then took 1.6 s instead of 1.3 s for a night of
50,000 messages on five hubs (bench_hubs.py's wake); meanwhile the room list counts and shows
what the pulls brought (``MessagesPulled``), so nothing waits for the writes to be seen. For
the same reason a writer whose pulls are over waits for those of the other hubs in the process,
for ``OTHER_PULLS_WAIT_SECS`` at most (the first hub done wrote while the others still pulled).

One write at a time in the process, whichever hub's: a write is 10-20 ms of work on its store's
thread, much of it Python holding the GIL, and five hubs' writes at once kept the window's thread
from it (bench_hubs' wake: stalls of 54-73 ms, 35-38 ms one write at a time, the wake as fast).

Bounded: at most ``PULLED_MAX`` decoded messages pulled and not stored in the process, every
hub's counted, and counted from the moment a page is asked for: a pull ``reserve``s the most its
page can hold before it goes out (in flight, then in the pull's hands, then queued here), and
what is stored or the room's pull did not use (``release``) is free again. A pull that finds no
room waits, and every writer with a queue writes until it has. Before, only what waited here was
bounded (50,000), not the pages asked for at once nor those in the pulls' hands: a soak's
catch-ups held up to 68,000 decoded messages at their peaks, each peak higher than the last
adding arenas Python keeps (bench_memory.py; issue 42). A pull that waits while the room it
needs is held only by pulls that wait too (pages in their hands, nothing to write) is let go:
the bound is then exceeded by what that pull brings until it queues a page (one pull at a time). Why not less: see ``PULLED_MAX``
(the budget is what a wake after a night holds before it writes). A tight disk
still progresses: a write the disk refuses is tried again with half as many messages, down to
one, each part moving its room's mark only over what it holds; any other failure ends the writer,
and the pulls' next ``reserve`` or ``put`` (or ``flush``) raises it.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import StoreError, StoreProblem

MESSAGES_PER_WRITE = 1000  # one transaction at most (halved while the disk refuses a write)
PULLED_MAX = 51_000  # decoded messages (~1 KB each) pulled or asked for and not stored, every hub's, before the pulls wait.
# A night of 50,000 over five hubs' 500 rooms (bench_hubs' wake) must fit, with the one more each room's first page asks
# for (``first_page_limit``; at 50,000 the last rooms waited for writes, pulled a few at a time for 0.8 s): any less is
# written mid catch-up, beside the pulls.
# 20,000 queued: wake 2.94-3.47 s against 1.58-1.71 s at 50,000; 30,000 counted as here: 5.5 and 6.3 s against 3.9
# and 4.2 s at 50,000 (a loaded machine, load 6-8; the bare client 2.4-3.4 s)
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
        self.queued = 0  # messages queued by all of them
        self.reserved = 0  # messages their pulls asked for (or hold) and did not queue yet
        self.peak = 0  # the most pulled and not stored at once (``PULLED_MAX``; the benches print it)
        self.waiting: dict[PageWriter, int] = {}  # writers whose pulls wait for room, and for how much
        self.room = asyncio.Event()  # set when a write, a release or a close made room, or a pull waits

    @property
    def pulled(self) -> int:
        """Messages pulled (or asked for) and not stored."""
        return self.queued + self.reserved

    def short(self) -> bool:
        """A pull waits for room the writes would make."""
        return any(self.pulled + messages > PULLED_MAX for messages in self.waiting.values())

    def stuck(self) -> bool:
        """Every writer still pulling waits for room, and none has anything queued (or a write
        under way) to make it: the room is in the waiting pulls' own hands."""
        return self.pulling <= self.waiting.keys() and not any(w._queue or w._task for w in self.writers)

    def start_writing(self) -> None:
        """A pull waits for room: every writer with a queue writes (see ``_drain``)."""
        for writer in list(self.writers):
            writer._start()

    def counted(self, queued: int, reserved: int) -> None:
        self.queued += queued
        self.reserved += reserved
        self.peak = max(self.peak, self.pulled)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Writers] = weakref.WeakKeyDictionary()


def _writers() -> _Writers:
    loop = asyncio.get_running_loop()
    if loop not in _loops:
        _loops[loop] = _Writers()
    return _loops[loop]


def pulled_peak(*, reset: bool = False) -> int:
    """The most messages pulled (or asked for) and not stored at once on the running loop, every
    hub's (``PULLED_MAX``), since the last ``reset``: the benches print it beside the memory."""
    shared = _writers()
    peak = shared.peak
    if reset:
        shared.peak = shared.pulled
    return peak


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
        self._reserved: dict[str, int] = {}  # room -> messages its pull asked for (or holds) and did not queue
        self._stored_new: set[str] = set()  # rooms of the pulls in progress that got new rows
        self._tasks = TaskSupervisor("page-writer", log_failures=False)
        self._task: asyncio.Task[None] | None = None
        self._flushing = False  # write what is queued, a whole write's worth or not
        self._failure: BaseException | None = None
        self._shared = _writers()
        self._shared.pulling.add(self)
        self._shared.writers.add(self)

    def free(self) -> int:
        """How many more messages the pulls may ask for now without waiting (``PULLED_MAX``)."""
        return max(0, PULLED_MAX - self._shared.pulled)

    async def reserve(self, pages: Iterable[tuple[str, int]]) -> None:
        """Room for ``pages`` (room, the most messages its page may hold) about to be asked
        for; waits while the process's pulled messages leave none (the writers write meanwhile),
        unless the room is held by waiting pulls alone (``stuck``). Raises what ended the writer."""
        pages = list(pages)
        messages = sum(count for _room, count in pages)
        shared = self._shared
        shared.waiting[self] = messages
        shared.room.set()  # (the other waiting pulls look again: all of them may be waiting now)
        try:
            while shared.pulled + messages > PULLED_MAX and self._failure is None and not shared.stuck():
                shared.start_writing()
                shared.room.clear()
                await shared.room.wait()
        finally:
            del shared.waiting[self]
        self._raise_failure()
        for room, count in pages:
            self._reserved[room] = self._reserved.get(room, 0) + count
        shared.counted(0, messages)

    def release(self, room: str, messages: int | None = None) -> None:
        """``messages`` reserved for ``room`` are free again (a page came back short of what it
        asked for); all it reserved and did not queue when its pull is over (None)."""
        if freed := self._unreserve(room, messages):
            self._shared.counted(0, -freed)
            self._shared.room.set()

    def _unreserve(self, room: str, messages: int | None) -> int:
        """Take up to ``messages`` (None: all) off ``room``'s reservation; how many it held."""
        reserved = self._reserved.pop(room, 0)
        taken = reserved if messages is None else min(messages, reserved)
        if reserved > taken:
            self._reserved[room] = reserved - taken
        return taken

    def put(self, item: Queued) -> None:
        """Queue ``item`` (its messages move from its room's reservation to the queue). Raises
        what ended the writer (a ``StoreError``)."""
        self._raise_failure()
        self._queue.append(item)
        if isinstance(item, PulledChunk):
            messages = len(item.messages)
            self._count(messages, -self._unreserve(item.room, messages))
            if self._shared.short():  # a pull waits: this page's write may make its room
                self._start()

    async def flush(self) -> None:
        """The pulls are over: until everything queued is stored (and reported done), once the
        other writers' pulls are over too or ``OTHER_PULLS_WAIT_SECS`` have passed (what its pulls
        reserved is free at once); raises what ended the writer."""
        self._pulls_over()
        self._release_all()
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
        self._release_all()
        self._shared.room.set()
        await self._tasks.cancel_all()

    def _count(self, queued: int, reserved: int = 0) -> None:
        self._queued_messages += queued
        self._shared.counted(queued, reserved)

    def _release_all(self) -> None:
        for room in list(self._reserved):
            self.release(room)

    def _pulls_over(self) -> None:
        if self in self._shared.pulling:
            self._shared.pulling.discard(self)
            self._shared.pulls_over.set()
            self._shared.room.set()  # (the pulls still waiting may be all that is left: ``stuck``)

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    async def _drain(self) -> None:
        try:
            size = MESSAGES_PER_WRITE
            while self._queue and (self._flushing or self._shared.short()):
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
            self._shared.room.set()  # (pulls waiting for room may be all that is left: ``stuck``)

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
