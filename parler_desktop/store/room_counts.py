"""Each room's unread and mention counts, kept in its ``rooms`` row as messages and cursors move.

Why: the room list reads every room's counts after each stored page. Counting the rows above
every cursor each time cost ~18 ms per 100 rooms, and a wake after a night away (50,000 messages
over 500 rooms, bench/bench_hubs.py) spent most of its time so. Kept counts cost O(1) per stored
message and O(moved range) per cursor move.

What is counted: stored messages with seq above the room's cursor, not sent by the agent named in
meta ``unread_counted_for`` (the store's own identity: the human's own posts are never unread),
and of all those above the cursor, the ones flagged as mentioning the user. ``room_summaries(me)``
recounts every room once when ``me`` is not the agent counted for (the first call after the
migration, or a store read for another identity); a read-only store counts in the query instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.database import StoreDatabase, guarded

COUNTED_FOR_KEY = "unread_counted_for"
PREVIEWS_PER_QUERY = 500  # newest messages read per query for their previews (SQLite allows 32,766 parameters)
_OTHERS_ABOVE = (
    "SELECT count(*) FROM messages WHERE room = rooms.name AND seq > {low} AND seq <= {high} "
    "AND json_extract(wire, '$.from.id') IS NOT :me"
)
_MENTIONS_ABOVE = "SELECT count(*) FROM messages WHERE room = rooms.name AND seq > {low} AND seq <= {high} AND mentions_me = 1"
_ABOVE_CURSOR = {"low": "rooms.cursor", "high": "9223372036854775807"}
_SUMMARY = (  # (the columns of ``_SUMMARY_COLUMNS``)
    "SELECT rooms.name AS name, kind, members, hub_unread, cursor, coalesce(m.seq, 0) AS max_seq, "
    "coalesce(m.ts, 0) AS last_ts, {unread} AS unread_now, {mentions} AS mentions_now, "
    "coalesce(m.sender_name, '') AS sender FROM rooms "
    "LEFT JOIN messages m ON m.seq = (SELECT max(seq) FROM messages WHERE room = rooms.name)"
)
_SUMMARY_COLUMNS = "name, kind, members, hub_unread, cursor, max_seq, last_ts, unread_now, mentions_now, sender"


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
    unread: int  # stored messages from others with seq > cursor
    mentions_unread: int  # of those, the ones that mention the user
    last_preview: str  # one line of plain text of the newest stored message
    last_sender: str  # display name of its sender


class RoomCounts(StoreDatabase):
    """The kept counts of ``LocalStore``'s rooms; see the module docstring."""

    _previews: dict[int, str] = {}  # the last summaries' previews by seq (replaced, never mutated)

    @guarded("reading the room list")
    def room_summaries(self, me: str = "") -> list[RoomSummary]:
        """Every known room by name, with local unread/mention counts and the newest message.

        ``me`` (the identity's agent id) is never unread: the human's own posts are not counted,
        though the hub counts them until the cursor passes them."""
        if self._counted_for() != me:
            if self.read_only:
                unread, mentions = _OTHERS_ABOVE.format(**_ABOVE_CURSOR), _MENTIONS_ABOVE.format(**_ABOVE_CURSOR)
                return self._summaries(_SUMMARY.format(unread=f"({unread})", mentions=f"({mentions})"), me)
            self._recount(me)
        return self._summaries(_SUMMARY.format(unread="unread", mentions="mentions_unread"), me)

    def _summaries(self, sql: str, me: str) -> list[RoomSummary]:
        """The rooms by name, read in one step (``_rows_at_once``: 100 rows were 100 waits for
        the GIL under traffic); the newest messages' previews are read for those whose newest
        message changed since the last call."""
        found = sorted(self._rows_at_once(_SUMMARY_COLUMNS, sql, {"me": me}), key=lambda row: row[0])
        newest = [row[5] for row in found if row[5]]  # (max_seq; 0: no message stored)
        previews = {seq: self._previews[seq] for seq in newest if seq in self._previews}
        wanted = [seq for seq in newest if seq not in previews]
        for start in range(0, len(wanted), PREVIEWS_PER_QUERY):
            chunk = wanted[start:start + PREVIEWS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            for seq, wire in self._rows_at_once("seq, wire", f"SELECT seq, wire FROM messages WHERE seq IN ({marks})", chunk):
                previews[seq] = codec.preview_of_wire_text(wire)
        self._previews = previews  # each room's newest message's, by seq: parsed again only when it changes
        return [RoomSummary(*head, previews.get(head[5], ""), sender) for *head, sender in found]

    def _counted_for(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (COUNTED_FOR_KEY,)).fetchone()
        return row[0] if row else None

    def _recount(self, me: str) -> None:
        with self._write():
            self._db.execute(
                f"UPDATE rooms SET unread = ({_OTHERS_ABOVE.format(**_ABOVE_CURSOR)}), "
                f"mentions_unread = ({_MENTIONS_ABOVE.format(**_ABOVE_CURSOR)})",
                {"me": me},
            )
            self._set_meta(COUNTED_FOR_KEY, me)

    def _count_stored(self, stored: Sequence[tuple[StoredMessage, bool]]) -> None:
        """Add newly stored (message, mentions me) pairs to their rooms' counts (in the write
        that stores them); a room not known yet is created with cursor 0."""
        me = self._counted_for() or ""
        cursors: dict[str, int] = {}
        added: dict[str, list[int]] = {}  # room -> [messages, unread, mentions]
        for message, mentions_me in stored:
            if message.room not in cursors:
                cursors[message.room] = self._cursor_of(message.room)
                added[message.room] = [0, 0, 0]
            counts = added[message.room]
            counts[0] += 1
            if message.seq > cursors[message.room]:
                counts[1] += message.sender.id != me
                counts[2] += mentions_me
        for room, (messages, unread, mentions) in added.items():
            self._db.execute(
                "INSERT INTO rooms (name, message_count, unread, mentions_unread) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET message_count = message_count + excluded.message_count, "
                "unread = unread + excluded.unread, mentions_unread = mentions_unread + excluded.mentions_unread, "
                "settled_unread = NULL",
                (room, messages, unread, mentions),
            )

    def _uncount_read(self, room: str, old_cursor: int, new_cursor: int) -> None:
        """The cursor moved up from ``old_cursor``: what it passed is no longer unread."""
        if new_cursor <= old_cursor:
            return
        passed = {"low": ":old", "high": ":new"}
        self._db.execute(
            f"UPDATE rooms SET unread = unread - ({_OTHERS_ABOVE.format(**passed)}), "
            f"mentions_unread = mentions_unread - ({_MENTIONS_ABOVE.format(**passed)}) WHERE name = :room",
            {"room": room, "old": old_cursor, "new": new_cursor, "me": self._counted_for() or ""},
        )

    def _cursor_of(self, room: str) -> int:
        row = self._db.execute("SELECT cursor FROM rooms WHERE name = ?", (room,)).fetchone()
        return row[0] if row else 0
