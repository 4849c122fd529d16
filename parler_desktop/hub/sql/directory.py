"""Agent cards and bearer tokens (directory tokens and watch tokens)."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple


class CardRow(NamedTuple):
    agent: str
    visibility: str
    card: str  # JSON text of the card as registered
    sig: str | None
    verified: bool
    status: str | None
    activity: str | None
    attention: str | None
    presence_ts: int | None
    first_seen: int
    last_seen: int
    agent_name: str  # from the agent's latest hello, which discover's query matches (not the card's)


_SELECT = (
    "SELECT d.agent, d.visibility, d.card, d.sig, d.verified, p.status, p.activity, p.attention, "
    "p.ts, COALESCE(a.first_seen, 0), COALESCE(a.last_seen, 0), COALESCE(a.name, '') FROM directory d "
    "LEFT JOIN agents a ON a.id=d.agent LEFT JOIN presence p ON p.agent=d.agent "
)


def upsert_card(
    conn: sqlite3.Connection, agent: str, visibility: str, card: str, sig: str | None, verified: bool
) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO directory (agent, visibility, card, sig, verified) VALUES (?, ?, ?, ?, ?)",
        (agent, visibility, card, sig, int(verified)),
    )


def has_card(conn: sqlite3.Connection, agent: str) -> bool:
    return conn.execute("SELECT 1 FROM directory WHERE agent=?", (agent,)).fetchone() is not None


def all_cards(conn: sqlite3.Connection, public_only: bool) -> list[CardRow]:
    where = "WHERE d.visibility='public' " if public_only else ""
    rows = conn.execute(_SELECT + where + "ORDER BY a.last_seen DESC, d.agent")
    return [_row(row) for row in rows]


def card_of(conn: sqlite3.Connection, agent: str) -> CardRow | None:
    row = conn.execute(_SELECT + "WHERE d.agent=?", (agent,)).fetchone()
    return _row(row) if row else None


def _row(row: tuple) -> CardRow:  # type: ignore[type-arg]
    values = list(row)
    values[4] = bool(values[4])
    return CardRow(*values)


def live_token_count(conn: sqlite3.Connection, agent: str, now: int) -> int:
    return conn.execute(
        "SELECT count(*) FROM tokens WHERE agent=? AND expires>?", (agent, now)
    ).fetchone()[0]


def insert_token(
    conn: sqlite3.Connection, token: str, kind: str, agent: str, room: str | None, expires: int
) -> None:
    conn.execute(
        "INSERT INTO tokens (token, kind, agent, room, expires) VALUES (?, ?, ?, ?, ?)",
        (token, kind, agent, room, expires),
    )


def token_scope(conn: sqlite3.Connection, token: str, kind: str, now: int) -> tuple[str, str | None] | None:
    """(agent, room) of a live token of that kind."""
    row = conn.execute(
        "SELECT agent, room FROM tokens WHERE token=? AND kind=? AND expires>?", (token, kind, now)
    ).fetchone()
    return (row[0], row[1]) if row else None
