"""StoreWorker: a LocalStore on its own thread, so SQLite never blocks the window's event loop.

A command without a window (``listen``, ``send``) runs it on its event loop's own thread instead
(``on_loop``): that loop serves nothing but the command, and handing each call to another thread
and its result back cost more than most calls (``bench/bench_push.py``, timed inside ``listen``:
a pushed message was printed 0.82–0.86 ms after it was read off the socket with the store on its
thread, 0.63–0.69 ms with it on the loop). Each call there still ends with a turn of the loop, so
a long series of calls (a backlog indexed for search, pages of a catch-up) lets the connection be
served between them. A wait for another process's write lock (up to ``database.py``'s busy
timeout) holds the command's loop meanwhile.

The window's store also has a reader: a second, read-only connection on a thread of its own
(``StoreWorker.read``), for the reads a human waits on. On the one thread, a room opened under
traffic waited for every push queued before it to be stored (bench/bench_hubs.py, 60 msg/s over
five hubs: from the click to the room's page in, p99 52.5 ms of a 50 ms budget); WAL lets the
reader read beside the writer."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from parler_desktop.store.errors import StoreError, StoreProblem
from parler_desktop.store.local_store import LocalStore
from parler_desktop.store.signatures import SignatureCheck

P = ParamSpec("P")
T = TypeVar("T")

log = logging.getLogger(__name__)


class StoreWorker:
    """Owns one ``LocalStore`` on one dedicated thread; the loop only awaits its results.

    Calls run one at a time in the order their coroutines start (a call is handed to the thread
    when its coroutine first runs), so a write awaited before a read is visible to it.
    Cancelling an ``await worker.call(...)`` does not stop the call: a write that started still
    completes (the caller only stops waiting for it). With ``on_loop`` the same holds, the
    calls running on the loop's thread (see the module's docstring).

    ``read`` is the exception to that order, where a reader is open (its own thread, writable
    and not ``on_loop``): a read sees every write whose call returned before the read was made,
    and one moment of the files, but not a write only queued (its coroutine started, not yet
    returned), which may land before or after it. A caller showing what it read keeps what is
    stored after it asked from the events announcing the writes (``TimelineModel``).
    """

    def __init__(self, path: Path, *, read_only: bool = False, on_loop: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._executor = None if on_loop else ThreadPoolExecutor(max_workers=1, thread_name_prefix="parler-store")
        self._store: LocalStore | None = None
        self._reading: ThreadPoolExecutor | None = None  # the reader's thread
        self._reader: LocalStore | None = None  # set on the reader's thread once open
        self._signature_of: SignatureCheck | None = None
        self._reader_opening: Future[None] | None = None

    async def open(self) -> None:
        """Open (create, migrate) the store on the worker thread; raises ``StoreError``."""
        if self._store is not None:
            raise RuntimeError("StoreWorker is already open")
        self._store = await self._run(LocalStore, self.path, read_only=self.read_only)
        if self._executor is not None and not self.read_only:  # opened on its thread meanwhile:
            self._reading = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parler-store-reader")
            self._reader_opening = self._reading.submit(self._open_reader)  # a session's opening, at launch, does not wait for it

    async def reader_opened(self) -> bool:
        """Once the reader's opening is over: whether ``read`` reads beside the writes."""
        if self._reader_opening is not None:
            await asyncio.wrap_future(self._reader_opening)
        return self._reader is not None

    def _open_reader(self) -> None:
        """On the reader's thread: the reader beside the open store (``read`` takes the writer's
        turn until it is open, and for good if it fails to open)."""
        try:
            reader = LocalStore(self.path, beside_writer=True)
        except StoreError as error:
            log.warning("the store's reads wait their turn behind its writes: %s", error)
            return
        if self._signature_of is not None:
            reader.check_signatures_with(self._signature_of)
        self._reader = reader

    def _check_reader(self, signature_of: SignatureCheck) -> None:
        if self._reader is not None:  # (on the reader's thread: after its opening)
            self._reader.check_signatures_with(signature_of)

    def _close_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()

    def check_signatures_with(self, signature_of: SignatureCheck) -> None:
        """``LocalStore.check_signatures_with`` ahead of every call made after this one (it needs
        no await, so a session sets it as it is made, before anything is stored or read)."""
        if self._store is None:
            raise RuntimeError("StoreWorker.check_signatures_with() needs open() first")
        if self._executor is None:
            self._store.check_signatures_with(signature_of)
        else:
            self._executor.submit(self._store.check_signatures_with, signature_of)
        self._signature_of = signature_of
        if self._reading is not None:
            self._reading.submit(self._check_reader, signature_of)

    async def call(self, fn: Callable[Concatenate[LocalStore, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn(store, *args, **kwargs)`` on the worker thread and return its result."""
        if self._store is None:
            raise RuntimeError("StoreWorker.call() needs open() first and cannot follow close()")
        return await self._run(fn, self._store, *args, **kwargs)

    async def read(self, fn: Callable[Concatenate[LocalStore, P], T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn(store, *args, **kwargs)``, which only reads, on the reader beside the writes
        (one moment of the files: ``LocalStore.in_snapshot``), or as ``call`` where there is no
        reader. For what a human waits on: each read there is one more thread wanting the GIL."""
        return await self.read_soon(fn, *args, **kwargs)

    def read_soon(self, fn: Callable[Concatenate[LocalStore, P], T], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[T]:
        """``read``, handed to the reader's thread now rather than when an awaiting coroutine
        first runs: a room clicked is read while the window paints the click (a task started
        for it ran a turn of the loop later, 8 ms p50 under bench_hubs.py's traffic). Every
        failure, a closed store's too, comes with the result."""
        reader, reading = self._reader, self._reading
        if reader is None or reading is None or self._store is None:
            return asyncio.ensure_future(self.call(fn, *args, **kwargs))
        snapshot = functools.partial(reader.in_snapshot, fn, *args, **kwargs)
        return asyncio.get_running_loop().run_in_executor(reading, snapshot)

    async def index_all_pending(self, turn: asyncio.Lock | None = None, up_to: int | None = None) -> None:
        """Make every message stored for later indexing searchable (pushes: store/search.py), or
        those with seq ≤ ``up_to``, a small batch per call, so the loop's thread runs between the
        batches (each holding ``turn``, when given: it queues behind other writes that hold it);
        raises ``StoreError``."""
        while True:
            async with turn or contextlib.nullcontext():
                if not await self.call(LocalStore.index_pending, up_to=up_to):
                    return

    async def close(self) -> None:
        """Close the store after the calls already queued; later calls raise RuntimeError."""
        store, self._store = self._store, None
        reading, self._reading = self._reading, None
        try:
            if reading is not None:  # (after its opening, on its thread)
                await asyncio.get_running_loop().run_in_executor(reading, self._close_reader)
            if store is not None:
                await self._run(store.close)
        finally:
            for executor in (reading, self._executor):
                if executor is not None:
                    executor.shutdown(wait=False)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._executor is None:
            result = fn(*args, **kwargs)
            await asyncio.sleep(0)  # the loop's turn between one call and the next
            return result
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))


async def open_for_session(path: Path, *, on_loop: bool = False) -> tuple[StoreWorker, StoreError | None]:
    """The store a session works on: writable, or — when the disk is too full to open it so —
    read-only, with the reason: the window still shows the cached rooms and messages."""
    writable = StoreWorker(path, on_loop=on_loop)
    try:
        await writable.open()
        return writable, None
    except StoreError as error:
        await writable.close()
        if error.problem is not StoreProblem.DISK_FULL or not Path(path).exists():
            raise
        read_only = StoreWorker(path, read_only=True, on_loop=on_loop)
        try:
            await read_only.open()
        except StoreError:
            await read_only.close()
            raise error from None
        return read_only, error
