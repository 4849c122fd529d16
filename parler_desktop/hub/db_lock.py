"""Exclusive OS file locks: one hub per database (and, via ``instance_lock``, one window per home).

The lock is the operating system's lock on an open lock file, held for as long as the file stays
open. The kernel drops it when the process ends however it ends, so a crash never leaves a stale
lock behind and there is nothing to clean up. On POSIX it is ``flock`` (two opens of one file
conflict even inside one process); on Windows ``msvcrt.locking`` on the file's first byte.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from parler_desktop.hub.db import HubDatabaseError

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
        path.parent.mkdir(parents=True, exist_ok=True)
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

    @property
    def held(self) -> bool:
        return self._descriptor is not None

    def release(self) -> None:
        """Give the lock up (closing the file releases it); releasing twice is harmless."""
        if self._descriptor is not None:
            descriptor, self._descriptor = self._descriptor, None
            os.close(descriptor)

    def __enter__(self) -> "ExclusiveFileLock":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def lock_file_for(db_path: Path) -> Path:
    return Path(db_path).with_name(Path(db_path).name + ".lock")


def lock_database(db_path: Path) -> ExclusiveFileLock:
    """Claim ``db_path`` for this hub; a second hub on it gets a HubDatabaseError it can print."""
    try:
        return ExclusiveFileLock.acquire(lock_file_for(db_path))
    except LockHeld:
        raise HubDatabaseError(f"another hub is using {db_path}") from None
    except OSError as exc:
        raise HubDatabaseError(f"cannot lock hub database {db_path}: {exc.strerror or exc}") from exc
