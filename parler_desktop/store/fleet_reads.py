"""What the Agents view reads of a hub's cache: every stored task part, every stored roster and
the room kinds (once, when the view first needs them), and one agent's newest messages (its card).

Task parts are found by SQLite in the stored wire (``json_each`` over the parts of the messages
that name the kind), so the window parses a receipt's few fields, not its whole message.
"""

from __future__ import annotations

from parler_desktop.protocol.values import RosterEntry, StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.database import guarded
from parler_desktop.store.signatures import MESSAGE_COLUMNS, SignatureChecks

TASK_KIND = "com.parler.task"
_TASK_PARTS = (
    "SELECT m.seq, m.room, m.ts, json_extract(m.wire, '$.from.id'), p.key, p.value "
    "FROM messages m, json_each(m.wire, '$.parts') p "
    "WHERE m.wire LIKE '%' || :kind || '%' AND json_extract(p.value, '$.kind') = :kind ORDER BY m.seq, p.key"
)

_SENDERS = (
    "SELECT room, json_extract(wire, '$.from.id') AS sender, json_extract(wire, '$.from.name'), "
    "json_extract(wire, '$.from.role'), max(ts) FROM messages GROUP BY room, sender"
)  # (SQLite takes the bare columns from the row holding the max)

SenderRow = tuple[str, str, str | None, str | None, int]  # (room, sender id, name, role, newest ts)
TaskPartRow = tuple[int, str, int, str, int, str]  # (seq, room, ts, sender id, the part's index, its JSON)


class FleetReads(SignatureChecks):
    """The Agents view's reads of ``LocalStore``; see the module docstring."""

    @guarded("reading task receipts")
    def task_parts(self) -> list[TaskPartRow]:
        """Every stored ``com.parler.task`` part, oldest message first."""
        return self._db.execute(_TASK_PARTS, {"kind": TASK_KIND}).fetchall()

    @guarded("reading the rosters")
    def all_rosters(self) -> dict[str, list[RosterEntry]]:
        """Each room's stored roster (the last one the hub gave)."""
        rosters: dict[str, list[RosterEntry]] = {}
        for room, wire in self._db.execute("SELECT room, wire FROM roster ORDER BY room, position"):
            rosters.setdefault(room, []).append(codec.roster_entry_from_wire_text(wire))
        return rosters

    @guarded("reading who spoke where")
    def senders(self) -> list[SenderRow]:
        """Each sender of each room with its newest name and role and when it last spoke there."""
        return self._db.execute(_SENDERS).fetchall()

    @guarded("reading the room kinds")
    def room_kinds(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT name, kind FROM rooms"))

    @guarded("reading an agent's messages")
    def messages_from(self, agent: str, limit: int) -> list[StoredMessage]:
        """``agent``'s newest ``limit`` stored messages in any room, oldest first."""
        rows = self._db.execute(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE json_extract(wire, '$.from.id') = ? ORDER BY seq DESC LIMIT ?",
            (agent, limit),
        ).fetchall()
        rows.reverse()
        return self.messages_from_rows(rows)
