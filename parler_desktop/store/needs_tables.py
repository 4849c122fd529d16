"""What "Needs you" reads from the store and keeps in it (design.md §4b).

Reads of the cache: every stored message in seq order a page at a time (the derivation is
computed once from them at start, so a fresh cache recomputes it from the hub's history) and each
room's kind and read cursor. Kept in the outbox file, which no fresh cache touches and nothing
prunes: what the human did about an item (``needs_decisions``: dismissed, snoozed until a time
or until the agent posts again), which items were notified (``needs_notified``: one desktop
notification per item, ever) and which were answered when (``needs_answered``: time to unblock).
"""

from __future__ import annotations

import time

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store.database import StoreDatabase, guarded

DecisionRow = tuple[str, str, float, str, int]  # key, action, until, agent, after_seq
AnsweredRow = tuple[str, str, str, str, float, float]  # key, agent, room, kind, since, answered_at


class NeedsTables(StoreDatabase):
    """The "Needs you" methods of ``LocalStore``."""

    @guarded("reading messages")
    def messages_in_order(self, after_seq: int, up_to_seq: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` stored messages of every room with ``after_seq`` < seq <= ``up_to_seq``, ascending."""
        return self._messages_where("WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?", (after_seq, up_to_seq, limit))

    @guarded("reading messages")
    def newest_stored_seq(self) -> int:
        """The largest seq stored, of any room (0: none)."""
        return self._db.execute("SELECT coalesce(max(seq), 0) FROM messages").fetchone()[0]

    @guarded("reading the outbox", outbox=True)
    def sent_posts(self) -> list[tuple[str, str | None]]:
        """(message id, the message it replies to) of each post the hub accepted that the outbox
        still holds: mine, even before (or without) its copy in the cache."""
        rows = self._outbox.db.execute(
            "SELECT message_id, reply_to FROM outbox WHERE status = 'sent' AND message_id IS NOT NULL"
        )
        return [(message_id, reply_to) for message_id, reply_to in rows]

    @guarded("reading the room list")
    def room_kinds_and_cursors(self) -> dict[str, tuple[str, int]]:
        return {name: (kind, cursor) for name, kind, cursor in self._db.execute("SELECT name, kind, cursor FROM rooms")}

    @guarded("reading what was done about items", outbox=True)
    def needs_decisions(self) -> list[DecisionRow]:
        return self._outbox.db.execute("SELECT key, action, until, agent, after_seq FROM needs_decisions").fetchall()

    @guarded("saving what was done about an item", outbox=True)
    def save_needs_decision(self, row: DecisionRow) -> None:
        with self._outbox.write():
            self._outbox.db.execute(
                "INSERT OR REPLACE INTO needs_decisions (key, action, until, agent, after_seq, decided_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (*row, time.time()),
            )

    @guarded("saving what was done about an item", outbox=True)
    def drop_needs_decisions(self, keys: list[str]) -> None:
        with self._outbox.write():
            self._outbox.db.executemany("DELETE FROM needs_decisions WHERE key = ?", [(key,) for key in keys])

    @guarded("reading answered items", outbox=True)
    def needs_answered(self, since: float) -> list[AnsweredRow]:
        return self._outbox.db.execute(
            "SELECT key, agent, room, kind, since, answered_at FROM needs_answered WHERE answered_at >= ?", (since,)
        ).fetchall()

    @guarded("saving answered items", outbox=True)
    def save_needs_answered(self, rows: list[AnsweredRow]) -> None:
        with self._outbox.write():
            self._outbox.db.executemany("INSERT OR IGNORE INTO needs_answered VALUES (?, ?, ?, ?, ?, ?)", rows)

    @guarded("reading notified items", outbox=True)
    def needs_notified(self) -> set[str]:
        return {key for (key,) in self._outbox.db.execute("SELECT key FROM needs_notified")}

    @guarded("saving notified items", outbox=True)
    def mark_needs_notified(self, keys: list[str]) -> None:
        with self._outbox.write():
            self._outbox.db.executemany(
                "INSERT OR IGNORE INTO needs_notified (key, at) VALUES (?, ?)", [(key, time.time()) for key in keys]
            )
