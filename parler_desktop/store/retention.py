"""How much of the hub's history the cache keeps: a per-hub policy, and pruning in small steps.

Why: the cache only grew (every message, its search entry and its pages, forever); the hub holds
the history, so what is pruned here can be read from it again (``pull`` with ``since``, which never
moves the cursor). A step deletes at most ``STEP_MESSAGES`` messages in one short transaction and
then gives the freed pages back to the file system (``PRAGMA incremental_vacuum``), so the store's
thread is never held for long and other calls run between steps (``prune_until_kept``).

What is pruned: only the ``messages`` table with its search index rows (``message_search``,
``search_pending``) — never another table. Only messages at or below their room's cursor (read),
and never a room's newest message (its room-list line and order), oldest first: those older than
the policy's days, then, while the file is larger than its bytes, the oldest read ones whatever
their age. So unread counts (``room_counts.py``: stored messages above the cursor) are unchanged
by pruning, and what the human wrote lives in the outbox file, which this never opens.

Each room's pruned messages are remembered as spans of at most ``SPAN_MESSAGES`` (``pruned_spans``:
every message of the room with ``since < seq <= through`` was pruned), so scrolling back past what is
kept asks the hub for exactly one span (``pull`` since ``since``, limit ``count``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from parler_desktop.store.database import StoreDatabase, guarded

STEP_MESSAGES = 500  # messages deleted per transaction
SPAN_MESSAGES = 60  # messages per remembered span: one scroll-back page (the timeline's PAGE_SIZE)
VACUUM_PAGES = 2000  # free pages handed back per step
DAY_MS = 86_400_000
PRUNED_NEWEST_TS_KEY = "pruned_newest_ts"  # meta: hub time (ms) of the newest message pruned so far


@dataclass(frozen=True)
class RetentionPolicy:
    """What a hub's cache keeps: the newest ``days`` days and at most ``max_bytes`` (None: no bound
    of that kind; both None: keep everything)."""

    days: int | None = 90
    max_bytes: int | None = 2 * 1024**3

    KEEP_EVERYTHING_TEXT = "everything"

    @property
    def keeps_everything(self) -> bool:
        return self.days is None and self.max_bytes is None

    def to_text(self) -> str:
        """The settings' form: "DAYS,MEGABYTES" (either may be empty), or "everything"."""
        if self.keeps_everything:
            return self.KEEP_EVERYTHING_TEXT
        megabytes = "" if self.max_bytes is None else str(self.max_bytes // 1024**2)
        return f"{'' if self.days is None else self.days},{megabytes}"

    @classmethod
    def from_text(cls, text: str) -> RetentionPolicy:
        """``to_text``'s form back; anything else is the default policy."""
        if text == cls.KEEP_EVERYTHING_TEXT:
            return cls(None, None)
        days, _, megabytes = text.partition(",")
        try:
            return cls(int(days) if days else None, int(megabytes) * 1024**2 if megabytes else None)
        except ValueError:
            return cls()


@dataclass(frozen=True)
class PruneStep:
    deleted: int  # messages deleted by this step
    more: bool  # another step would delete more


class RetentionTables(StoreDatabase):
    """The pruning methods of ``LocalStore``; see the module docstring."""

    @guarded("measuring the cache")
    def cache_bytes(self) -> int:
        """The cache file's pages in use (what it holds once free pages are handed back)."""
        (pages,) = self._db.execute("PRAGMA page_count").fetchone()
        (free,) = self._db.execute("PRAGMA freelist_count").fetchone()
        (size,) = self._db.execute("PRAGMA page_size").fetchone()
        return (pages - free) * size

    @guarded("preparing the cache to shrink")
    def use_incremental_vacuum(self) -> bool:
        """Make the file able to shrink as it is pruned (``auto_vacuum = INCREMENTAL``); a cache
        made before needs one ``VACUUM``, which rewrites the whole file (seconds for a large cache,
        on the store's thread: run it from the background job only). True when it was needed."""
        (mode,) = self._db.execute("PRAGMA auto_vacuum").fetchone()
        if mode == 2:
            return False
        self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        self._db.execute("VACUUM")
        return True

    @guarded("pruning old messages")
    def prune_step(self, policy: RetentionPolicy, now_ms: int | None = None, batch: int = STEP_MESSAGES) -> PruneStep:
        """Delete up to ``batch`` of the oldest read messages the policy does not keep."""
        if policy.keeps_everything:
            return PruneStep(0, False)
        over_size = policy.max_bytes is not None and self.cache_bytes() > policy.max_bytes
        rows: list[tuple[int, str, int]] = []
        if over_size or policy.days is not None:
            cutoff = None if over_size else (int(time.time() * 1000) if now_ms is None else now_ms) - policy.days * DAY_MS
            with self._write():
                rows = self._db.execute(
                    "SELECT seq, room, ts FROM messages m WHERE seq <= (SELECT cursor FROM rooms WHERE name = m.room) "
                    "AND seq < (SELECT max(seq) FROM messages WHERE room = m.room) ORDER BY seq LIMIT ?",
                    (batch,),
                ).fetchall()
                if cutoff is not None:  # a hub stamps messages as it appends them: ts grows with seq
                    rows = rows[: next((i for i, (_seq, _room, ts) in enumerate(rows) if ts >= cutoff), len(rows))]
                if rows:
                    self._delete(rows)
            # executescript steps the pragma to its end (a cursor's step frees one page only)
            self._db.executescript(f"PRAGMA incremental_vacuum({VACUUM_PAGES});")
        more = len(rows) == batch or (over_size and bool(rows))
        if not more:  # the end of a pass: the file shrinks as the WAL is written back into it
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        return PruneStep(len(rows), more)

    def _delete(self, rows: list[tuple[int, str, int]]) -> None:
        """Delete (seq, room, ts) rows, ascending by seq; remember each room's spans."""
        by_room: dict[str, list[int]] = {}
        for seq, room, _ts in rows:
            by_room.setdefault(room, []).append(seq)
        for room, seqs in by_room.items():
            since, count = 0, 0
            last = self._db.execute(
                "SELECT since, through, count FROM pruned_spans WHERE room = ? ORDER BY through DESC LIMIT 1", (room,)
            ).fetchone()
            if last is not None and last[2] < SPAN_MESSAGES:  # the room's newest span fills up first
                since, count = last[0], last[2]
                self._db.execute("DELETE FROM pruned_spans WHERE room = ? AND through = ?", (room, last[1]))
            elif last is not None:
                since = last[1]
            spans = []
            for seq in seqs:
                count += 1
                if count == SPAN_MESSAGES or seq == seqs[-1]:
                    spans.append((room, since, seq, count))
                    since, count = seq, 0
            self._db.executemany("INSERT INTO pruned_spans (room, since, through, count) VALUES (?, ?, ?, ?)", spans)
            self._db.execute("UPDATE rooms SET message_count = message_count - ? WHERE name = ?", (len(seqs), room))
        seqs = [(seq,) for seq, _room, _ts in rows]
        self._db.executemany("DELETE FROM message_search WHERE rowid = ?", seqs)
        self._db.executemany("DELETE FROM search_pending WHERE seq = ?", seqs)
        self._db.executemany("DELETE FROM messages WHERE seq = ?", seqs)
        newest = max(ts for _seq, _room, ts in rows)
        self._set_meta(PRUNED_NEWEST_TS_KEY, str(max(newest, int(self.get_meta(PRUNED_NEWEST_TS_KEY) or 0))))

    @guarded("reading what was pruned")
    def pruned_span_before(self, room: str, seq: int) -> tuple[int, int, int] | None:
        """The newest span of ``room`` pruned below ``seq``: (since, through, count), or None."""
        row = self._db.execute(
            "SELECT since, through, count FROM pruned_spans WHERE room = ? AND through < ? ORDER BY through DESC LIMIT 1",
            (room, seq),
        ).fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    @guarded("reading what was pruned")
    def pruned_newest_ts(self) -> int | None:
        """Hub time (ms) of the newest message pruned from this cache (None: nothing was)."""
        value = self.get_meta(PRUNED_NEWEST_TS_KEY)
        return int(value) if value else None

