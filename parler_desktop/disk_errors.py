"""A write that failed for lack of space is called "disk full", in those words, everywhere.

The OS says "No space left on device" (ENOSPC) or "Disk quota exceeded" (EDQUOT); the human
needs to hear that the disk is full and that freeing space is the fix.
"""

from __future__ import annotations

import errno
import sqlite3

DISK_FULL_HINT = "the disk is full — free some space"


_SQLITE_FULL = 13


def is_disk_full(error: BaseException) -> bool:
    """ENOSPC/EDQUOT from the OS, or SQLite's "database or disk is full"."""
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return isinstance(code, int) and code & 0xFF == _SQLITE_FULL
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def os_error_text(error: OSError) -> str:
    """The reason for a failed file operation, for a sentence: "the disk is full — free some
    space" for ENOSPC/EDQUOT, else the OS's words and the file."""
    if is_disk_full(error):
        return DISK_FULL_HINT
    return str(error)
