"""Blob metadata and which rooms each blob was uploaded to (bytes live on disk, see BlobFiles)."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple


class BlobRow(NamedTuple):
    id: str
    media_type: str | None
    size: int


def total_size(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT COALESCE(sum(size), 0) FROM blobs").fetchone()[0]


def get_blob(conn: sqlite3.Connection, blob: str) -> BlobRow | None:
    row = conn.execute("SELECT id, media_type, size FROM blobs WHERE id=?", (blob,)).fetchone()
    return BlobRow(*row) if row else None


def store_blob(
    conn: sqlite3.Connection, blob: str, media_type: str | None, size: int, room: str, now: int
) -> None:
    """Record the blob once (content addressed) and bind it to ``room``."""
    conn.execute(
        "INSERT OR IGNORE INTO blobs (id, media_type, size, created) VALUES (?, ?, ?, ?)",
        (blob, media_type, size, now),
    )
    conn.execute("INSERT OR IGNORE INTO blob_rooms (blob, room) VALUES (?, ?)", (blob, room))


def reachable_by(conn: sqlite3.Connection, blob: str, agent: str) -> bool:
    """Whether ``agent`` is a member of a room the blob was uploaded to."""
    row = conn.execute(
        "SELECT 1 FROM blob_rooms b JOIN members m ON m.room=b.room WHERE b.blob=? AND m.agent=? LIMIT 1",
        (blob, agent),
    ).fetchone()
    return row is not None


def mark_fetched(conn: sqlite3.Connection, blob: str, now: int) -> None:
    conn.execute("UPDATE blobs SET last_fetched=? WHERE id=?", (now, blob))
