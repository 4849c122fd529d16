"""Agents (who connected, with which name/role) and their self-reported presence."""

from __future__ import annotations

import sqlite3


def record_hello(conn: sqlite3.Connection, agent: str, name: str, role: str | None, now: int) -> None:
    """A signed hello: remember name/role, reset presence to idle (attention kept)."""
    conn.execute(
        "INSERT INTO agents (id, name, role, first_seen, last_seen) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET name=excluded.name, role=excluded.role, "
        "last_seen=excluded.last_seen",
        (agent, name, role, now, now),
    )
    conn.execute(
        "INSERT INTO presence (agent, status, activity, attention, ts) VALUES (?, 'idle', NULL, NULL, ?) "
        "ON CONFLICT(agent) DO UPDATE SET status='idle', activity=NULL, ts=excluded.ts",
        (agent, now),
    )


def set_presence(
    conn: sqlite3.Connection,
    agent: str,
    status: str,
    activity: str | None,
    attention: str | None,
    now: int,
) -> None:
    conn.execute(
        "INSERT INTO presence (agent, status, activity, attention, ts) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(agent) DO UPDATE SET status=excluded.status, activity=excluded.activity, "
        "attention=COALESCE(excluded.attention, presence.attention), ts=excluded.ts",
        (agent, status, activity, attention, now),
    )


def set_attention(conn: sqlite3.Connection, agent: str, attention: str, now: int) -> None:
    conn.execute(
        "INSERT INTO presence (agent, status, activity, attention, ts) VALUES (?, 'idle', NULL, ?, ?) "
        "ON CONFLICT(agent) DO UPDATE SET attention=excluded.attention, ts=excluded.ts",
        (agent, attention, now),
    )


def touch_presence(conn: sqlite3.Connection, agent: str, now: int) -> None:
    conn.execute("UPDATE presence SET ts=? WHERE agent=?", (now, agent))


def presence_of(conn: sqlite3.Connection, agent: str) -> tuple[str, str | None, str | None, int] | None:
    """(status, activity, attention, ts) as stored, undecayed."""
    row = conn.execute(
        "SELECT status, activity, attention, ts FROM presence WHERE agent=?", (agent,)
    ).fetchone()
    return tuple(row) if row else None  # type: ignore[return-value]
