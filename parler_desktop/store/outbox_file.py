"""The outbox file: what the human wrote (the outbox and the drafts), apart from the cache.

The cache is disposable (the hub holds its content), what the human wrote is not: it lives in a
file of its own beside the cache (``outbox_path``), so no damage to the cache and no fresh cache
can touch it. It is small, so every writable open checks it (``PRAGMA quick_check``); a damaged
one is set aside (never deleted) and replaced by a file holding every row still readable in it
(``salvage.py``), which ``OutboxFile.recovery`` reports. Versions before it kept both tables in
the cache: the cache's migration hands their rows over (``adopt``) before dropping them.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.file_lock import ExclusiveFileLock, LockHeld
from parler_desktop.store import codec
from parler_desktop.store.errors import StoreError, StoreProblem, from_sqlite, store_error
from parler_desktop.store.salvage import Written, read_written, salvage_written
from parler_desktop.store.schema import create_drafts_table, create_needs_tables, create_outbox_table
from parler_desktop.store.sqlite_file import (
    BUSY_TIMEOUT_MS, connect_private, connect_read_only, migrate, quarantine, write_transaction,
)

INSERT_ITEM = f"INSERT OR IGNORE INTO outbox ({codec.OUTBOX_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_DRAFT = "INSERT OR IGNORE INTO drafts (room, text, reply_to, reply_label) VALUES (?, ?, ?, ?)"


def outbox_path(store_path: Path) -> Path:
    """The outbox file of the store at ``store_path``: ``<name>.outbox.sqlite3`` beside it."""
    return store_path.with_name(f"{store_path.stem}.outbox{store_path.suffix}")


def _tables(db: sqlite3.Connection) -> None:
    """The outbox and drafts tables as the cache held them."""
    create_outbox_table(db)
    create_drafts_table(db)


MIGRATIONS = (_tables, create_needs_tables)


@dataclass(frozen=True)
class OutboxRecovery:
    """A damaged outbox file was replaced: where it went and what could be read back from it."""

    moved_to: Path
    messages: int
    drafts: int

    @property
    def text(self) -> str:
        return (
            f"The outbox was damaged: {self.messages} message(s) and {self.drafts} draft(s) could be "
            f"read back from it; the damaged file is kept as {self.moved_to}."
        )


class OutboxFile:
    """The open outbox file; ``OutboxTables`` and ``DraftTables`` read and write it."""

    def __init__(self, path: Path, *, read_only: bool = False, beside_writer: bool = False) -> None:
        """``read_only``/``beside_writer``: as ``StoreDatabase``'s."""
        self.path = path
        self.recovery: OutboxRecovery | None = None
        if read_only:
            try:
                self.db = connect_read_only(path, beside_writer=beside_writer)
            except sqlite3.Error as exc:
                raise from_sqlite(path, exc, "opening it read-only", outbox=True) from exc
            return
        try:
            self.db = self._open_checked()
        except StoreError as error:
            if not error.is_corrupt:
                raise
            self._recover()

    def _open_checked(self) -> sqlite3.Connection:
        db = connect_private(self.path, outbox=True)
        try:
            migrate(db, self.path, MIGRATIONS, outbox=True)
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise store_error(self.path, StoreProblem.CORRUPT, verdict, "checking it", outbox=True)
        except sqlite3.Error as exc:
            db.close()
            raise from_sqlite(self.path, exc, "checking it", outbox=True) from exc
        except BaseException:
            db.close()
            raise
        return db

    def _recover(self) -> None:
        """Set the damaged file aside and open a new one holding every row still readable in it
        (one process at a time; another one may have done it meanwhile)."""
        with self._recovery_lock():
            try:
                self.db = self._open_checked()
                return
            except StoreError as error:
                if not error.is_corrupt:
                    raise
            written = salvage_written(self.path)
            moved = quarantine(self.path, outbox=True)
            self.db = self._open_checked()
            try:
                self.take(written)
            except BaseException:
                self.db.close()
                raise
        self.recovery = OutboxRecovery(moved, len(written.items), len(written.drafts))

    @contextmanager
    def _recovery_lock(self) -> Iterator[None]:
        lock_path = self.path.with_name(self.path.name + ".lock")
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                lock = ExclusiveFileLock.acquire(lock_path)
                break
            except LockHeld:
                if time.monotonic() > deadline:
                    raise store_error(self.path, StoreProblem.LOCKED, "being recovered", "recovering it", outbox=True) from None
                time.sleep(0.05)
            except OSError as exc:
                raise store_error(self.path, StoreProblem.UNWRITABLE, exc.strerror or str(exc), "recovering it", outbox=True) from exc
        with lock:
            yield

    @contextmanager
    def write(self, durable: bool = False) -> Iterator[None]:
        with write_transaction(self.db, durable):
            yield

    def take(self, written: Written) -> None:
        """Add ``written`` durably; what this file holds already wins (it is the newer state)."""
        try:
            with self.write(durable=True):
                self.db.executemany(INSERT_ITEM, [codec.outbox_row(item) for item in written.items])
                self.db.executemany(
                    INSERT_DRAFT, [(d.room, d.text, d.reply_to, d.reply_label) for d in written.drafts]
                )
        except sqlite3.Error as exc:
            raise from_sqlite(self.path, exc, "saving recovered messages", outbox=True) from exc

    def adopt(self, cache: sqlite3.Connection) -> None:
        """Take the outbox and drafts an older version kept in the cache (``cache``, in its
        migration's transaction): committed here before the migration drops them there."""
        self.take(read_written(cache))

    def close(self) -> None:
        self.db.close()
