"""The store's SQLite file: creating it privately, migrating it, transactions, error mapping.

One connection, used from ONE thread only (``StoreWorker`` owns that thread; the connection is
opened with ``check_same_thread=False`` only so the worker's executor can create and close it).

Durability: cache tables commit with ``synchronous=NORMAL`` (WAL: safe against a killed process;
a power cut may lose the last commits, which a re-sync from the hub repairs). Writes made with
``_write(durable=True)`` (the outbox, migrations) commit with ``synchronous=FULL`` before
returning. A failed write raises ``StoreError`` and leaves nothing half-written.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from parler_desktop.store.errors import StoreProblem, from_os_error, from_sqlite, store_error
from parler_desktop.store.schema import MIGRATIONS, SCHEMA_VERSION

P = ParamSpec("P")
R = TypeVar("R")

BUSY_TIMEOUT_MS = 5000


def guarded(action: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn SQLite failures of a public method into a user-facing ``StoreError``."""

    def decorate(method: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(method)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(*args, **kwargs)
            except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
                raise  # a bug in our code, not a condition the user can fix
            except sqlite3.Error as exc:
                store: StoreDatabase = args[0]  # type: ignore[assignment]
                raise from_sqlite(store.path, exc, action) from exc

        return wrapper

    return decorate


def _make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and any missing parents as 0700 (the cache is private)."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)


class StoreDatabase:
    """The open database file; ``LocalStore`` adds the tables' methods."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """``read_only``: open an existing store as a file nobody changes meanwhile (no WAL index
        to create, so it opens on a full disk); every write then fails."""
        self.path = Path(path)
        if read_only:
            self._open_read_only()
            return
        try:
            _make_private_dirs(self.path.parent)
            # Create it 0600 from the first byte (sqlite would use 0644); it may exist already.
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            pass
        except OSError as exc:
            raise from_os_error(self.path, exc, "creating it") from exc
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise from_sqlite(self.path, exc, "opening it") from exc
        try:
            self._configure()
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @guarded("opening it read-only")
    def _open_read_only(self) -> None:
        self._db = sqlite3.connect(
            f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False
        )
        if self.schema_version != SCHEMA_VERSION:
            version = self.schema_version
            self._db.close()
            raise store_error(self.path, StoreProblem.FAILED, f"format {version}, not {SCHEMA_VERSION}", "opening it read-only")

    @guarded("opening it")
    def _configure(self) -> None:
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = self._enter_wal_mode()
        if mode.lower() != "wal":
            raise store_error(self.path, StoreProblem.UNWRITABLE, f"journal mode stays {mode!r}", "opening it")
        self._db.execute("PRAGMA synchronous = NORMAL")

    def _enter_wal_mode(self) -> str:
        """Switch to WAL, waiting out another connection that is creating the same file.

        Changing the journal mode needs an exclusive lock and SQLite answers "locked" at once
        instead of using the busy timeout, so wait here (on the store's own thread) up to it.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                return self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @guarded("upgrading its format")
    def _migrate(self) -> None:
        """Apply the missing migrations, each in its own write transaction.

        The version is read again inside each transaction: another process opening the same
        fresh store at the same moment may have applied that migration while we waited.
        """
        for number in range(1, SCHEMA_VERSION + 1):
            with self._write(durable=True):
                version = self.schema_version
                if version > SCHEMA_VERSION:
                    detail = f"format {version}; this version knows up to {SCHEMA_VERSION}"
                    raise store_error(self.path, StoreProblem.TOO_NEW, detail)
                if version >= number:
                    continue
                MIGRATIONS[number - 1](self._db)
                self._db.execute(f"PRAGMA user_version = {number}")

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    @staticmethod
    def quarantine(path: Path) -> Path:
        """Rename a store file (and its WAL/SHM files) aside, never deleting it; return the new path.

        The next ``LocalStore(path)`` starts empty. ``LocalStore.start_fresh`` also carries the
        unsent messages over; use this alone only when the old file must not even be read.
        """
        path = Path(path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = path.with_name(f"{path.name}.aside-{stamp}")
        counter = 1
        while target.exists():
            counter += 1
            target = path.with_name(f"{path.name}.aside-{stamp}-{counter}")
        try:
            path.rename(target)
            for suffix in ("-wal", "-shm"):
                sidecar = path.with_name(path.name + suffix)
                if sidecar.exists():
                    sidecar.rename(target.with_name(target.name + suffix))
        except OSError as exc:
            raise from_os_error(path, exc, "moving it aside") from exc
        return target

    @contextmanager
    def _write(self, durable: bool = False) -> Iterator[None]:
        """One write transaction; ``durable`` commits with synchronous=FULL (the outbox)."""
        if durable:
            self._db.execute("PRAGMA synchronous = FULL")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        finally:
            if durable:
                self._db.execute("PRAGMA synchronous = NORMAL")

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
