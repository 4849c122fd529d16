"""Stores as an older version of the app left them, for the tests of what an upgrade does."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, codec
from parler_desktop.store.outbox_file import INSERT_DRAFT, INSERT_ITEM
from parler_desktop.store.outbox_item import Draft, OutboxItem
from parler_desktop.store.schema import MIGRATIONS, OUTBOX_MOVED_VERSION, SEARCH_BACKLOG_KEY, SEARCH_INDEX_VERSION


def store_before_search(path: Path, messages: Sequence[StoredMessage]) -> None:
    """A store file at ``path`` holding ``messages`` as the version before the search index."""
    old = LocalStore(path)
    old.insert_messages(messages)
    old.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE message_search")
    db.execute("DELETE FROM meta WHERE key = ?", (SEARCH_BACKLOG_KEY,))
    db.execute(f"PRAGMA user_version = {SEARCH_INDEX_VERSION - 1}")
    db.commit()
    db.close()


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
