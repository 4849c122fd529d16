"""The durable outbox: what the human posted, written before any network I/O.

It lives in the outbox file (``outbox_file.py``), apart from the cache. Every write commits with
``synchronous=FULL`` before returning, so an item the caller was told is stored survives
``kill -9`` and a power cut; a write that fails raises ``StoreError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from parler_desktop.store import codec
from parler_desktop.store.database import StoreDatabase, guarded
from parler_desktop.store.errors import StoreError, StoreProblem
from parler_desktop.store.outbox_file import INSERT_ITEM
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus

_OUTBOX_CHANGES = frozenset({"status", "message_id", "seq", "error", "error_code", "room"})


class OutboxTables(StoreDatabase):
    """The outbox methods of ``LocalStore``."""

    @guarded("saving a message to send", outbox=True)
    def outbox_add(self, item: OutboxItem) -> None:
        """Store ``item`` durably before returning; re-adding the same content is a no-op.

        Raises ``StoreError`` (``CONFLICT``) if ``item.client_id`` already stands for different
        content: a clientId is never reused for another message.
        """
        content = codec.outbox_content(item)
        with self._outbox.write(durable=True):
            existing = self._outbox.db.execute(
                "SELECT room, parts, mentions, reply_to FROM outbox WHERE client_id = ?", (item.client_id,)
            ).fetchone()
            if existing is None:
                self._outbox.db.execute(INSERT_ITEM, codec.outbox_row(item))
            elif tuple(existing) != content:
                raise StoreError(
                    self._outbox.path,
                    StoreProblem.CONFLICT,
                    f"The outbox {self._outbox.path} already holds a different message with clientId "
                    f"{item.client_id!r}; a new message needs a fresh clientId.",
                    outbox=True,
                )

    @guarded("reading the outbox", outbox=True)
    def outbox_get(self, client_id: str) -> OutboxItem | None:
        row = self._outbox.db.execute(
            f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE client_id = ?", (client_id,)
        ).fetchone()
        return codec.outbox_from_row(row) if row else None

    @guarded("reading the outbox", outbox=True)
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
        rows = self._outbox.db.execute(
            f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox{where} ORDER BY created_at, rowid", params
        )
        return [codec.outbox_from_row(row) for row in rows]

    @guarded("reading the outbox", outbox=True)
    def outbox_sent(self) -> list[tuple[str, str, int]]:
        """(client id, room, seq) of every item the hub accepted: what a process that watches
        for other processes' posts needs, without decoding the items."""
        rows = self._outbox.db.execute(
            "SELECT client_id, room, seq FROM outbox WHERE status = ? AND seq IS NOT NULL",
            (OutboxStatus.SENT.value,),
        )
        return [(client_id, room, seq) for client_id, room, seq in rows]

    @guarded("reading the outbox", outbox=True)
    def outbox_unstored(self, room: str, seq: int) -> list[OutboxItem]:
        """The posts of ``room`` whose copy may not be stored: waiting or failed, then those the
        hub numbered above ``seq`` (the room's sync mark: a pull may not have stored them yet),
        each oldest first; in one statement (a room opened under traffic waits for the GIL
        at each)."""
        rows = self._outbox.db.execute(
            f"SELECT {codec.OUTBOX_COLUMNS} FROM outbox WHERE room = ? AND (status IN (?, ?) OR status = ? AND seq > ?) "
            "ORDER BY created_at, rowid",
            (room, OutboxStatus.PENDING.value, OutboxStatus.FAILED.value, OutboxStatus.SENT.value, seq),
        )
        return sorted((codec.outbox_from_row(row) for row in rows), key=lambda item: item.status is OutboxStatus.SENT)  # (stable)

    @guarded("reading the outbox", outbox=True)
    def outbox_holder(self, seq: int) -> str | None:
        """The client id of the sent post the hub numbered ``seq`` (seqs are hub-wide), if any:
        a ``sent`` for another post that names it is a reply out of turn (client/outbox.py)."""
        row = self._outbox.db.execute(
            "SELECT client_id FROM outbox WHERE status = ? AND seq = ? LIMIT 1",
            (OutboxStatus.SENT.value, seq),
        ).fetchone()
        return row[0] if row else None

    @guarded("updating a message to send", outbox=True)
    def outbox_update(self, client_id: str, **changes: object) -> OutboxItem:
        """Change ``status``, ``message_id``, ``seq``, ``error`` or ``error_code``; durable. A first
        message to an agent (``room`` "") also takes the ``room`` the hub made its DM.

        Raises ``KeyError`` for an unknown ``client_id`` and ``TypeError`` for other fields (and
        for another room of a post that has one).
        """
        unknown = set(changes) - _OUTBOX_CHANGES
        if unknown:
            raise TypeError(f"outbox_update cannot change {sorted(unknown)}")

        if "status" in changes and not isinstance(changes["status"], OutboxStatus):
            raise TypeError("outbox_update status must be an OutboxStatus")
        with self._outbox.write(durable=True):
            current = self.outbox_get(client_id)
            if current is None:
                raise KeyError(client_id)
            if current.room and changes.get("room", current.room) != current.room:
                raise TypeError("outbox_update cannot move a post to another room")
            updated = dataclasses.replace(current, **changes)  # type: ignore[arg-type]
            self._outbox.db.execute(
                "UPDATE outbox SET status = ?, message_id = ?, seq = ?, error = ?, error_code = ?, room = ? "
                "WHERE client_id = ?",
                (updated.status.value, updated.message_id, updated.seq, updated.error, updated.error_code, updated.room, client_id),
            )
        return updated

    @guarded("pruning the outbox", outbox=True)
    def outbox_prune(self, created_before: float) -> int:
        """Delete SENT and DISCARDED items created before ``created_before``; return how many."""
        with self._outbox.write(durable=True):
            return self._outbox.db.execute(
                "DELETE FROM outbox WHERE status IN (?, ?) AND created_at < ?",
                (OutboxStatus.SENT.value, OutboxStatus.DISCARDED.value, created_before),
            ).rowcount
