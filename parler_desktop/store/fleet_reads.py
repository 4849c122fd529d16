"""What the Agents view reads of a hub's cache: every stored task part, every stored roster, the
room kinds and who spoke last in each room (once, when the view first needs them), and one agent's
newest messages (its card).

Task parts are found by SQLite in the stored wire (``json_each`` over the parts of the messages
that name the kind), so the window parses a receipt's few fields, not its whole message; a slice
of messages a call, as who spoke is read a room a call, so the store's other reads (a room
opened meanwhile) wait for one slice at most (100,000 messages: ~50 ms of task parts, ~3 ms a room).
"""

from __future__ import annotations

from collections.abc import Sequence

from parler_desktop.protocol.values import RosterEntry, StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.database import guarded
from parler_desktop.store.signatures import SignatureChecks

TASK_KIND = "com.parler.task"
_TASK_PARTS = (
    "SELECT m.seq, m.room, m.ts, json_extract(m.wire, '$.from.id'), p.key, p.value "
    "FROM (SELECT seq, room, ts, wire FROM messages WHERE seq > :after AND seq <= :upto) m, json_each(m.wire, '$.parts') p "
    "WHERE m.wire LIKE '%' || :kind || '%' AND json_extract(p.value, '$.kind') = :kind ORDER BY m.seq, p.key"
)
_SCAN_END = "SELECT max(seq) FROM (SELECT seq FROM messages WHERE seq > ? ORDER BY seq LIMIT ?)"

_SENDERS = (
    "SELECT json_extract(wire, '$.from.id') AS sender, json_extract(wire, '$.from.name'), "
    "json_extract(wire, '$.from.role'), max(ts) FROM (SELECT wire, ts FROM messages WHERE room = ? ORDER BY seq DESC LIMIT ?) "
    "GROUP BY sender"
)  # (SQLite takes the bare columns from the row holding the max)

SenderRow = tuple[str, str | None, str | None, int]  # (sender id, name, role, newest ts)
TaskPartRow = tuple[int, str, int, str, int, str]  # (seq, room, ts, sender id, the part's index, its JSON)


class FleetReads(SignatureChecks):
    """The Agents view's reads of ``LocalStore``; see the module docstring."""

    @guarded("reading task receipts")
    def task_parts(self, after: int, scan: int) -> tuple[list[TaskPartRow], int | None]:
        """The ``com.parler.task`` parts of the ``scan`` stored messages after seq ``after``, and
        the seq to go on after (None: none is left). A call a slice: other reads go between."""
        (upto,) = self._db.execute(_SCAN_END, (after, scan)).fetchone()
        if upto is None:
            return [], None
        return self._db.execute(_TASK_PARTS, {"kind": TASK_KIND, "after": after, "upto": upto}).fetchall(), upto

    @guarded("reading the rosters")
    def all_rosters(self) -> dict[str, list[RosterEntry]]:
        """Each room's stored roster (the last one the hub gave)."""
        rosters: dict[str, list[RosterEntry]] = {}
        for room, wire in self._db.execute("SELECT room, wire FROM roster ORDER BY room, position"):
            rosters.setdefault(room, []).append(codec.roster_entry_from_wire_text(wire))
        return rosters

    @guarded("reading who spoke where")
    def senders(self, room: str, scan: int) -> list[SenderRow]:
        """Who sent the room's newest ``scan`` messages, each with its newest name and role and
        when it last spoke there."""
        return self._db.execute(_SENDERS, (room, scan)).fetchall()

    @guarded("reading the room kinds")
    def room_kinds(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT name, kind FROM rooms"))

    @guarded("reading an agent's messages")
    def messages_from(self, agent: str, rooms: Sequence[str], limit: int) -> list[StoredMessage]:
        """``agent``'s newest ``limit`` stored messages in ``rooms``, oldest first (the rooms'
        index bounds the search to them)."""
        marks = ", ".join("?" * len(rooms))
        return self._messages_where(
            f"WHERE room IN ({marks}) AND json_extract(wire, '$.from.id') = ? ORDER BY seq DESC LIMIT ?", (*rooms, agent, limit)
        )
