"""One thread owns the hub's SQLite connection; the event loop hands it jobs.

Jobs that arrive while the thread is busy are run together in one transaction, each inside its
own savepoint (a failing job rolls back only itself), and committed once. The loop hands jobs
over once per loop turn, all the jobs of that turn together, so a burst of requests wakes the
thread once, not once per request.  Callers are answered
only after that commit, so everything a reply acknowledges survives the hub being killed (see
``db.py``), while concurrent senders share one commit.  This is what lets the hub stay responsive and fast without giving up durability.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from parler_desktop.hub.db import open_database

T = TypeVar("T")
Job = tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]

MAX_BATCH = 512


class DbWorker:
    """``await worker.call(fn, *args)`` runs ``fn(conn, *args)`` on the database thread."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._jobs: queue.SimpleQueue[list[Job] | None] = queue.SimpleQueue()
        self._this_turn: list[Job] = []  # jobs to hand over at the end of this loop turn
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opened: asyncio.Future[None] | None = None

    async def start(self) -> None:
        """Open the database on the worker thread; raises what opening raised."""
        self._loop = asyncio.get_running_loop()
        self._opened = self._loop.create_future()
        self._thread = threading.Thread(target=self._run, name="hub-db", daemon=True)
        self._thread.start()
        await self._opened

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        if self._loop is None:
            raise RuntimeError("database worker is not running")
        future: asyncio.Future[T] = self._loop.create_future()
        if not self._this_turn:
            self._loop.call_soon(self._hand_over)
        self._this_turn.append((fn, args, future))
        return await future

    def _hand_over(self) -> None:
        jobs, self._this_turn = self._this_turn, []
        if jobs:
            self._jobs.put(jobs)

    async def stop(self) -> None:
        """Finish every queued job, then close the connection."""
        if self._thread is None:
            return
        self._hand_over()
        self._jobs.put(None)
        await asyncio.to_thread(self._thread.join)
        self._thread = None

    def _run(self) -> None:
        assert self._loop is not None and self._opened is not None
        try:
            conn = open_database(self._path)
        except BaseException as exc:  # reported to start()
            self._loop.call_soon_threadsafe(_settle, [(self._opened, None, exc)])
            return
        self._loop.call_soon_threadsafe(_settle, [(self._opened, None, None)])
        try:
            while True:
                first = self._jobs.get()
                if first is None:
                    return
                batch = first
                stopping = False
                while len(batch) < MAX_BATCH:
                    try:
                        jobs = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if jobs is None:
                        stopping = True
                        break
                    batch.extend(jobs)
                self._run_batch(conn, batch)
                if stopping:
                    return
        finally:
            conn.close()

    def _run_batch(self, conn: sqlite3.Connection, batch: list[Job]) -> None:
        """Run the jobs in one transaction; a storage failure fails the whole batch, never the thread."""
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for fn, args, future in batch:
                conn.execute("SAVEPOINT job")
                try:
                    result = fn(conn, *args)
                except Exception as exc:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    outcomes.append((future, None, exc))
                else:
                    conn.execute("RELEASE job")
                    outcomes.append((future, result, None))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            outcomes = [(future, None, exc) for _, _, future in batch]
        assert self._loop is not None
        self._loop.call_soon_threadsafe(_settle, outcomes)


def _settle(outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, exc in outcomes:
        if future.done():
            continue
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)
