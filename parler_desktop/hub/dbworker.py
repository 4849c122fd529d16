"""The hub's SQLite connection, used by the event loop in batches of jobs.

The jobs handed in while the loop is busy run together, on the first loop turn that adds none
(see ``_run_once_settled``), in one transaction, each inside its own savepoint (a failing job
rolls back only itself), committed once. Callers are answered only after that commit, so
everything a reply acknowledges survives the hub being killed (see ``db.py``), while concurrent
senders share one commit.

The jobs run on the loop's own thread, not on a database thread. A job is a few short
statements; a thread would need the GIL back after each of them, and with the loop thread busy
that ping-pong cost the hub more than the statements did (about a fifth of its CPU per send, and
a quarter of its ping rate, in ``bench/bench_hub.py``). Blob bytes, which could take long, are
read and written on worker threads (``blobfiles.py``); pulls are capped at 1,000 rows. What
holds up the loop, as on a database thread it held up every job queued behind it: the hourly
retention sweep, a scan of the messages table (about 0.2 s at 200,000 messages); a commit that
runs SQLite's WAL auto-checkpoint (its fsyncs: a few ms on a local disk); and another process
holding the write lock (an admin's ``sqlite3`` shell), waited for up to ``busy_timeout``
(``db.py``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from parler_desktop.hub.db import HubDatabaseConnection, open_database

T = TypeVar("T")
Job = tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]

MAX_WAIT_TURNS = 4  # bench_hub.py, 10 agents: 2 → 0.57-0.75× the floor, 4 → 0.66-0.78×, 8 → 0.56-0.68×


class DbWorker:
    """``await worker.call(fn, *args)`` runs ``fn(conn, *args)`` in the next batch."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._conn: HubDatabaseConnection | None = None
        self._pending: list[Job] = []  # the next batch
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        """Open the database; raises what opening raised."""
        self._loop = asyncio.get_running_loop()
        self._conn = open_database(self._path)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        if self._conn is None or self._loop is None:
            raise RuntimeError("the hub database is not open")
        future: asyncio.Future[T] = self._loop.create_future()
        self._pending.append((fn, args, future))
        if len(self._pending) == 1:
            self._loop.call_soon(self._run_once_settled, 1, 0)
        return await future

    def _run_once_settled(self, seen: int, waited: int) -> None:
        """Run the batch once a loop turn has added nothing to it, or after ``MAX_WAIT_TURNS``.

        Jobs come from frames read together: a busy hub's batch keeps growing for a turn or
        two, and one commit for all of it is cheaper than one per turn (with ten agents sending,
        ~20% less CPU per send); a quiet hub's single job waits no longer than before."""
        if len(self._pending) > seen and waited < MAX_WAIT_TURNS:
            self._loop.call_soon(self._run_once_settled, len(self._pending), waited + 1)
        else:
            self._run_pending()

    async def stop(self) -> None:
        """Run every job already handed in, then close the connection."""
        if self._conn is None:
            return
        self._run_pending()
        self._conn.close()
        self._conn = None

    def _run_pending(self) -> None:
        batch, self._pending = self._pending, []
        if batch and self._conn is not None:
            _settle(_run_batch(self._conn, batch))


def _run_batch(conn: HubDatabaseConnection, batch: list[Job]) -> list[tuple[asyncio.Future[Any], Any, BaseException | None]]:
    """Run the jobs in one transaction; a storage failure fails the whole batch, never the hub.

    A job alone in its batch needs no savepoint: its transaction rolls back just as much (on a
    busy hub about half the batches, two statements fewer each)."""
    outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
    alone = len(batch) == 1
    end = "COMMIT"
    try:
        conn.execute("BEGIN IMMEDIATE")
        for fn, args, future in batch:
            if not alone:
                conn.execute("SAVEPOINT job")
            try:
                result = fn(conn, *args)
            except Exception as exc:
                if alone:
                    end = "ROLLBACK"
                else:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                conn.forget_uncommitted()  # what the job read may hold what it rolls back
                outcomes.append((future, None, exc))
            else:
                if not alone:
                    conn.execute("RELEASE job")
                outcomes.append((future, result, None))
        conn.execute(end)
    except sqlite3.Error as exc:
        conn.forget_uncommitted()  # what the batch read may hold what it rolls back
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        outcomes = [(future, None, exc) for _, _, future in batch]
    return outcomes


def _settle(outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, exc in outcomes:
        if future.done():  # its caller was cancelled; the job ran all the same
            continue
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(result)
