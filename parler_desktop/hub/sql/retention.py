"""The retention sweep of protocol.md §7.16: old messages, surplus unkeyed facts, idle blobs,
expired invites and tokens."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

DAY_MS = 86_400_000


class RetentionPolicy(NamedTuple):
    message_age_days: int
    messages_kept_per_room: int
    unkeyed_facts_kept: int
    blob_idle_days: int


def sweep(conn: sqlite3.Connection, policy: RetentionPolicy, now: int) -> list[str]:
    """Delete what retention allows; returns the ids of blobs whose bytes can now be removed."""
    conn.execute("DELETE FROM invites WHERE expires<?", (now,))
    conn.execute("DELETE FROM tokens WHERE expires<?", (now,))
    conn.execute(
        "DELETE FROM messages WHERE ts<? AND seq NOT IN ("
        " SELECT seq FROM (SELECT seq, row_number() OVER (PARTITION BY room ORDER BY seq DESC) AS rank"
        " FROM messages) WHERE rank<=?)",
        (now - policy.message_age_days * DAY_MS, policy.messages_kept_per_room),
    )
    conn.execute(
        "DELETE FROM facts WHERE key IS NULL AND id NOT IN ("
        " SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY author, room ORDER BY id DESC) AS rank"
        " FROM facts WHERE key IS NULL) WHERE rank<=?)",
        (policy.unkeyed_facts_kept,),
    )
    idle_since = now - policy.blob_idle_days * DAY_MS
    idle = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM blobs WHERE COALESCE(last_fetched, created)<?", (idle_since,)
        )
    ]
    for blob in idle:
        conn.execute("DELETE FROM blob_rooms WHERE blob=?", (blob,))
        conn.execute("DELETE FROM blobs WHERE id=?", (blob,))
    return idle
