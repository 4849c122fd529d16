"""The store's two SQLite files opened together: the cache and the outbox file; error mapping.

The cache holds what the hub holds (rooms, messages, cursors, roster, meta, search) and may be
set aside and rebuilt; what the human wrote (outbox, drafts) is in the outbox file beside it
(``outbox_file.py``), which nothing here ever sets aside. One connection to each, used from ONE
thread only (``StoreWorker`` owns that thread; they are opened with ``check_same_thread=False``
only so the worker's executor can create and close them). A second ``StoreDatabase`` opened
``beside_writer`` reads the same files on a thread of its own (``StoreWorker.read``), one
moment of them per read (``in_snapshot``).

Durability: cache tables commit with ``synchronous=NORMAL`` (WAL: safe against a killed process;
a power cut may lose the last commits, which a re-sync from the hub repairs). Durable writes (the
outbox, migrations) commit with ``synchronous=FULL`` before returning. A failed write raises
``StoreError`` and leaves nothing half-written.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from parler_desktop.store.errors import StoreProblem, from_sqlite, store_error
from parler_desktop.store.outbox_file import OutboxFile, OutboxRecovery, outbox_path
from parler_desktop.store.schema import MIGRATIONS, OUTBOX_MOVED_VERSION, SCHEMA_VERSION
from parler_desktop.store.sqlite_file import (
    connect_private, connect_read_only, migrate, quarantine, schema_version, write_transaction,
)

ROWS_PER_STEP = 64  # rows one INSERT statement takes (``_insert_at_once``): 64 x 8 columns, well under SQLite's 32,766 parameters
P = ParamSpec("P")
R = TypeVar("R")


def guarded(action: str, *, outbox: bool = False) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn SQLite failures of a public method into a user-facing ``StoreError`` naming the file
    the method works on: the cache, or the ``outbox`` file."""

    def decorate(method: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(method)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(*args, **kwargs)
            except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
                raise  # a bug in our code, not a condition the user can fix
            except sqlite3.Error as exc:
                store: StoreDatabase = args[0]  # type: ignore[assignment]
                path = store._outbox.path if outbox else store.path
                raise from_sqlite(path, exc, action, outbox=outbox) from exc

        return wrapper

    return decorate


class StoreDatabase:
    """The open files; ``LocalStore`` adds the tables' methods."""

    def __init__(self, path: Path, *, read_only: bool = False, beside_writer: bool = False) -> None:
        """``read_only``: open an existing store as files nobody changes meanwhile (no WAL index
        to create, so it opens on a full disk); every write then fails. ``beside_writer`` (read
        only too): files another connection of this process writes meanwhile."""
        self.path = Path(path)
        self.read_only = read_only or beside_writer
        with ExitStack() as opened:
            if self.read_only:
                self._open_read_only(beside_writer)
            else:
                self._db = connect_private(self.path)
            opened.callback(self._db.close)
            self._outbox = OutboxFile(outbox_path(self.path), read_only=self.read_only, beside_writer=beside_writer)
            opened.callback(self._outbox.close)
            if not self.read_only:
                migrate(self._db, self.path, MIGRATIONS, before=self._before_migration)
            opened.pop_all()

    @guarded("opening it read-only")
    def _open_read_only(self, beside_writer: bool) -> None:
        self._db = connect_read_only(self.path, beside_writer=beside_writer)
        if self.schema_version != SCHEMA_VERSION:
            version = self.schema_version
            self._db.close()
            raise store_error(self.path, StoreProblem.FAILED, f"format {version}, not {SCHEMA_VERSION}", "opening it read-only")

    def _before_migration(self, number: int) -> None:
        """The migration that drops the cache's outbox and drafts: their rows move first."""
        if number == OUTBOX_MOVED_VERSION:
            self._outbox.adopt(self._db)

    @property
    def schema_version(self) -> int:
        return schema_version(self._db)

    @property
    def outbox_path(self) -> Path:
        return self._outbox.path

    def outbox_recovery(self) -> OutboxRecovery | None:
        """How a damaged outbox file was replaced as this store opened (None: it was not)."""
        return self._outbox.recovery

    def close(self) -> None:
        self._db.close()
        self._outbox.close()

    @staticmethod
    def quarantine(path: Path) -> Path:
        """Rename a cache file (and its WAL/SHM files) aside, never deleting it; return the new path.

        The next ``LocalStore(path)`` starts with an empty cache (the outbox file stays).
        """
        return quarantine(Path(path))

    @guarded("reading it")
    def in_snapshot(self, read: Callable[..., R], *args: object, **kwargs: object) -> R:
        """``read(self, *args, **kwargs)`` inside a read transaction on each file, so its
        statements all see the files as one commit left them (beside a writer, each statement
        alone would see the latest commit: a count and the page it counts could disagree)."""
        with ExitStack() as reading:
            for db in (self._db, self._outbox.db):
                db.execute("BEGIN")
                reading.callback(db.execute, "COMMIT")  # (a read transaction: nothing to write)
            return read(self, *args, **kwargs)

    @contextmanager
    def _write(self, durable: bool = False) -> Iterator[None]:
        """One write transaction on the cache; ``durable`` commits with synchronous=FULL."""
        with write_transaction(self._db, durable):
            yield

    @guarded("reading settings")
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @guarded("saving settings")
    def set_meta(self, key: str, value: str) -> None:
        with self._write():
            self._set_meta(key, value)

    def _set_meta(self, key: str, value: str) -> None:
        """``set_meta`` inside a write transaction already open."""
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _count(self, sql: str, *params: object) -> int:
        return self._db.execute(sql, params).fetchone()[0]

    def _rows_at_once(self, columns: str, sql: str, params: object = ()) -> list[list]:
        """The rows of ``sql`` (its result's ``columns``, numbers, text or NULL, never a blob),
        in no particular order, read in one step as one JSON array.

        Why: Python's sqlite3 lets go of the GIL for each row it steps to and must take it back
        after; while the window's thread runs Python, each taking back waits for it to let go
        (up to the 5 ms switch interval). A 100-row read took 15 ms on average under traffic
        (bench_hubs.py), up to 225 ms beside a busy thread (1.2 ms alone); as one row, 11-20 ms."""
        found = self._db.execute(f"SELECT json_group_array(json_array({columns})) FROM ({sql})", params).fetchone()[0]
        return json.loads(found)

    def _insert_at_once(self, insert: str, rows: Sequence[Sequence[object]]) -> None:
        """``insert`` (``INSERT … INTO table (column, …)``) of ``rows`` in a few steps: one
        multi-row ``VALUES`` statement for each power-of-two chunk of up to ``ROWS_PER_STEP``
        rows (100 rows: 64, 32, 4), not ``executemany``'s step a row (``_rows_at_once`` says why
        that waits). The chunk sizes keep a handful of statements prepared, however many rows."""
        if not rows:
            return
        row_marks = f"({', '.join('?' * len(rows[0]))})"
        start = 0
        while start < len(rows):
            size = min(ROWS_PER_STEP, 1 << ((len(rows) - start).bit_length() - 1))
            chunk = rows[start:start + size]
            self._db.execute(f"{insert} VALUES {', '.join([row_marks] * size)}", [value for row in chunk for value in row])
            start += size
