"""Service-room work queues: dispatched messages per role and their claims (§7.15)."""

from __future__ import annotations

import sqlite3

from parler_desktop.hub.sql.messages import COLUMNS, MessageRow


def served_role(conn: sqlite3.Connection, room: str, agent: str) -> str | None:
    row = conn.execute(
        "SELECT service_role FROM members WHERE room=? AND agent=?", (room, agent)
    ).fetchone()
    return row[0] if row else None


def open_dispatches(conn: sqlite3.Connection, room: str, role: str, now: int, limit: int) -> list[MessageRow]:
    """Dispatched messages for ``role`` nobody holds a live lease on and nobody completed."""
    rows = conn.execute(
        f"SELECT {', '.join('m.' + c.strip() for c in COLUMNS.split(','))} FROM dispatches d "
        "JOIN messages m ON m.id=d.message LEFT JOIN claims c ON c.message=d.message "
        "WHERE d.room=? AND d.role=? AND (c.message IS NULL OR (c.status IS NULL AND c.lease_until<=?)) "
        "ORDER BY d.seq LIMIT ?",
        (room, role, now, limit),
    )
    return [MessageRow(*row) for row in rows]


def dispatch_roles(conn: sqlite3.Connection, room: str, message: str) -> list[str]:
    return [
        row[0]
        for row in conn.execute("SELECT role FROM dispatches WHERE room=? AND message=?", (room, message))
    ]


def claim_of(conn: sqlite3.Connection, message: str) -> tuple[str, int, str | None] | None:
    """(holder, lease_until, terminal status) of a message's claim."""
    row = conn.execute(
        "SELECT holder, lease_until, status FROM claims WHERE message=?", (message,)
    ).fetchone()
    return (row[0], row[1], row[2]) if row else None


def set_claim(conn: sqlite3.Connection, room: str, message: str, holder: str, lease_until: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO claims (message, room, holder, lease_until, status) VALUES (?, ?, ?, ?, NULL)",
        (message, room, holder, lease_until),
    )


def finish_claim(conn: sqlite3.Connection, message: str, status: str) -> None:
    conn.execute("UPDATE claims SET status=? WHERE message=?", (status, message))
