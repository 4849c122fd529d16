"""One desktop window per home.

A second window on the same home would start a second embedded hub over the same hub database
and a second session over the same local store. The window therefore holds an OS lock on a file
in the home's data dir for its whole life (see ``file_lock.py``: the kernel releases it when the
process ends, so there are no stale locks). The headless ``listen`` and ``send`` commands share
the store safely and do not take it.
"""

from __future__ import annotations

from pathlib import Path

from parler_desktop.file_lock import ExclusiveFileLock, LockHeld
from parler_desktop.paths import Home

LOCK_FILE = "window.lock"


class AlreadyRunning(Exception):
    """Another window holds this home; ``str()`` tells the user what to do."""

    def __init__(self, home_path: Path) -> None:
        super().__init__(
            f"parler-desktop is already running for this home ({home_path}); "
            "switch to its window, or use --home DIR for another identity"
        )
        self.home_path = home_path


def home_path(home: Home) -> Path:
    """The directory a user would recognise as the home: the --home DIR, else the data dir."""
    if home.config_dir.parent == home.data_dir.parent:
        return home.data_dir.parent
    return home.data_dir


def lock_home(home: Home) -> ExclusiveFileLock:
    """Claim ``home`` for this process until the lock is released or the process ends.

    Raises ``AlreadyRunning`` when another window holds it, OSError if the file cannot be made.
    """
    try:
        return ExclusiveFileLock.acquire(home.data_dir / LOCK_FILE)
    except LockHeld:
        raise AlreadyRunning(home_path(home)) from None
