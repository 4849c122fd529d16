"""What the store's two SQLite files share: created private, WAL, migrations, transactions, set aside.

The cache (``database.py``) and the outbox file (``outbox_file.py``) are opened, migrated and
written the same way; only the error messages differ (``outbox`` names the file that holds what
the human wrote). Every failure raises ``StoreError``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from parler_desktop.store.errors import StoreProblem, from_os_error, from_sqlite, store_error

BUSY_TIMEOUT_MS = 5000
# The page cache of a connection reading beside a writer (KiB; SQLite's default is ~2 MB a
# connection): it reads a page of a room at a time (a few dozen rows), and one is open per hub.
READER_CACHE_KIB = 512

Migration = Callable[[sqlite3.Connection], None]


def _make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and any missing parents as 0700 (the store is private)."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)


def connect_private(path: Path, *, outbox: bool = False) -> sqlite3.Connection:
    """Open ``path`` (created 0600 from its first byte, its folders 0700) in WAL mode; a new
    cache with incremental vacuum (an existing file keeps its own)."""
    try:
        _make_private_dirs(path.parent)
        # Create it 0600 from the first byte (sqlite would use 0644); it may exist already.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    except OSError as exc:
        raise from_os_error(path, exc, "creating it", outbox=outbox) from exc
    try:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise from_sqlite(path, exc, "opening it", outbox=outbox) from exc
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not outbox:  # a new cache can shrink as it is pruned (retention.py); only before WAL writes its first page
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # (set later, it took a VACUUM rewriting the whole file)
        mode = _enter_wal_mode(db)
        if mode.lower() != "wal":
            raise store_error(path, StoreProblem.UNWRITABLE, f"journal mode stays {mode!r}", "opening it", outbox=outbox)
        db.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error as exc:
        db.close()
        raise from_sqlite(path, exc, "opening it", outbox=outbox) from exc
    except BaseException:
        db.close()
        raise
    return db


def connect_read_only(path: Path, *, beside_writer: bool = False) -> sqlite3.Connection:
    """Open an existing file read-only; raises ``sqlite3.Error``. One that nobody changes
    meanwhile (no WAL index to create: it opens on a full disk), or ``beside_writer``: one that a
    writable connection (``connect_private``) has open in WAL mode, read beside its writes, each
    read transaction seeing what was committed when it began."""
    if not beside_writer:
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None, check_same_thread=False)
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")
    return db


def _enter_wal_mode(db: sqlite3.Connection) -> str:
    """Switch to WAL, waiting out another connection that is creating the same file.

    Changing the journal mode needs an exclusive lock and SQLite answers "locked" at once
    instead of using the busy timeout, so wait here (on the store's own thread) up to it.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def schema_version(db: sqlite3.Connection) -> int:
    return db.execute("PRAGMA user_version").fetchone()[0]


def migrate(
    db: sqlite3.Connection, path: Path, migrations: Sequence[Migration], *, outbox: bool = False,
    before: Callable[[int], None] = lambda number: None,
) -> None:
    """Apply the missing migrations, each in its own durable write transaction (after
    ``before(number)``, inside it).

    The version is read again inside each transaction: another process opening the same fresh
    file at the same moment may have applied that migration while we waited.
    """
    try:
        for number in range(1, len(migrations) + 1):
            with write_transaction(db, durable=True):
                version = schema_version(db)
                if version > len(migrations):
                    detail = f"format {version}; this version knows up to {len(migrations)}"
                    raise store_error(path, StoreProblem.TOO_NEW, detail, outbox=outbox)
                if version >= number:
                    continue
                before(number)
                migrations[number - 1](db)
                db.execute(f"PRAGMA user_version = {number}")
    except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise  # a bug in our code, not a condition the user can fix
    except sqlite3.Error as exc:
        raise from_sqlite(path, exc, "upgrading its format", outbox=outbox) from exc


@contextmanager
def write_transaction(db: sqlite3.Connection, durable: bool = False) -> Iterator[None]:
    """One write transaction; ``durable`` commits with synchronous=FULL (the outbox)."""
    if durable:
        db.execute("PRAGMA synchronous = FULL")
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    finally:
        if durable:
            db.execute("PRAGMA synchronous = NORMAL")


def quarantine(path: Path, *, outbox: bool = False) -> Path:
    """Rename a file (and its WAL/SHM files) aside, never deleting it; return the new path."""
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
        raise from_os_error(path, exc, "moving it aside", outbox=outbox) from exc
    return target
