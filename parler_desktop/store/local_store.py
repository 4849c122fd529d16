"""LocalStore: the client's SQLite cache for one (hub, identity), plus the durable outbox.

Synchronous by design and used from ONE thread only (``StoreWorker``); every public method is
one short transaction. Rooms, messages, cursors, sync marks, roster and meta live here (in the
cache); the outbox methods come from ``OutboxTables``, the drafts from ``DraftTables`` (both in
the outbox file, apart from the cache), full-text search from ``SearchTables`` and the file
handling (and meta values) from ``StoreDatabase``.

A room's *settled unread* is the hub's unread count recorded when a complete pull left the store
agreeing with it; every write that changes the room's messages, cursor, sync mark or kind drops
it, in the same transaction, so a value that survives says nothing here moved since.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.protocol.values import RoomInfo, RosterEntry, StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.database import guarded
from parler_desktop.store.errors import StoreProblem, store_error
from parler_desktop.store.drafts import DraftTables
from parler_desktop.store.needs_tables import NeedsTables
from parler_desktop.store.outbox import OutboxTables
from parler_desktop.store.outbox_file import OutboxRecovery
from parler_desktop.store.outbox_item import OutboxStatus
from parler_desktop.store.retention import RetentionTables
from parler_desktop.store.room_counts import RoomCounts, RoomSummary
from parler_desktop.store.salvage import salvage_written
from parler_desktop.store.search import SearchTables
from parler_desktop.store.fleet_reads import FleetReads
from parler_desktop.store.signatures import MESSAGE_COLUMNS



@dataclass(frozen=True)
class FreshStart:
    """What ``LocalStore.start_fresh`` did: where the old cache went, how many unsent messages
    the outbox holds, and how a damaged outbox file was replaced (None: it was not)."""

    moved_to: Path
    kept_unsent: int
    outbox_recovery: OutboxRecovery | None = None


@dataclass(frozen=True)
class RoomPlace:
    """Where a room's reader stands: its stored messages, its cursor and sync mark, and how many
    stored messages lie above the cursor (``row_of_seq(cursor)`` is ``total - after_cursor``)."""

    total: int
    cursor: int
    sync_mark: int | None
    after_cursor: int


class LocalStore(OutboxTables, DraftTables, FleetReads, SearchTables, RoomCounts, NeedsTables, RetentionTables):
    """The store of one (hub, identity); see the module docstring."""

    @classmethod
    def start_fresh(cls, path: Path) -> FreshStart:
        """Set a damaged or stale cache aside and create an empty one in its place.

        The answer to a ``StoreError`` whose ``fresh_cache_fixes`` is true: the session refills
        the cache from the hub. The outbox file stays (recovered if it is damaged too), and what
        an older version kept in the old cache's outbox and drafts is added as far as it can be
        read, with its clientIds, so no unsent message is lost or sent twice.
        """
        moved = cls.quarantine(path)
        fresh = cls(path)
        try:
            fresh._outbox.take(salvage_written(moved))
            unsent = fresh.outbox_items((OutboxStatus.PENDING, OutboxStatus.FAILED))
            return FreshStart(moved, len(unsent), fresh.outbox_recovery())
        finally:
            fresh.close()

    # ---- rooms -------------------------------------------------------------------------

    @guarded("saving the room list")
    def replace_rooms(self, rooms: Sequence[RoomInfo]) -> None:
        """Adopt the hub's full membership list; rooms not listed are forgotten with their data."""
        listed = {room.name for room in rooms}
        with self._write():
            for room in rooms:
                self._db.execute(
                    "INSERT INTO rooms (name, kind, members, hub_unread) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, "
                    "members = excluded.members, hub_unread = excluded.hub_unread, "
                    "settled_unread = CASE WHEN kind = excluded.kind THEN settled_unread END",
                    (room.name, room.kind, room.members, room.unread),
                )
            for (name,) in self._db.execute("SELECT name FROM rooms").fetchall():
                if name not in listed:
                    self._forget(name)

    @guarded("forgetting a room")
    def forget_room(self, name: str) -> None:
        """Drop a room (deleted on the hub) with its messages and roster; its outbox items stay."""
        with self._write():
            self._forget(name)

    def _forget(self, name: str) -> None:
        self._unindex_room(name)
        self._db.execute("DELETE FROM messages WHERE room = ?", (name,))
        self._db.execute("DELETE FROM roster WHERE room = ?", (name,))
        self._db.execute("DELETE FROM pruned_spans WHERE room = ?", (name,))
        self._db.execute("DELETE FROM rooms WHERE name = ?", (name,))

    @guarded("reading the room list")
    def room_names(self) -> list[str]:
        return [name for (name,) in self._db.execute("SELECT name FROM rooms ORDER BY name")]

    @guarded("reading the room list")
    def room_heads(self) -> dict[str, tuple[int, int]]:
        """Every known room by name -> (sync mark or 0, stored message count): one cheap read that
        changes whenever a room gains messages or its mark moves (the ``listen`` feed polls it)."""
        rows = self._db.execute("SELECT name, coalesce(sync_mark, 0), message_count FROM rooms ORDER BY name")
        return {name: (mark, count) for name, mark, count in rows}

    # ---- messages ----------------------------------------------------------------------

    @guarded("saving messages")
    def insert_messages(
        self,
        messages: Sequence[StoredMessage],
        mentions_me: Callable[[StoredMessage], bool] | None = None,
        *,
        room_marks: Sequence[tuple[str, int]] = (),
        index_now: bool = True,
    ) -> list[StoredMessage]:
        """Store messages unique by seq; return the newly stored ones, ascending by seq.

        ``messages`` may span rooms and repeat; rooms the store has not heard of are created as
        ``channel`` until ``replace_rooms`` says otherwise. ``mentions_me`` flags messages for
        the mention badge (it runs here, on the store's thread), and new messages get their
        signature verdict here too. A stored seq arriving with a different message id means the
        hub's history was reset: ``StoreError`` (``DIVERGED``), nothing of the batch is stored.
        Each of ``room_marks`` (room, seq), in order, sets that room's sync mark in the same
        transaction: pulled chunks and the marks covering them are kept or refused together (a
        chunk kept above its mark would be fed by ``listen`` again after a restart). Without ``index_now`` the new messages
        wait for ``index_pending`` to be searchable (pushes: store/search.py).
        """
        unique = sorted({m.seq: m for m in reversed(messages)}.values(), key=lambda m: m.seq)
        known = self._stored_seqs([m.seq for m in unique])
        checked = {m.seq: m for m in self.verdicts(m for m in unique if m.seq not in known)}
        unique = [checked.get(m.seq, m) for m in unique]
        with self._write():
            known = self._stored_seqs([m.seq for m in unique])  # again: another process may have stored some
            for message in unique:
                if message.seq in known:
                    self._check_same_message(message)
            inserted = [m for m in unique if m.seq not in known]
            flags = [bool(mentions_me and mentions_me(m)) for m in inserted]
            self._insert_at_once(
                "INSERT INTO messages (seq, room, id, sender_name, ts, mentions_me, wire, signature)",
                [codec.message_row(m, flag) for m, flag in zip(inserted, flags)],
            )
            if index_now:
                self._index((m.seq, m.parts) for m in inserted)
            else:
                self._index_later(m.seq for m in inserted)
            self._count_stored(list(zip(inserted, flags)))
            for room, seq in room_marks:
                self._set_sync_mark(room, seq)
        return inserted

    def _stored_seqs(self, seqs: list[int]) -> set[int]:
        """Which of ``seqs`` are stored already (a pull repeats what pushes brought: no re-check).
        One statement for every size, the list as JSON (``seq IN (?, ?, …)`` was a statement per
        size, and sqlite3 kept 128 of them prepared: 6.5 MB per connection, issue 42)."""
        rows = self._db.execute("SELECT seq FROM messages WHERE seq IN (SELECT value FROM json_each(?))", (json.dumps(seqs),))
        return {seq for (seq,) in rows}

    def _check_same_message(self, message: StoredMessage) -> None:
        """A seq already stored must hold the same message: seqs are never reused by a hub."""
        (stored_id,) = self._db.execute("SELECT id FROM messages WHERE seq = ?", (message.seq,)).fetchone()
        if stored_id != message.id:
            detail = f"message #{message.seq} is {message.id!r} on the hub but {stored_id!r} here"
            raise store_error(self.path, StoreProblem.DIVERGED, detail, "saving messages")

    @guarded("reading messages")
    def max_seq(self, room: str) -> int:
        return self._count("SELECT coalesce(max(seq), 0) FROM messages WHERE room = ?", room)

    @guarded("reading messages")
    def message_count(self, room: str) -> int:
        row = self._db.execute("SELECT message_count FROM rooms WHERE name = ?", (room,)).fetchone()
        return row[0] if row else 0

    @guarded("reading messages")
    def messages_slice(self, room: str, offset: int, limit: int, total: int | None = None) -> list[StoredMessage]:
        """Rows ``[offset, offset + limit)`` of the room (row 0 = oldest), clipped to what exists
        (``total``: its ``message_count``, when the caller read it already).

        The first row's seq is found by walking the covering (room, seq) index from whichever end
        is nearer, so the newest page of a 100,000-message room costs the same as of a small
        room; a page in the middle costs an index walk of up to half the room (~1 ms at 100k).
        """
        total = self.message_count(room) if total is None else total
        start, end = max(offset, 0), min(offset + limit, total)
        if end <= start:
            return []
        if total - 1 - start < start:
            order, skip = "DESC", total - 1 - start
        else:
            order, skip = "ASC", start
        first = f"(SELECT seq FROM messages WHERE room = ? ORDER BY seq {order} LIMIT 1 OFFSET ?)"
        messages = self._messages_where(f"WHERE room = ? AND seq >= {first} ORDER BY seq LIMIT ?", (room, room, skip, end - start))
        if not messages:  # message_count out of step with the rows: a damaged file
            raise store_error(self.path, StoreProblem.CORRUPT, f"room {room!r} has fewer rows than counted")
        return messages

    @guarded("reading messages")
    def messages_after(self, room: str, seq: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages with seq > ``seq``, ascending."""
        return self._messages_where("WHERE room = ? AND seq > ? ORDER BY seq LIMIT ?", (room, seq, limit))

    @guarded("reading messages")
    def messages_before(self, room: str, seq: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages with seq < ``seq`` (the nearest ones), ascending."""
        return self._messages_where("WHERE room = ? AND seq < ? ORDER BY seq DESC LIMIT ?", (room, seq, limit))

    @guarded("reading messages")
    def count_after(self, room: str, seq: int) -> int:
        return self._count("SELECT count(*) FROM messages WHERE room = ? AND seq > ?", room, seq)

    @guarded("reading messages")
    def row_of_seq(self, room: str, seq: int) -> int:
        """Stored messages in ``room`` with seq <= ``seq``: the row of the first one after it."""
        return self.message_count(room) - self.count_after(room, seq)

    @guarded("reading messages")
    def room_place(self, room: str) -> RoomPlace:
        """The room's ``RoomPlace``, in one statement (a room opened under traffic waited for
        the GIL at each of the four it took)."""
        row = self._db.execute(
            "SELECT message_count, cursor, sync_mark, "
            "(SELECT count(*) FROM messages WHERE room = rooms.name AND seq > rooms.cursor) FROM rooms WHERE name = ?",
            (room,),
        ).fetchone()
        return RoomPlace(*row) if row else RoomPlace(0, 0, None, 0)

    @guarded("reading messages")
    def message_by_id(self, room: str, message_id: str) -> StoredMessage | None:
        row = self._db.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE room = ? AND id = ?", (room, message_id)).fetchone()
        return self.messages_from_rows([row])[0] if row else None

    # ---- cursors and sync marks ---------------------------------------------------------

    @guarded("reading a cursor")
    def cursor(self, room: str) -> int:
        return self._cursor_of(room)

    @guarded("saving a cursor")
    def set_cursor(self, room: str, seq: int) -> int:
        """Record the hub cursor; it never moves back. Returns the cursor now stored."""
        with self._write():
            old = self._cursor_of(room)
            self._db.execute(
                "INSERT INTO rooms (name, cursor) VALUES (?, ?) ON CONFLICT (name) "
                "DO UPDATE SET cursor = max(cursor, excluded.cursor), "
                "settled_unread = CASE WHEN excluded.cursor <= cursor THEN settled_unread END",
                (room, seq),
            )
            self._uncount_read(room, old, seq)
            return self._cursor_of(room)

    @guarded("reading the store's version")
    def data_version(self) -> tuple[int, int]:
        """A value that changes whenever another connection (another process on the home) has
        committed a write to the cache or the outbox file since this one last asked (SQLite's
        ``data_version`` of each)."""
        (cache,) = self._db.execute("PRAGMA data_version").fetchone()
        (outbox,) = self._outbox.db.execute("PRAGMA data_version").fetchone()
        return cache, outbox

    @guarded("reading a sync mark")
    def sync_mark(self, room: str) -> int | None:
        """The seq up to which the session knows this room's history is complete (None: never)."""
        row = self._db.execute("SELECT sync_mark FROM rooms WHERE name = ?", (room,)).fetchone()
        return row[0] if row else None

    @guarded("reading sync marks")
    def sync_marks(self, rooms: Sequence[str]) -> dict[str, int | None]:
        """``sync_mark`` of each of ``rooms``, in one call (and one step: ``_rows_at_once``)."""
        marks: dict[str, int | None] = dict.fromkeys(rooms)
        sql = "SELECT name, sync_mark FROM rooms WHERE name IN (SELECT value FROM json_each(?))"
        marks.update(self._rows_at_once("name, sync_mark", sql, (json.dumps(list(rooms)),)))
        return marks

    @guarded("saving a sync mark")
    def set_sync_mark(self, room: str, seq: int) -> None:
        """Record the sync mark as given (it may move back to re-read a gap); dropped with the room."""
        with self._write():
            self._set_sync_mark(room, seq)

    def _set_sync_mark(self, room: str, seq: int) -> None:
        self._db.execute(
            "INSERT INTO rooms (name, sync_mark) VALUES (?, ?) ON CONFLICT (name) "
            "DO UPDATE SET sync_mark = excluded.sync_mark, "
            "settled_unread = CASE WHEN sync_mark = excluded.sync_mark THEN settled_unread END",
            (room, seq),
        )

    # ---- settled unread counts -----------------------------------------------------------

    @guarded("saving a sync mark")
    def settle(self, rooms: Sequence[tuple[str, int, int]]) -> None:
        """For each (room, hub_unread, mark), after a complete pull up to ``mark``: record
        ``hub_unread`` as the room's settled count if the store agrees with it (the mark is the
        room's, no message above it, stored unread equals it); otherwise drop the settled count."""
        with self._write():
            self._db.executemany(
                "UPDATE rooms SET settled_unread = CASE WHEN sync_mark = :mark "
                "AND (SELECT coalesce(max(seq), 0) FROM messages WHERE room = :room) = :mark "
                "AND (SELECT count(*) FROM messages WHERE room = :room AND seq > rooms.cursor) = :unread "
                "THEN :unread END WHERE name = :room",
                [{"room": room, "mark": mark, "unread": hub_unread} for room, hub_unread, mark in rooms],
            )

    @guarded("saving a sync mark")
    def unsettle(self, room: str) -> None:
        """Drop the room's settled count (e.g. before an ack: the hub cursor is about to move)."""
        with self._write():
            self._db.execute("UPDATE rooms SET settled_unread = NULL WHERE name = ?", (room,))

    @guarded("reading sync marks")
    def settled_unread(self) -> dict[str, int]:
        """Rooms whose settled count still holds, checked again against the stored rows (the mark
        covers every stored message, stored unread equals the count): room -> hub unread then."""
        rows = self._db.execute(
            "SELECT name, settled_unread FROM rooms WHERE settled_unread IS NOT NULL "
            "AND sync_mark = (SELECT coalesce(max(seq), 0) FROM messages WHERE room = rooms.name) "
            "AND settled_unread = (SELECT count(*) FROM messages WHERE room = rooms.name AND seq > rooms.cursor)"
        )
        return dict(rows.fetchall())

    # ---- roster ------------------------------------------------------------------------

    @guarded("saving a roster")
    def replace_roster(self, room: str, entries: Sequence[RosterEntry]) -> None:
        rows = [(room, position, codec.to_json(e.to_wire())) for position, e in enumerate(entries)]
        with self._write():
            self._db.execute("DELETE FROM roster WHERE room = ?", (room,))
            self._db.executemany("INSERT INTO roster (room, position, wire) VALUES (?, ?, ?)", rows)

    @guarded("reading a roster")
    def roster(self, room: str) -> list[RosterEntry]:
        rows = self._db.execute("SELECT wire FROM roster WHERE room = ? ORDER BY position", (room,))
        return [codec.roster_entry_from_wire_text(wire) for (wire,) in rows]
