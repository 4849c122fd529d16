"""Reading back what the human wrote (outbox items and drafts) from a file, damaged or not.

A damaged file is read as far as it goes: its schema even when it names pages past a cut-off end
(``writable_schema`` on a read-only connection skips that check), each table forward by rowid up
to the first page that cannot be read and backward down to the last one, so only the rows on
damaged pages are lost; a row that no longer decodes is skipped.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.store import codec
from parler_desktop.store.outbox_item import Draft, OutboxItem

_DRAFT_COLUMNS = "room, text, reply_to, reply_label"


@dataclass(frozen=True)
class Written:
    """Outbox items and drafts, oldest first."""

    items: list[OutboxItem]
    drafts: list[Draft]


def read_written(db: sqlite3.Connection, *, tolerant: bool = False) -> Written:
    """The outbox items and drafts in ``db``; ``tolerant``: what can be read of a damaged file
    (``sqlite3.Error`` only stops a scan) instead of all or ``sqlite3.Error``."""
    items = [item for row in _rows(db, "outbox", codec.OUTBOX_COLUMNS, tolerant) if (item := _item(row))]
    drafts = [draft for row in _rows(db, "drafts", _DRAFT_COLUMNS, tolerant) if (draft := _draft(row))]
    return Written(sorted(items, key=lambda item: item.created_at), drafts)


def salvage_written(path: Path) -> Written:
    """Best effort, never raising: what ``read_written`` can read of the file at ``path``."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return Written([], [])
    try:
        db.execute("PRAGMA writable_schema = ON")  # read-only: it only relaxes the schema's checks
        return read_written(db, tolerant=True)
    except sqlite3.Error:
        return Written([], [])
    finally:
        db.close()


def _rows(db: sqlite3.Connection, table: str, columns: str, tolerant: bool) -> list[tuple]:
    if not tolerant:
        if db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone() is None:
            return []  # a table not there holds nothing
        return db.execute(f"SELECT {columns} FROM {table} ORDER BY rowid").fetchall()
    found: dict[int, tuple] = {}
    for order in ("ASC", "DESC"):
        try:
            for rowid, *row in db.execute(f"SELECT rowid, {columns} FROM {table} ORDER BY rowid {order}"):
                found[rowid] = tuple(row)
        except sqlite3.Error:  # a damaged page (or no such table): keep what was read before it
            continue
    return [found[rowid] for rowid in sorted(found)]


def _item(row: tuple) -> OutboxItem | None:
    try:
        return codec.outbox_from_row(row)
    except (ValueError, TypeError):  # bad JSON or an unknown status
        return None


def _draft(row: tuple) -> Draft | None:
    room, text, reply_to, label = row
    if isinstance(room, str) and isinstance(text, str) and isinstance(label, str) and isinstance(reply_to, (str, type(None))):
        return Draft(room, text, reply_to, label)
    return None
