"""Full-text search over the stored messages: an SQLite FTS5 table beside ``messages``.

The index row of a message has the message's seq as its rowid, its readable words (``body``) and
its part kinds (``kinds``). New messages are indexed in the transaction that stores them, except
pushes: indexing one costs more than storing it (~0.3 ms of FTS writes on an idle machine), and a
push is printed by ``listen`` only once stored, so a push is stored with a row in
``search_pending`` and indexed by ``index_pending`` right after (a process killed in between
leaves the row, and the next ``index_pending`` indexes it). Messages stored before the index
existed are indexed by ``index_backlog`` in small steps (newest first), which the app runs in the
background and reports as progress.

A query is the human's words, each matched as a word prefix, all of them required; it is never
parsed as FTS syntax, so any input is safe and none is an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from parler_desktop.store.database import StoreDatabase, guarded
from parler_desktop.store.schema import SEARCH_BACKLOG_KEY
from parler_desktop.store.search_text import indexed_text

SNIPPET_START, SNIPPET_END = "\x02", "\x03"  # around each match in a snippet (never in wire text)
# Pushes indexed per call of ``index_pending``: each is a few milliseconds of Python (the parts read
# and their words found) holding the GIL that the window's thread needs. 500 at a time was 30–70 ms
# of it, and in a burst the window's appends waited behind it. Each call is awaited, so the
# window's thread runs between them.
PENDING_BATCH = 50
SEQ_MAX = 2**63 - 1  # SQLite's largest integer: above every seq
_WORD = re.compile(r"\w+", re.UNICODE)


def match_expression(query: str, kind: str | None = None) -> str | None:
    """The FTS5 expression for the human's words (None when there is no word to look for)."""
    words = [f'"{word}"*' for word in _WORD.findall(query.lower())]
    if not words:
        return None
    expression = f"body : ({' AND '.join(words)})"
    if kind:
        expression += f' AND kinds : "{kind.lower()}"'
    return expression


@dataclass(frozen=True)
class SearchHit:
    seq: int
    room: str
    sender: str
    ts: int
    snippet: str  # plain text with SNIPPET_START/SNIPPET_END around the matches


@dataclass(frozen=True)
class BacklogProgress:
    indexed: int  # stored messages in the index
    total: int  # stored messages
    older: int = 0  # of those not indexed, the ones stored before the index (``index_backlog``'s)

    @property
    def done(self) -> bool:
        return self.indexed >= self.total


class SearchTables(StoreDatabase):
    """The search methods of ``LocalStore``."""

    def _index(self, messages: Iterable[tuple[int, Sequence[dict]]]) -> None:
        """Index (seq, parts) pairs: new messages as they are stored, and the backlog."""
        self._insert_at_once("INSERT INTO message_search (rowid, body, kinds)", [(seq, *indexed_text(parts)) for seq, parts in messages])

    def _index_later(self, seqs: Iterable[int]) -> None:
        """Leave stored messages for ``index_pending`` (see the module docstring)."""
        self._insert_at_once("INSERT OR IGNORE INTO search_pending (seq)", [(seq,) for seq in seqs])

    def _unindex_room(self, room: str) -> None:
        self._db.execute("DELETE FROM message_search WHERE rowid IN (SELECT seq FROM messages WHERE room = ?)", (room,))
        self._db.execute("DELETE FROM search_pending WHERE seq IN (SELECT seq FROM messages WHERE room = ?)", (room,))

    @guarded("indexing messages for search")
    def index_pending(self, batch: int = PENDING_BATCH, up_to: int | None = None) -> bool:
        """Index up to ``batch`` of the messages left for later (only those with seq ≤ ``up_to``,
        when given); True while more are left."""
        with self._write():  # (each statement one step: ``StoreDatabase._rows_at_once`` says why)
            rows = self._rows_at_once(
                "seq, wire",
                "SELECT p.seq AS seq, m.wire AS wire FROM search_pending p JOIN messages m ON m.seq = p.seq "
                "WHERE p.seq <= ? ORDER BY p.seq LIMIT ?",
                (SEQ_MAX if up_to is None else up_to, batch),
            )
            self._index((seq, json.loads(wire)["parts"]) for seq, wire in rows)
            self._db.execute("DELETE FROM search_pending WHERE seq IN (SELECT value FROM json_each(?))", (json.dumps([seq for seq, _ in rows]),))
        return len(rows) == batch

    @guarded("reading what waits for indexing")
    def newest_pending(self) -> int | None:
        """The highest seq left for ``index_pending`` (None when nothing is)."""
        return self._db.execute("SELECT max(seq) FROM search_pending").fetchone()[0]

    @guarded("searching messages")
    def search(
        self, query: str, room: str | None = None, author: str | None = None, kind: str | None = None, limit: int = 100
    ) -> list[SearchHit]:
        """The newest ``limit`` messages holding every word of ``query`` (as word prefixes),
        optionally only in ``room``, from ``author`` (any case) and with a part of ``kind``."""
        expression = match_expression(query, kind)
        if expression is None:
            return []
        sql = (
            "SELECT m.seq, m.room, m.sender_name, m.ts, snippet(message_search, 0, ?, ?, '…', 16) "
            "FROM message_search JOIN messages m ON m.seq = message_search.rowid "
            "WHERE message_search MATCH ?"
        )
        params: list[object] = [SNIPPET_START, SNIPPET_END, expression]
        if room:
            sql += " AND m.room = ?"
            params.append(room)
        if author:
            sql += " AND m.sender_name = ? COLLATE NOCASE"
            params.append(author.strip())
        sql += " ORDER BY message_search.rowid DESC LIMIT ?"
        params.append(limit)
        return [SearchHit(*row) for row in self._db.execute(sql, params)]

    @guarded("indexing messages for search")
    def index_backlog(self, batch: int = 2000) -> BacklogProgress:
        """Index up to ``batch`` more of the messages stored before the index existed."""
        with self._write():
            below = int(self.get_meta(SEARCH_BACKLOG_KEY) or 0)
            rows = (
                self._rows_at_once(
                    "seq, wire",
                    "SELECT seq, wire FROM messages m WHERE seq < ? AND NOT EXISTS "
                    "(SELECT 1 FROM message_search WHERE rowid = m.seq) ORDER BY seq DESC LIMIT ?",
                    (below, batch),
                )
                if below > 0
                else []
            )
            self._index((seq, json.loads(wire)["parts"]) for seq, wire in rows)
            below = min(seq for seq, _ in rows) if len(rows) == batch else 0
            self._set_meta(SEARCH_BACKLOG_KEY, str(below))
        return self.search_progress()

    @guarded("reading the search index")
    def search_progress(self) -> BacklogProgress:
        total = self._count("SELECT coalesce(sum(message_count), 0) FROM rooms")
        below = int(self.get_meta(SEARCH_BACKLOG_KEY) or 0)
        older = self._count("SELECT count(*) FROM messages WHERE seq < ?", below) if below > 0 else 0
        waiting = older + self._count("SELECT count(*) FROM search_pending")
        return BacklogProgress(total - waiting, total, older)
