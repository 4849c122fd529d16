"""The cache's schema as numbered migrations keyed by ``PRAGMA user_version``.

Migration ``n`` (1-based position in ``MIGRATIONS``) takes a database at version ``n - 1`` to
version ``n``. Append new migrations; never edit a released one.

Why the shape:
- ``messages.seq`` is the rowid: seq is hub-global and unique, so dedupe is the primary key.
- ``messages(room, seq)`` serves every per-room range, count and slice; a partial index over the
  rows that mention the user keeps the mention badge cheap.
- ``rooms.message_count`` is kept exact by the store so a 100,000-message room counts in O(1)
  and slices near either end without long OFFSET scans.
- ``rooms.unread`` / ``rooms.mentions_unread`` are kept exact the same way (``room_counts.py``),
  so the room list reads every room's badges in one query.
- ``messages.wire`` holds the message's wire JSON: the hub's copy is the truth, re-parsed on read.
- The outbox and drafts tables of the early migrations moved to the outbox file
  (``outbox_file.py``), which no fresh cache touches; ``_outbox_moved_out`` drops them here once
  ``StoreDatabase`` has handed their rows over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def create_outbox_table(db: sqlite3.Connection) -> None:
    """The outbox (what the human posted), in the cache until the outbox file held it."""
    db.execute(
        """CREATE TABLE outbox (
            client_id TEXT PRIMARY KEY,
            room TEXT NOT NULL,
            parts TEXT NOT NULL,
            mentions TEXT NOT NULL,
            reply_to TEXT,
            created_at REAL NOT NULL,
            status TEXT NOT NULL,
            message_id TEXT,
            seq INTEGER,
            error TEXT,
            error_code TEXT
        )"""
    )


def create_drafts_table(db: sqlite3.Connection) -> None:
    """Per-room composer drafts (text and reply target), kept across room switches and restarts."""
    db.execute(
        "CREATE TABLE drafts (room TEXT PRIMARY KEY, text TEXT NOT NULL, reply_to TEXT, reply_label TEXT NOT NULL DEFAULT '')"
    )


def create_needs_tables(db: sqlite3.Connection) -> None:
    """The outbox file's migration 2: the human's decisions, the notified items and the answered
    ones (time to unblock)."""
    db.execute(
        "CREATE TABLE needs_decisions (key TEXT PRIMARY KEY, action TEXT NOT NULL, until REAL NOT NULL DEFAULT 0, "
        "agent TEXT NOT NULL DEFAULT '', after_seq INTEGER NOT NULL DEFAULT 0, decided_at REAL NOT NULL)"
    )
    db.execute("CREATE TABLE needs_notified (key TEXT PRIMARY KEY, at REAL NOT NULL)")
    db.execute(
        "CREATE TABLE needs_answered (key TEXT PRIMARY KEY, agent TEXT NOT NULL, room TEXT NOT NULL, "
        "kind TEXT NOT NULL, since REAL NOT NULL, answered_at REAL NOT NULL)"
    )


def _initial_schema(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE rooms (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL DEFAULT 'channel',
            members INTEGER NOT NULL DEFAULT 0,
            hub_unread INTEGER NOT NULL DEFAULT 0,
            cursor INTEGER NOT NULL DEFAULT 0,
            message_count INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """CREATE TABLE messages (
            seq INTEGER PRIMARY KEY,
            room TEXT NOT NULL,
            id TEXT NOT NULL,
            sender_name TEXT NOT NULL,
            ts INTEGER NOT NULL,
            mentions_me INTEGER NOT NULL DEFAULT 0,
            wire TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX messages_by_room ON messages(room, seq)")
    db.execute("CREATE INDEX messages_by_id ON messages(id)")
    db.execute("CREATE INDEX messages_mentioning_me ON messages(room, seq) WHERE mentions_me = 1")
    db.execute(
        """CREATE TABLE roster (
            room TEXT NOT NULL,
            position INTEGER NOT NULL,
            wire TEXT NOT NULL,
            PRIMARY KEY (room, position)
        )"""
    )
    create_outbox_table(db)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")


def _room_sync_marks(db: sqlite3.Connection) -> None:
    """Per-room sync mark (the seq up to which history is known complete), forgotten with the room."""
    db.execute("ALTER TABLE rooms ADD COLUMN sync_mark INTEGER")


def _room_settled_unread(db: sqlite3.Connection) -> None:
    """Per-room hub unread count as of the room's last complete pull that agreed with the store
    (NULL: unknown), so a restart skips the rooms whose count has not moved since."""
    db.execute("ALTER TABLE rooms ADD COLUMN settled_unread INTEGER")


def _drafts(db: sqlite3.Connection) -> None:
    """Drafts, in the cache until the outbox file held them."""
    create_drafts_table(db)


def _message_signatures(db: sqlite3.Connection) -> None:
    """Per-message signature verdict ('verified' / 'unsigned' / 'invalid'; NULL: not checked yet),
    checked once on the store's thread instead of on every reader's (``signatures.py``)."""
    db.execute("ALTER TABLE messages ADD COLUMN signature TEXT")


SEARCH_BACKLOG_KEY = "search_backlog_below"  # meta: stored messages below this seq may be unindexed


def _search_index(db: sqlite3.Connection) -> None:
    """The full-text index (store/search.py), empty; every message stored so far is backlog."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS message_search "
        "USING fts5(body, kinds, tokenize = 'unicode61 remove_diacritics 2')"
    )
    (below,) = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM messages").fetchone()
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (SEARCH_BACKLOG_KEY, str(below)))


def _search_pending(db: sqlite3.Connection) -> None:
    """Messages stored but not yet in the search index (store/search.py: pushes are indexed just
    after the write that stores them, so ``listen`` prints them without waiting for FTS)."""
    db.execute("CREATE TABLE IF NOT EXISTS search_pending (seq INTEGER PRIMARY KEY)")


def _outbox_moved_out(db: sqlite3.Connection) -> None:
    """What the human wrote lives in the outbox file now (its rows were copied there first)."""
    db.execute("DROP TABLE IF EXISTS outbox")
    db.execute("DROP TABLE IF EXISTS drafts")


def _room_unread_counts(db: sqlite3.Connection) -> None:
    """Each room's unread and mention counts, kept as messages and cursors change
    (``room_counts.py``); zero until the first ``room_summaries`` recounts them."""
    db.execute("ALTER TABLE rooms ADD COLUMN unread INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE rooms ADD COLUMN mentions_unread INTEGER NOT NULL DEFAULT 0")


def _pruned_spans(db: sqlite3.Connection) -> None:
    """Each room's pruned messages as spans the hub can be asked for again (``retention.py``)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS pruned_spans (room TEXT NOT NULL, since INTEGER NOT NULL, "
        "through INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (room, through))"
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _initial_schema, _room_sync_marks, _room_settled_unread, _drafts, _message_signatures, _search_index,
    _search_pending, _outbox_moved_out, _room_unread_counts, _pruned_spans,
)

SCHEMA_VERSION = len(MIGRATIONS)
SEARCH_INDEX_VERSION = MIGRATIONS.index(_search_index) + 1  # the first version with the search index
OUTBOX_MOVED_VERSION = MIGRATIONS.index(_outbox_moved_out) + 1  # the first without outbox and drafts
KEPT_COUNTS_VERSION = MIGRATIONS.index(_room_unread_counts) + 1  # the first with kept unread counts
