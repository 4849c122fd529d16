"""Stored messages, the global seq, per-member cursors and the pull algorithm (protocol.md §7.2)."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

COLUMNS = "seq, id, room, author, author_name, author_role, parts, mentions, reply_to, ts"


class MessageRow(NamedTuple):
    seq: int
    id: str
    room: str
    author: str
    author_name: str
    author_role: str | None
    parts: str  # JSON array text, normalized parts
    mentions: str | None  # JSON array text
    reply_to: str | None
    ts: int


class NewMessage(NamedTuple):
    id: str
    room: str
    author: str
    author_name: str
    author_role: str | None
    parts: str
    mentions: str | None
    reply_to: str | None
    ts: int
    client_id: str | None


class PullResult(NamedTuple):
    messages: list[MessageRow]
    cursor: int


def find_replay(conn: sqlite3.Connection, room: str, author: str, client_id: str) -> MessageRow | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM messages WHERE room=? AND author=? AND client_id=?",
        (room, author, client_id),
    ).fetchone()
    return MessageRow(*row) if row else None


def insert_message(conn: sqlite3.Connection, message: NewMessage) -> MessageRow:
    cursor = conn.execute(
        "INSERT INTO messages (id, room, author, author_name, author_role, parts, mentions, "
        "reply_to, ts, client_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        message,
    )
    seq = cursor.lastrowid
    assert seq is not None
    return MessageRow(seq, *message[:9])


def record_dispatches(conn: sqlite3.Connection, row: MessageRow, roles: list[str]) -> None:
    conn.executemany(
        "INSERT OR IGNORE INTO dispatches (message, room, role, seq) VALUES (?, ?, ?, ?)",
        [(row.id, row.room, role, row.seq) for role in roles],
    )


def member_cursor(conn: sqlite3.Connection, room: str, agent: str) -> int | None:
    row = conn.execute(
        "SELECT cursor FROM members WHERE room=? AND agent=?", (room, agent)
    ).fetchone()
    return row[0] if row else None


def read_after(conn: sqlite3.Connection, room: str, after: int, limit: int) -> list[MessageRow]:
    if limit <= 0:
        return []
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM messages WHERE room=? AND seq>? ORDER BY seq LIMIT ?",
        (room, after, limit),
    )
    return [MessageRow(*row) for row in rows]


def pull(
    conn: sqlite3.Connection,
    room: str,
    agent: str,
    since: int | None,
    ack: int | None,
    limit: int,
) -> PullResult | None:
    """One pull; ``None`` when ``agent`` is not a member of ``room``."""
    stored = member_cursor(conn, room, agent)
    if stored is None:
        return None
    if since is not None:
        messages = read_after(conn, room, since, limit)
        return PullResult(messages, messages[-1].seq if messages else since)
    cursor = stored
    if ack is not None and ack > cursor:
        cursor = ack
        _set_cursor(conn, room, agent, cursor)
    messages = read_after(conn, room, cursor, limit)
    if messages and ack is None:
        _set_cursor(conn, room, agent, messages[-1].seq)
    return PullResult(messages, messages[-1].seq if messages else cursor)


def _set_cursor(conn: sqlite3.Connection, room: str, agent: str, cursor: int) -> None:
    conn.execute("UPDATE members SET cursor=? WHERE room=? AND agent=?", (cursor, room, agent))
