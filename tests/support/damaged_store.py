"""Damage a home's local files the way disks and crashes do, for the fresh-cache tests."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from parler_desktop.store import LocalStore

from test_store import make_message

KIB = 1024


def damage(path: Path, how: str) -> None:
    """Damage ``path`` "truncated to half", with its "first 8 KiB overwritten" or with "64 KiB in
    its middle overwritten" (by noise)."""
    size = path.stat().st_size
    if how == "truncated to half":
        os.truncate(path, size // 2)
        return
    start, length = {"first 8 KiB overwritten": (0, 8 * KIB), "64 KiB in its middle overwritten": (size // 2 - 32 * KIB, 64 * KIB)}[how]
    with path.open("r+b") as raw:
        raw.seek(start)
        raw.write(os.urandom(length))


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


def garble_a_middle_leaf(path: Path, table: str) -> None:
    """Overwrite one leaf page from the middle of ``table`` (the rows before and after it stay)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        leaves = [page for (page,) in db.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (table,))]
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
    assert len(leaves) >= 3, f"{table} has too few pages to lose only some"
    with path.open("r+b") as raw:
        raw.seek((leaves[len(leaves) // 2] - 1) * page_size)
        raw.write(os.urandom(page_size))


def set_aside(path: Path) -> list[Path]:
    """The damaged files ``start_fresh`` kept beside ``path`` (without their -wal/-shm)."""
    return [p for p in path.parent.glob(path.name + ".aside-*") if not p.name.endswith(("-wal", "-shm"))]
