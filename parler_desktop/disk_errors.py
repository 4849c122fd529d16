"""A write that failed for lack of space is called "disk full", in those words, everywhere.

The OS says "No space left on device" (ENOSPC) or "Disk quota exceeded" (EDQUOT); the human
needs to hear that the disk is full and that freeing space is the fix.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

DISK_FULL_HINT = "the disk is full — free some space"


_SQLITE_IOERR, _SQLITE_FULL = 10, 13
# Below this many free bytes, an SQLite I/O error is the disk being full: SQLite reports ENOSPC
# while creating its WAL index, for one, as a plain "disk I/O error".
_NEARLY_FULL_BYTES = 1024 * 1024


def is_disk_full(error: BaseException, near: Path | None = None) -> bool:
    """ENOSPC/EDQUOT from the OS, SQLite's "database or disk is full", or (given ``near``, the
    file SQLite was using) an SQLite I/O error while that disk has next to no space left."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        return primary == _SQLITE_FULL or (primary == _SQLITE_IOERR and near is not None and _no_room_near(near))
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def _no_room_near(path: Path) -> bool:
    free = free_bytes_near(path)
    return free is not None and free < _NEARLY_FULL_BYTES


def free_bytes_near(path: Path) -> int | None:
    """Free bytes on the disk that holds (or would hold) ``path``; None if that cannot be told."""
    folder = next((p for p in (path.parent, *path.parents) if p.exists()), None)
    try:
        return None if folder is None else shutil.disk_usage(folder).free
    except OSError:
        return None


def has_room_near(path: Path) -> bool:
    """The disk holding ``path`` has more than next to nothing free again."""
    free = free_bytes_near(path)
    return free is not None and free >= _NEARLY_FULL_BYTES


def os_error_text(error: OSError) -> str:
    """The reason for a failed file operation, for a sentence: "the disk is full — free some
    space" for ENOSPC/EDQUOT, else the OS's words and the file."""
    if is_disk_full(error):
        return DISK_FULL_HINT
    return str(error)
