"""StoreError: every SQLite failure the user can act on, phrased for the user.

The local cache holds what the hub holds, so most remedies are "free space", "fix permissions" or
"move the file away and let the app rebuild it from the hub"; the outbox file (what the human
wrote) is never one to move away: a damaged one is recovered when the store opens.
"""

from __future__ import annotations

import enum
import sqlite3
from pathlib import Path

from parler_desktop.disk_errors import is_disk_full


class StoreProblem(enum.Enum):
    CORRUPT = "corrupt"  # not a database / damaged pages: quarantine and rebuild
    DISK_FULL = "disk full"
    UNWRITABLE = "unwritable"  # read-only file or folder, permissions, cannot create
    LOCKED = "locked"  # another process holds the write lock for too long
    TOO_NEW = "too new"  # written by a newer schema than this version knows
    DIVERGED = "diverged"  # the hub sends other messages under stored seqs: its history was reset
    CONFLICT = "conflict"  # a clientId reused for different content
    FAILED = "failed"  # any other I/O or SQLite failure


class StoreError(Exception):
    """A user-facing store failure: ``str(err)`` names the file and what to do.

    ``outbox``: the file in trouble is the outbox file (what the human wrote, ``outbox_file.py``),
    which a fresh cache never replaces."""

    def __init__(self, path: Path, problem: StoreProblem, message: str, *, outbox: bool = False) -> None:
        super().__init__(message)
        self.path = path
        self.problem = problem
        self.outbox = outbox

    @property
    def is_corrupt(self) -> bool:
        return self.problem is StoreProblem.CORRUPT

    @property
    def fresh_cache_fixes(self) -> bool:
        """True when the app should offer "start with a fresh cache" (``LocalStore.start_fresh``)."""
        return self.problem in (StoreProblem.CORRUPT, StoreProblem.DIVERGED) and not self.outbox


# Primary SQLite result codes (the low byte of the extended code).
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY = 3, 5, 6, 8
_SQLITE_CORRUPT, _SQLITE_CANTOPEN, _SQLITE_NOTADB = 11, 14, 26


def problem_of(exc: sqlite3.Error, path: Path) -> StoreProblem:
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreProblem.CORRUPT
    if is_disk_full(exc, path):
        return StoreProblem.DISK_FULL
    if primary in (_SQLITE_READONLY, _SQLITE_PERM, _SQLITE_CANTOPEN):
        return StoreProblem.UNWRITABLE
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return StoreProblem.LOCKED
    return StoreProblem.FAILED


def store_error(path: Path, problem: StoreProblem, detail: str, action: str = "", *, outbox: bool = False) -> StoreError:
    """Build the user-facing error for ``problem`` on ``path`` (the cache, or the ``outbox`` file)
    while doing ``action``."""
    doing = f" while {action}" if action else ""
    what = f"the outbox {path}" if outbox else f"the local message cache {path}"
    subject = what[0].upper() + what[1:]
    if problem is StoreProblem.CORRUPT and outbox:
        text = (
            f"The outbox {path}, which keeps the messages waiting to be sent and the drafts, is "
            f"damaged ({detail}). Start parler-desktop again: it keeps the damaged file aside and "
            "recovers every message still readable in it."
        )
    elif problem is StoreProblem.CORRUPT:
        text = (
            f"The local message cache {path} is damaged ({detail}). The hub keeps every message and "
            "the messages waiting to be sent are kept in a file of their own, so nothing is lost: "
            "move this file away (or choose “Start with a fresh cache”) and the app rebuilds the "
            "cache from the hub."
        )
    elif problem is StoreProblem.DIVERGED:
        text = (
            f"The hub no longer has the history cached in {path} ({detail}); it was probably reset. "
            "Start with a fresh cache: the app moves this file aside and reloads everything from "
            "the hub."
        )
    elif problem is StoreProblem.DISK_FULL:
        text = f"The disk holding {path} is full{doing}; nothing was saved. Free some space and retry."
    elif problem is StoreProblem.UNWRITABLE:
        text = (
            f"Cannot write {what}{doing} ({detail}). Check that the file and its folder exist and "
            "are writable by you."
        )
    elif problem is StoreProblem.LOCKED:
        text = (
            f"{subject} is locked by another program{doing} (another "
            "parler-desktop with the same identity and hub?). Close it and retry."
        )
    elif problem is StoreProblem.TOO_NEW:
        text = f"{subject} was written by a newer parler-desktop ({detail}). Update the app" + (
            "." if outbox else ", or move the file away to start with a fresh cache."
        )
    else:
        text = f"{subject} failed{doing}: {detail}."
    return StoreError(path, problem, text, outbox=outbox)


def from_sqlite(path: Path, exc: sqlite3.Error, action: str, *, outbox: bool = False) -> StoreError:
    return store_error(path, problem_of(exc, path), str(exc), action, outbox=outbox)


def from_os_error(path: Path, exc: OSError, action: str, *, outbox: bool = False) -> StoreError:
    problem = StoreProblem.DISK_FULL if is_disk_full(exc) else StoreProblem.UNWRITABLE
    return store_error(path, problem, exc.strerror or str(exc), action, outbox=outbox)
