"""LocalStore: the client's SQLite cache for one (hub, identity), plus the durable outbox.

Synchronous by design: one ``LocalStore`` is used from ONE thread only (``StoreWorker`` owns that
thread; the connection is opened with ``check_same_thread=False`` only so it can be created and
closed through the worker's executor). Every public method is one short transaction.

Durability: the cache tables commit with ``synchronous=NORMAL`` (WAL: safe against a killed
process, may lose the last commits on power loss, which a re-sync from the hub repairs). Outbox
writes commit with ``synchronous=FULL`` before returning: an item the caller was told is stored
survives a ``kill -9`` and a power cut. A failed write raises ``StoreError``; nothing half-written
stays behind.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sqlite3
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from parler_desktop.client.events import OutboxItem, OutboxStatus
from parler_desktop.protocol.values import RoomInfo, RosterEntry, StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.errors import StoreError, StoreProblem, from_sqlite, store_error
from parler_desktop.store.schema import MIGRATIONS, SCHEMA_VERSION

P = ParamSpec("P")
R = TypeVar("R")

BUSY_TIMEOUT_MS = 5000
_MESSAGE_WIRE = "SELECT wire FROM messages WHERE room = ?"
_OUTBOX_CHANGES = frozenset({"status", "message_id", "seq", "error", "error_code"})


@dataclass(frozen=True)
class RoomSummary:
    """One room for the room list: the hub's view plus what the local store derives."""

    name: str
    kind: str
    members: int
    hub_unread: int  # the hub's count at the last ``rooms`` refresh
    cursor: int  # the hub cursor as last learned
    max_seq: int  # highest stored seq (0 when none)
    last_ts: int  # hub time of the newest stored message (0 when none)
    unread: int  # stored messages with seq > cursor
    mentions_unread: int  # of those, the ones that mention the user
    last_preview: str  # one line of plain text of the newest stored message
    last_sender: str  # display name of its sender


def _guarded(action: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn SQLite failures of a public method into a user-facing ``StoreError``."""

    def decorate(method: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(method)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return method(*args, **kwargs)
            except (sqlite3.ProgrammingError, sqlite3.InterfaceError):
                raise  # a bug in our code, not a condition the user can fix
            except sqlite3.Error as exc:
                store: LocalStore = args[0]  # type: ignore[assignment]
                raise from_sqlite(store.path, exc, action) from exc

        return wrapper

    return decorate


def _make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and any missing parents as 0700 (the cache is private)."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()]
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)


class LocalStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            _make_private_dirs(self.path.parent)
            if not self.path.exists():  # create 0600 from the first byte; sqlite would use 0644
                os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise store_error(self.path, StoreProblem.UNWRITABLE, exc.strerror or str(exc), "creating it") from exc
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise from_sqlite(self.path, exc, "opening it") from exc
        try:
            self._configure()
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    @_guarded("opening it")
    def _configure(self) -> None:
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise store_error(self.path, StoreProblem.UNWRITABLE, f"journal mode stays {mode!r}", "opening it")
        self._db.execute("PRAGMA synchronous = NORMAL")

    @_guarded("upgrading its format")
    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            detail = f"format {version}; this version knows up to {SCHEMA_VERSION}"
            raise store_error(self.path, StoreProblem.TOO_NEW, detail)
        for number in range(version + 1, SCHEMA_VERSION + 1):
            with self._write(durable=True):
                MIGRATIONS[number - 1](self._db)
                self._db.execute(f"PRAGMA user_version = {number}")

    @property
    def schema_version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        self._db.close()

    @staticmethod
    def quarantine(path: Path) -> Path:
        """Rename a damaged store (and its WAL/SHM files) aside; return the new path.

        The next ``LocalStore(path)`` starts empty and the session refills it from the hub. The
        old file is kept, never deleted, so its outbox can still be inspected.
        """
        path = Path(path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            counter += 1
            target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
        try:
            path.rename(target)
            for suffix in ("-wal", "-shm"):
                sidecar = path.with_name(path.name + suffix)
                if sidecar.exists():
                    sidecar.rename(target.with_name(target.name + suffix))
        except OSError as exc:
            raise store_error(path, StoreProblem.UNWRITABLE, exc.strerror or str(exc), "moving it aside") from exc
        return target

    @contextmanager
    def _write(self, durable: bool = False) -> Iterator[None]:
        """One write transaction; ``durable`` commits with synchronous=FULL (the outbox)."""
        if durable:
            self._db.execute("PRAGMA synchronous = FULL")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        finally:
            if durable:
                self._db.execute("PRAGMA synchronous = NORMAL")

    # ---- rooms -------------------------------------------------------------------------

    @_guarded("saving the room list")
    def replace_rooms(self, rooms: Sequence[RoomInfo]) -> None:
        """Adopt the hub's full membership list; rooms not listed are forgotten with their data."""
        listed = {room.name for room in rooms}
        with self._write():
            for room in rooms:
                self._db.execute(
                    "INSERT INTO rooms (name, kind, members, hub_unread) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, "
                    "members = excluded.members, hub_unread = excluded.hub_unread",
                    (room.name, room.kind, room.members, room.unread),
                )
            for (name,) in self._db.execute("SELECT name FROM rooms").fetchall():
                if name not in listed:
                    self._forget(name)

    @_guarded("forgetting a room")
    def forget_room(self, name: str) -> None:
        """Drop a room (deleted on the hub) with its messages and roster; its outbox items stay."""
        with self._write():
            self._forget(name)

    def _forget(self, name: str) -> None:
        self._db.execute("DELETE FROM messages WHERE room = ?", (name,))
        self._db.execute("DELETE FROM roster WHERE room = ?", (name,))
        self._db.execute("DELETE FROM rooms WHERE name = ?", (name,))

    @_guarded("reading the room list")
    def room_names(self) -> list[str]:
        return [name for (name,) in self._db.execute("SELECT name FROM rooms ORDER BY name")]

    @_guarded("reading the room list")
    def room_summaries(self) -> list[RoomSummary]:
        """Every known room by name, with local unread/mention counts and the newest message."""
        rooms = self._db.execute(
            "SELECT name, kind, members, hub_unread, cursor FROM rooms ORDER BY name"
        ).fetchall()
        return [self._summary(*room) for room in rooms]

    def _summary(self, name: str, kind: str, members: int, hub_unread: int, cursor: int) -> RoomSummary:
        unread = self._count("SELECT count(*) FROM messages WHERE room = ? AND seq > ?", name, cursor)
        mentions = self._count(
            "SELECT count(*) FROM messages WHERE room = ? AND seq > ? AND mentions_me = 1", name, cursor
        )
        newest = self._db.execute(
            "SELECT seq, ts, sender_name, wire FROM messages WHERE room = ? ORDER BY seq DESC LIMIT 1",
            (name,),
        ).fetchone()
        max_seq, last_ts, last_sender, preview = 0, 0, "", ""
        if newest is not None:
            max_seq, last_ts, last_sender, wire = newest
            preview = codec.preview_text(codec.message_from_wire_text(wire).parts)
        return RoomSummary(
            name, kind, members, hub_unread, cursor, max_seq, last_ts, unread, mentions, preview, last_sender
        )

    def _count(self, sql: str, *params: object) -> int:
        return self._db.execute(sql, params).fetchone()[0]

    # ---- messages ----------------------------------------------------------------------

    @_guarded("saving messages")
    def insert_messages(
        self,
        messages: Sequence[StoredMessage],
        mentions_me: Callable[[StoredMessage], bool] | None = None,
    ) -> list[StoredMessage]:
        """Store messages unique by seq; return the newly stored ones, ascending by seq.

        ``messages`` may span rooms and repeat; rooms the store has not heard of are created as
        ``channel`` until ``replace_rooms`` says otherwise. ``mentions_me`` flags messages for
        the mention badge (it runs here, on the store's thread). A stored seq arriving with a
        different message id means the hub's history was reset: ``StoreError`` (``DIVERGED``),
        nothing of the batch is stored.
        """
        unique = sorted({m.seq: m for m in reversed(messages)}.values(), key=lambda m: m.seq)
        rows = [codec.message_row(m, bool(mentions_me and mentions_me(m))) for m in unique]
        inserted: list[StoredMessage] = []
        added: dict[str, int] = {}
        with self._write():
            for message, row in zip(unique, rows):
                cursor = self._db.execute(
                    "INSERT OR IGNORE INTO messages (seq, room, id, sender_name, ts, mentions_me, wire) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
                if cursor.rowcount == 1:
                    inserted.append(message)
                    added[message.room] = added.get(message.room, 0) + 1
                else:
                    self._check_same_message(message)
            for room, count in added.items():
                self._db.execute(
                    "INSERT INTO rooms (name, message_count) VALUES (?, ?) ON CONFLICT (name) "
                    "DO UPDATE SET message_count = message_count + excluded.message_count",
                    (room, count),
                )
        return inserted

    def _check_same_message(self, message: StoredMessage) -> None:
        """A seq already stored must hold the same message: seqs are never reused by a hub."""
        (stored_id,) = self._db.execute("SELECT id FROM messages WHERE seq = ?", (message.seq,)).fetchone()
        if stored_id != message.id:
            detail = f"message #{message.seq} is {message.id!r} on the hub but {stored_id!r} here"
            raise store_error(self.path, StoreProblem.DIVERGED, detail, "saving messages")

    @_guarded("reading messages")
    def max_seq(self, room: str) -> int:
        return self._count("SELECT coalesce(max(seq), 0) FROM messages WHERE room = ?", room)

    @_guarded("reading messages")
    def message_count(self, room: str) -> int:
        row = self._db.execute("SELECT message_count FROM rooms WHERE name = ?", (room,)).fetchone()
        return row[0] if row else 0

    @_guarded("reading messages")
    def messages_slice(self, room: str, offset: int, limit: int) -> list[StoredMessage]:
        """Rows ``[offset, offset + limit)`` of the room (row 0 = oldest), clipped to what exists.

        The first row's seq is found by walking the covering (room, seq) index from whichever end
        is nearer, so the newest page of a 100,000-message room costs the same as of a small
        room; a page in the middle costs an index walk of up to half the room (~1 ms at 100k).
        """
        total = self.message_count(room)
        start, end = max(offset, 0), min(offset + limit, total)
        if end <= start:
            return []
        if total - 1 - start < start:
            order, skip = "DESC", total - 1 - start
        else:
            order, skip = "ASC", start
        row = self._db.execute(
            f"SELECT seq FROM messages WHERE room = ? ORDER BY seq {order} LIMIT 1 OFFSET ?", (room, skip)
        ).fetchone()
        if row is None:  # message_count out of step with the rows: a damaged file
            raise store_error(self.path, StoreProblem.CORRUPT, f"room {room!r} has fewer rows than counted")
        rows = self._db.execute(
            _MESSAGE_WIRE + " AND seq >= ? ORDER BY seq LIMIT ?", (room, row[0], end - start)
        ).fetchall()
        return [codec.message_from_wire_text(wire) for (wire,) in rows]

    @_guarded("reading messages")
    def messages_after(self, room: str, seq: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages with seq > ``seq``, ascending."""
        rows = self._db.execute(
            _MESSAGE_WIRE + " AND seq > ? ORDER BY seq LIMIT ?", (room, seq, limit)
        ).fetchall()
        return [codec.message_from_wire_text(wire) for (wire,) in rows]

    @_guarded("reading messages")
    def messages_before(self, room: str, seq: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages with seq < ``seq`` (the nearest ones), ascending."""
        rows = self._db.execute(
            _MESSAGE_WIRE + " AND seq < ? ORDER BY seq DESC LIMIT ?", (room, seq, limit)
        ).fetchall()
        rows.reverse()
        return [codec.message_from_wire_text(wire) for (wire,) in rows]

    @_guarded("reading messages")
    def count_after(self, room: str, seq: int) -> int:
        return self._count("SELECT count(*) FROM messages WHERE room = ? AND seq > ?", room, seq)

    @_guarded("reading messages")
    def row_of_seq(self, room: str, seq: int) -> int:
        """Stored messages in ``room`` with seq <= ``seq``: the row of the first one after it."""
        return self.message_count(room) - self.count_after(room, seq)

    @_guarded("reading messages")
    def message_by_id(self, room: str, message_id: str) -> StoredMessage | None:
        row = self._db.execute(_MESSAGE_WIRE + " AND id = ?", (room, message_id)).fetchone()
        return codec.message_from_wire_text(row[0]) if row else None

    # ---- cursors -----------------------------------------------------------------------

    @_guarded("reading a cursor")
    def cursor(self, room: str) -> int:
        row = self._db.execute("SELECT cursor FROM rooms WHERE name = ?", (room,)).fetchone()
        return row[0] if row else 0

    @_guarded("saving a cursor")
    def set_cursor(self, room: str, seq: int) -> int:
        """Record the hub cursor; it never moves back. Returns the cursor now stored."""
        with self._write():
            self._db.execute(
                "INSERT INTO rooms (name, cursor) VALUES (?, ?) ON CONFLICT (name) "
                "DO UPDATE SET cursor = max(cursor, excluded.cursor)",
                (room, seq),
            )
            return self._count("SELECT cursor FROM rooms WHERE name = ?", room)

    # ---- roster ------------------------------------------------------------------------

    @_guarded("saving a roster")
    def replace_roster(self, room: str, entries: Sequence[RosterEntry]) -> None:
        rows = [(room, position, codec.to_json(e.to_wire())) for position, e in enumerate(entries)]
        with self._write():
            self._db.execute("DELETE FROM roster WHERE room = ?", (room,))
            self._db.executemany("INSERT INTO roster (room, position, wire) VALUES (?, ?, ?)", rows)

    @_guarded("reading a roster")
    def roster(self, room: str) -> list[RosterEntry]:
        rows = self._db.execute("SELECT wire FROM roster WHERE room = ? ORDER BY position", (room,))
        return [codec.roster_entry_from_wire_text(wire) for (wire,) in rows]

    # ---- outbox (durable) --------------------------------------------------------------

    @_guarded("saving a message to send")
    def outbox_add(self, item: OutboxItem) -> None:
        """Store ``item`` durably before returning; re-adding the same content is a no-op.

        Raises ``StoreError`` (``CONFLICT``) if ``item.client_id`` already stands for different
        content: a clientId is never reused for another message.
        """
        content = codec.outbox_content(item)
        with self._write(durable=True):
            existing = self._db.execute(
                "SELECT room, parts, mentions, reply_to FROM outbox WHERE client_id = ?", (item.client_id,)
            ).fetchone()
            if existing is None:
                self._db.execute(
                    f"INSERT INTO outbox ({codec.OUTBOX_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    codec.outbox_row(item),
                )
            elif tuple(existing) != content:
                raise StoreError(
                    self.path,
                    StoreProblem.CONFLICT,
                    f"The outbox in {self.path} already holds a different message with clientId "
                    f"{item.client_id!r}; a new message needs a fresh clientId.",
                )

    @_guarded("reading the outbox")
    def outbox_get(self, client_id: str) -> OutboxItem | None:
        row = self._db.execute(
            f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE client_id = ?", (client_id,)
        ).fetchone()
        return codec.outbox_from_row(row) if row else None

    @_guarded("reading the outbox")
    def outbox_items(
        self, statuses: Collection[OutboxStatus] | None = None, room: str | None = None
    ) -> list[OutboxItem]:
        """Items oldest first (by ``created_at``, then by when they were added)."""
        clauses, params = [], []
        if statuses is not None:
            clauses.append(f"status IN ({', '.join('?' * len(statuses))})")
            params.extend(status.value for status in statuses)
        if room is not None:
            clauses.append("room = ?")
            params.append(room)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._db.execute(
            f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox{where} ORDER BY created_at, rowid", params
        )
        return [codec.outbox_from_row(row) for row in rows]

    @_guarded("updating a message to send")
    def outbox_update(self, client_id: str, **changes: object) -> OutboxItem:
        """Change ``status``, ``message_id``, ``seq``, ``error`` or ``error_code``; durable.

        Raises ``KeyError`` for an unknown ``client_id`` and ``TypeError`` for other fields.
        """
        unknown = set(changes) - _OUTBOX_CHANGES
        if unknown:
            raise TypeError(f"outbox_update cannot change {sorted(unknown)}")
        if "status" in changes and not isinstance(changes["status"], OutboxStatus):
            raise TypeError("outbox_update status must be an OutboxStatus")
        with self._write(durable=True):
            current = self.outbox_get(client_id)
            if current is None:
                raise KeyError(client_id)
            updated = dataclasses.replace(current, **changes)  # type: ignore[arg-type]
            self._db.execute(
                "UPDATE outbox SET status = ?, message_id = ?, seq = ?, error = ?, error_code = ? "
                "WHERE client_id = ?",
                (updated.status.value, updated.message_id, updated.seq, updated.error, updated.error_code, client_id),
            )
        return updated

    @_guarded("pruning the outbox")
    def outbox_prune(self, created_before: float) -> int:
        """Delete SENT and DISCARDED items created before ``created_before``; return how many."""
        with self._write(durable=True):
            return self._db.execute(
                "DELETE FROM outbox WHERE status IN (?, ?) AND created_at < ?",
                (OutboxStatus.SENT.value, OutboxStatus.DISCARDED.value, created_before),
            ).rowcount

    # ---- meta --------------------------------------------------------------------------

    @_guarded("reading settings")
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @_guarded("saving settings")
    def set_meta(self, key: str, value: str) -> None:
        with self._write():
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
