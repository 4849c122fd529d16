"""One hub per database: a second hub on the same file is refused with a message it can print."""

from __future__ import annotations

from pathlib import Path

from parler_desktop.file_lock import ExclusiveFileLock, LockHeld
from parler_desktop.hub.db import HubDatabaseError


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
