"""Exclusive OS file locks: one hub per database, one window per home (``instance_lock``).

The lock is the operating system's lock on an open lock file, held for as long as the file stays
open. The kernel drops it when the process ends however it ends, so a crash never leaves a stale
lock behind and there is nothing to clean up. On POSIX it is ``flock`` (two opens of one file
conflict even inside one process); on Windows ``msvcrt.locking`` on the file's first byte.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl


class LockHeld(Exception):
    """Someone else holds the lock: ``path`` is the lock file."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is locked by another process")
        self.path = path


class ExclusiveFileLock:
    """An exclusive, non-blocking lock on ``path`` (created 0600), held until ``release()``."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor: int | None = descriptor

    @classmethod
    def acquire(cls, path: Path) -> "ExclusiveFileLock":
        """Take the lock now or raise ``LockHeld``; OSError if the file cannot be opened."""
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if sys.platform == "win32":
                msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
            else:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            raise LockHeld(path) from None
        return cls(path, descriptor)

    def release(self) -> None:
        """Give the lock up (closing the file releases it); releasing twice is harmless."""
        if self._descriptor is not None:
            descriptor, self._descriptor = self._descriptor, None
            os.close(descriptor)

    def __enter__(self) -> "ExclusiveFileLock":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()
