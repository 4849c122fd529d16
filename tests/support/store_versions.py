"""Stores as an older version of the app left them, for the tests of what an upgrade does."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore
from parler_desktop.store.schema import SEARCH_BACKLOG_KEY, SEARCH_INDEX_VERSION


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
