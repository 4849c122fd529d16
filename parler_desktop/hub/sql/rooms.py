"""Rooms, memberships with their cursors, invites and join requests."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from parler_desktop.hub.db import HubDatabaseConnection


class RoomRow(NamedTuple):
    name: str
    kind: str
    owner: str | None


class InviteRow(NamedTuple):
    code: str
    room: str
    kind: str
    max_uses: int
    uses: int
    expires: int
    require_approval: bool


class RoomSummary(NamedTuple):
    name: str
    kind: str
    members: int
    unread: int


class RosterRow(NamedTuple):
    agent: str
    name: str
    role: str | None
    status: str | None
    activity: str | None
    attention: str | None
    presence_ts: int | None
    last_seen: int
    service_role: str | None


class JoinRequestRow(NamedTuple):
    agent: str
    name: str
    role: str | None
    requested: int


def get_room(conn: sqlite3.Connection, name: str) -> RoomRow | None:
    row = conn.execute("SELECT name, kind, owner FROM rooms WHERE name=?", (name,)).fetchone()
    return RoomRow(*row) if row else None


def create_room(conn: sqlite3.Connection, name: str, kind: str, owner: str | None, now: int) -> None:
    conn.execute(
        "INSERT INTO rooms (name, kind, owner, created) VALUES (?, ?, ?, ?)", (name, kind, owner, now)
    )


def set_owner_if_unset(conn: sqlite3.Connection, name: str, owner: str) -> None:
    conn.execute("UPDATE rooms SET owner=? WHERE name=? AND owner IS NULL", (owner, name))


def owned_room_count(conn: sqlite3.Connection, agent: str) -> int:
    return conn.execute("SELECT count(*) FROM rooms WHERE owner=?", (agent,)).fetchone()[0]


def is_member(conn: sqlite3.Connection, room: str, agent: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM members WHERE room=? AND agent=?", (room, agent)).fetchone()
        is not None
    )


def add_member(
    conn: HubDatabaseConnection, room: str, agent: str, service_role: str | None = None
) -> None:
    """Join with cursor 0 (a new member reads the whole history); a repeat only sets the role."""
    conn.execute("INSERT OR IGNORE INTO members (room, agent) VALUES (?, ?)", (room, agent))
    conn.member_lists.pop(room, None)
    if service_role is not None:
        conn.execute(
            "UPDATE members SET service_role=? WHERE room=? AND agent=?", (service_role, room, agent)
        )


def member_ids(conn: HubDatabaseConnection, room: str) -> tuple[str, ...]:
    """Every member of ``room``, read once and kept by the connection until they change."""
    members = conn.member_lists.get(room)
    if members is None:
        members = tuple(row[0] for row in conn.execute("SELECT agent FROM members WHERE room=?", (room,)))
        conn.member_lists[room] = members
    return members


def find_dm_room(conn: sqlite3.Connection, agent: str, peer: str) -> str | None:
    """A dm room whose only two members are ``agent`` and ``peer``."""
    row = conn.execute(
        "SELECT a.room FROM members a JOIN members b ON a.room=b.room "
        "JOIN rooms r ON r.name=a.room "
        "WHERE r.kind='dm' AND a.agent=? AND b.agent=? AND a.agent<>b.agent "
        "AND (SELECT count(*) FROM members c WHERE c.room=a.room)=2 "
        "ORDER BY r.created LIMIT 1",
        (agent, peer),
    ).fetchone()
    return row[0] if row else None


def room_summaries(conn: sqlite3.Connection, agent: str) -> list[RoomSummary]:
    """Every room of ``agent`` in byte order, with member count and unread past its cursor."""
    rows = conn.execute(
        "SELECT r.name, r.kind, "
        "(SELECT count(*) FROM members x WHERE x.room=r.name), "
        "(SELECT count(*) FROM messages g WHERE g.room=r.name AND g.seq>m.cursor) "
        "FROM members m JOIN rooms r ON r.name=m.room WHERE m.agent=? ORDER BY r.name",
        (agent,),
    )
    return [RoomSummary(*row) for row in rows]


def roster(conn: sqlite3.Connection, room: str) -> list[RosterRow]:
    rows = conn.execute(
        "SELECT m.agent, COALESCE(a.name, ''), a.role, p.status, p.activity, p.attention, p.ts, "
        "COALESCE(p.ts, a.last_seen, 0), m.service_role "
        "FROM members m LEFT JOIN agents a ON a.id=m.agent LEFT JOIN presence p ON p.agent=m.agent "
        "WHERE m.room=?",
        (room,),
    )
    return sorted((RosterRow(*row) for row in rows), key=lambda r: (r.name, r.agent))


def delete_room(conn: HubDatabaseConnection, room: str) -> None:
    """Remove the room and everything scoped to it; seqs stay burnt (AUTOINCREMENT)."""
    for statement in (
        "DELETE FROM messages WHERE room=?",
        "DELETE FROM members WHERE room=?",
        "DELETE FROM invites WHERE room=?",
        "DELETE FROM join_requests WHERE room=?",
        "DELETE FROM tokens WHERE room=?",
        "DELETE FROM facts WHERE room=?",
        "DELETE FROM blob_rooms WHERE room=?",
        "DELETE FROM dispatches WHERE room=?",
        "DELETE FROM claims WHERE room=?",
        "DELETE FROM rooms WHERE name=?",
    ):
        conn.execute(statement, (room,))
    conn.member_lists.pop(room, None)


def create_invite(conn: sqlite3.Connection, invite: InviteRow, creator: str) -> None:
    conn.execute(
        "INSERT INTO invites (code, room, kind, max_uses, uses, expires, require_approval, creator) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (*invite, creator),
    )


def invite_code_exists(conn: sqlite3.Connection, code: str) -> bool:
    return conn.execute("SELECT 1 FROM invites WHERE code=?", (code,)).fetchone() is not None


def get_invite(conn: sqlite3.Connection, code: str) -> InviteRow | None:
    row = conn.execute(
        "SELECT code, room, kind, max_uses, uses, expires, require_approval FROM invites WHERE code=?",
        (code,),
    ).fetchone()
    return InviteRow(*row[:6], bool(row[6])) if row else None


def consume_invite_use(conn: sqlite3.Connection, code: str) -> None:
    conn.execute("UPDATE invites SET uses=uses+1 WHERE code=?", (code,))


def join_request_status(conn: sqlite3.Connection, room: str, agent: str) -> str | None:
    row = conn.execute(
        "SELECT status FROM join_requests WHERE room=? AND agent=?", (room, agent)
    ).fetchone()
    return row[0] if row else None


def add_join_request(conn: sqlite3.Connection, room: str, agent: str, now: int) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO join_requests (room, agent, status, requested) "
        "VALUES (?, ?, 'pending', ?)",
        (room, agent, now),
    )


def pending_join_requests(conn: sqlite3.Connection, room: str) -> list[JoinRequestRow]:
    rows = conn.execute(
        "SELECT j.agent, COALESCE(a.name, ''), a.role, j.requested FROM join_requests j "
        "LEFT JOIN agents a ON a.id=j.agent WHERE j.room=? AND j.status='pending' "
        "ORDER BY j.requested, j.rowid",
        (room,),
    )
    return [JoinRequestRow(*row) for row in rows]


def deny_join_request(conn: sqlite3.Connection, room: str, agent: str) -> None:
    conn.execute(
        "UPDATE join_requests SET status='denied' WHERE room=? AND agent=?", (room, agent)
    )


def remove_join_request(conn: sqlite3.Connection, room: str, agent: str) -> None:
    conn.execute("DELETE FROM join_requests WHERE room=? AND agent=?", (room, agent))
