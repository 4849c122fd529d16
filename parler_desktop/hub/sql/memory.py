"""Shared memory facts: keyed upserts, unkeyed appends, keyed and text lookup (§7.15)."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple


class FactRow(NamedTuple):
    text: str
    key: str | None
    room: str | None
    author: str
    ts: int


def keyed_fact_count(conn: sqlite3.Connection, author: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM facts WHERE author=? AND key IS NOT NULL", (author,)
    ).fetchone()[0]


def keyed_fact_exists(conn: sqlite3.Connection, author: str, room: str | None, key: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM facts WHERE author=? AND room IS ? AND key=?", (author, room, key)
    ).fetchone()
    return row is not None


def store_fact(
    conn: sqlite3.Connection, author: str, room: str | None, key: str | None, text: str, now: int
) -> None:
    if key is not None:
        conn.execute("DELETE FROM facts WHERE author=? AND room IS ? AND key=?", (author, room, key))
    conn.execute(
        "INSERT INTO facts (author, room, key, text, ts) VALUES (?, ?, ?, ?, ?)",
        (author, room, key, text, now),
    )


def visible_facts(conn: sqlite3.Connection, agent: str, room: str | None) -> list[FactRow]:
    """The caller's private facts plus those of its rooms (or of ``room`` only), newest first."""
    if room is not None:
        rows = conn.execute(
            "SELECT text, key, room, author, ts FROM facts WHERE room=? ORDER BY ts DESC, id DESC",
            (room,),
        )
    else:
        rows = conn.execute(
            "SELECT text, key, room, author, ts FROM facts WHERE (room IS NULL AND author=?) "
            "OR room IN (SELECT room FROM members WHERE agent=?) ORDER BY ts DESC, id DESC",
            (agent, agent),
        )
    return [FactRow(*row) for row in rows]
