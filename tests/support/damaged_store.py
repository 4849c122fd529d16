"""Damage a home's local cache the way disks and crashes do, for the fresh-cache tests."""

from __future__ import annotations

import os
from pathlib import Path

from parler_desktop.store import LocalStore

from test_store import make_message


def fill_and_damage(path: Path, how: str) -> None:
    """Cache a busy room (so the file has pages to lose), then damage the file.

    ``truncated``: the last 40 % cut off (the file no longer opens); ``garbled``: 20 pages of
    noise inside the message table (it opens, then a write fails).
    """
    store = LocalStore(path)
    store.insert_messages([make_message(seq, room="old", text="x" * 500) for seq in range(10**7, 10**7 + 2000)])
    store.close()
    if how == "truncated":
        os.truncate(path, path.stat().st_size * 6 // 10)
        return
    with path.open("r+b") as raw:
        raw.seek(4096 * 50)
        raw.write(os.urandom(4096 * 20))


def set_aside(path: Path) -> list[Path]:
    """The damaged files ``start_fresh`` kept beside ``path`` (without their -wal/-shm)."""
    return [p for p in path.parent.glob(path.name + ".aside-*") if not p.name.endswith(("-wal", "-shm"))]
