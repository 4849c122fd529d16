"""Stores as an older version of the app left them, for the tests of what an upgrade does."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, codec
from parler_desktop.store.outbox_file import INSERT_DRAFT, INSERT_ITEM
from parler_desktop.store.outbox_item import Draft, OutboxItem
from parler_desktop.store.room_counts import COUNTED_FOR_KEY
from parler_desktop.store.schema import (
    KEPT_COUNTS_VERSION, MIGRATIONS, OUTBOX_MOVED_VERSION, SEARCH_BACKLOG_KEY, SEARCH_INDEX_VERSION,
)


def store_before_search(path: Path, messages: Sequence[StoredMessage]) -> None:
    """A store file at ``path`` holding ``messages`` as the version before the search index."""
    db = _store_before_kept_counts(path, messages)
    db.execute("DROP TABLE message_search")
    db.execute("DELETE FROM meta WHERE key = ?", (SEARCH_BACKLOG_KEY,))
    db.execute(f"PRAGMA user_version = {SEARCH_INDEX_VERSION - 1}")
    db.commit()
    db.close()


def store_before_kept_counts(path: Path, messages: Sequence[StoredMessage], cursors: dict[str, int]) -> None:
    """A store file at ``path`` holding ``messages`` and ``cursors`` as the version before the
    rooms kept their unread counts."""
    old = LocalStore(path)
    for room, cursor in cursors.items():
        old.set_cursor(room, cursor)
    old.close()
    db = _store_before_kept_counts(path, messages)
    db.commit()
    db.close()


def _store_before_kept_counts(path: Path, messages: Sequence[StoredMessage]) -> sqlite3.Connection:
    old = LocalStore(path)
    old.insert_messages(messages)
    old.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE rooms DROP COLUMN unread")
    db.execute("ALTER TABLE rooms DROP COLUMN mentions_unread")
    db.execute("DELETE FROM meta WHERE key = ?", (COUNTED_FOR_KEY,))
    db.execute(f"PRAGMA user_version = {KEPT_COUNTS_VERSION - 1}")
    return db


def store_before_outbox_file(path: Path, items: Sequence[OutboxItem], drafts: Sequence[Draft] = ()) -> None:
    """A cache file at ``path`` as the versions before the outbox file left it: the outbox and the
    drafts in its own tables."""
    db = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[: OUTBOX_MOVED_VERSION - 1]:
        migration(db)
    db.executemany(INSERT_ITEM, [codec.outbox_row(item) for item in items])
    db.executemany(INSERT_DRAFT, [(d.room, d.text, d.reply_to, d.reply_label) for d in drafts])
    db.execute(f"PRAGMA user_version = {OUTBOX_MOVED_VERSION - 1}")
    db.close()
