"""The hub's SQLite schema and how the database is opened.

WAL with ``synchronous=NORMAL`` (as the reference hub): a commit is in the WAL file (the OS's
page cache) before the hub replies, so a ``sent`` message survives the hub process being killed;
only a power loss or an OS crash can roll back the last commits, and the WAL is fsynced at each
checkpoint. Commits then cost no fsync, which is most of what a send used to wait for.  ``seq`` is an AUTOINCREMENT rowid, which
SQLite never hands out twice, even after deletes.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from parler_desktop.disk_errors import DISK_FULL_HINT, is_disk_full

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE agents (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT,
    first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
);
CREATE TABLE presence (
    agent TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    activity TEXT,
    attention TEXT,
    ts INTEGER NOT NULL
);
CREATE TABLE rooms (
    name TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    owner TEXT,
    created INTEGER NOT NULL
);
CREATE INDEX rooms_owner ON rooms(owner);
CREATE TABLE members (
    room TEXT NOT NULL,
    agent TEXT NOT NULL,
    cursor INTEGER NOT NULL DEFAULT 0,
    service_role TEXT,
    PRIMARY KEY (room, agent)
) WITHOUT ROWID;
CREATE INDEX members_agent ON members(agent);
CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    room TEXT NOT NULL,
    author TEXT NOT NULL,
    author_name TEXT NOT NULL,
    author_role TEXT,
    parts TEXT NOT NULL,
    mentions TEXT,
    reply_to TEXT,
    ts INTEGER NOT NULL,
    client_id TEXT
);
CREATE INDEX messages_room_seq ON messages(room, seq);
CREATE UNIQUE INDEX messages_client_id ON messages(room, author, client_id)
    WHERE client_id IS NOT NULL;
CREATE TABLE invites (
    code TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    kind TEXT NOT NULL,
    max_uses INTEGER NOT NULL,
    uses INTEGER NOT NULL DEFAULT 0,
    expires INTEGER NOT NULL,
    require_approval INTEGER NOT NULL,
    creator TEXT NOT NULL
);
CREATE INDEX invites_room ON invites(room);
CREATE TABLE join_requests (
    room TEXT NOT NULL,
    agent TEXT NOT NULL,
    status TEXT NOT NULL,
    requested INTEGER NOT NULL,
    PRIMARY KEY (room, agent)
);
CREATE TABLE directory (
    agent TEXT PRIMARY KEY,
    visibility TEXT NOT NULL,
    card TEXT NOT NULL,
    sig TEXT,
    verified INTEGER NOT NULL
);
CREATE TABLE blobs (
    id TEXT PRIMARY KEY,
    media_type TEXT,
    size INTEGER NOT NULL,
    created INTEGER NOT NULL,
    last_fetched INTEGER
);
CREATE TABLE blob_rooms (
    blob TEXT NOT NULL,
    room TEXT NOT NULL,
    PRIMARY KEY (blob, room)
) WITHOUT ROWID;
CREATE INDEX blob_rooms_room ON blob_rooms(room);
CREATE TABLE tokens (
    token TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    agent TEXT NOT NULL,
    room TEXT,
    expires INTEGER NOT NULL
);
CREATE INDEX tokens_agent ON tokens(agent);
CREATE TABLE dispatches (
    message TEXT NOT NULL,
    room TEXT NOT NULL,
    role TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (message, role)
);
CREATE INDEX dispatches_room_role ON dispatches(room, role, seq);
CREATE TABLE claims (
    message TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    holder TEXT NOT NULL,
    lease_until INTEGER NOT NULL,
    status TEXT
);
CREATE TABLE facts (
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL,
    room TEXT,
    key TEXT,
    text TEXT NOT NULL,
    ts INTEGER NOT NULL
);
CREATE INDEX facts_author ON facts(author, room, key);
CREATE INDEX facts_room ON facts(room);
"""


class HubDatabaseConnection(sqlite3.Connection):
    """The hub's connection, keeping each room's member list as read (``sql/rooms.member_ids``).

    Every send pushes to its room's members, and reading them was about 6% of the hub's CPU per
    send. Members change only through the hub (it holds its database: ``db_lock.py``; a member
    changed from outside while it runs is seen after a restart), by ``add_member`` and
    ``delete_room``, which drop their room's list; ``forget_uncommitted`` drops every list when a
    job or a batch fails, since a list read in its transaction may hold a member it rolls back."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.member_lists: dict[str, tuple[str, ...]] = {}

    def forget_uncommitted(self) -> None:
        self.member_lists.clear()


class HubDatabaseError(Exception):
    """The hub database cannot be used; the message names the file and the problem."""


def _reason(exc: Exception, path: Path) -> str:
    return DISK_FULL_HINT if is_disk_full(exc, path) else str(exc)


def open_database(path: Path) -> HubDatabaseConnection:
    """Open (creating if needed) the hub database; the caller owns the connection's thread.

    A new file is created 0600 (SQLite gives its WAL the same mode): it holds every message.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            pass
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True, factory=HubDatabaseConnection)
    except (OSError, sqlite3.Error) as exc:
        raise HubDatabaseError(f"cannot open hub database {path}: {_reason(exc, path)}") from exc
    try:
        _prepare(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise HubDatabaseError(f"cannot use hub database {path}: {_reason(exc, path)}") from exc
    except HubDatabaseError as exc:
        conn.close()
        raise HubDatabaseError(f"cannot use hub database {path}: {exc}") from None
    return conn


def _prepare(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=5000")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 0:
        conn.execute("BEGIN")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    elif version != SCHEMA_VERSION:
        raise HubDatabaseError(f"schema version {version} is not {SCHEMA_VERSION} (made by another version?)")
