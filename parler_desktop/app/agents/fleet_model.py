"""FleetModel: one row per agent of every hub the window holds, for the Agents view, filtered and
grouped, over what ``FleetFeed`` keeps (the agents and the cost of their work).

What changes is taken in at most every ``UPDATE_MS``, in one pass: an agent that changed live (its
presence, a message, a receipt: ``FleetState.touched``) repaints its own rows and its groups'
headings, and only when it moved (it came or went, was renamed, or left or joined a filter or a
group) are the rows rebuilt, as they are when anything may have changed (a hub read or forgotten,
the view switched), a slice of agents a turn of the loop (``RowsPass``); a Needs you item, a loop
warning or a minute on repaints the Flags and Last seen columns (rebuilding under a filter by the
flags). A rebuild of the same rows in the same
order only repaints (the selection stays), and, while an agent holds a lease on dispatched work,
its "On" cell counts down to the lease's end every ``COUNTDOWN_MS``. A row is a group's heading or
an agent's key: the table draws a cell at a time, asking for what it shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont

from parler_desktop.app.agents.fleet_feed import FleetFeed
from parler_desktop.app.agents.fleet_rows import NO_GROUP, FleetRows, Group, Placement
from parler_desktop.app.agents.fleet_state import AgentRecord
from parler_desktop.app.agents.rows_pass import RowsPass
from parler_desktop.app.dispatch.lease import RAN_OUT, at_expiry, lease_words
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.app.display_text import one_line

COLUMNS = ("Agent", "Role", "Hub", "Presence", "On", "Last seen", "Rooms", "Flags", "Today")
FILTERS = ("All", "Working", "Waiting on me", "Stuck", "Offline")
GROUPS = ("None", "Hub", "Room", "Role")
AGENT_KEY = Qt.ItemDataRole.UserRole + 1  # (hub, id) of an agent row; None on a group heading
UPDATE_MS = 100
MANY_TOUCHED = 100  # agents changed in a pass past which (and past a quarter of them) it lays every row out
COUNTDOWN_MS = 1000
NOTE_CHARS = 400  # of a task's note
MAX_NAMES_KEPT = 10_000  # names made readable kept (a hostile hub renaming agents cannot grow it past)
MARKERS = TaskStatus.MARKERS

ANSWERED = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole, AGENT_KEY})
HEADING_FLAGS = Qt.ItemFlag.ItemIsEnabled
AGENT_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

Index = QModelIndex | QPersistentModelIndex
FLAG_FILTERS = frozenset({"Waiting on me", "Stuck"})  # the filters that go by the flags



def ago(ms: int, now: float) -> str:
    if not ms:
        return "never"
    seconds = max(0, now - ms / 1000)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 86400:
        return f"{seconds // 3600:.0f} h ago"
    return time.strftime("%d %b", time.localtime(ms / 1000))


class FleetModel(QAbstractTableModel):
    updated = Signal()  # a pass repainted (or reset) what changed

    def __init__(self, hubs: HubList, watches: HubAgentWatches, needs: HubNeeds, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.hubs = hubs
        self.watches = watches
        self.needs = needs  # the flags but "looping" are the Needs you queue's word
        self.clock: Callable[[], float] = time.time
        self.feed = FleetFeed(hubs, self)
        self.state, self.costs = self.feed.state, self.feed.costs
        self.filter = FILTERS[0]
        self.group = GROUPS[0]
        self.search = ""
        self.layout = FleetRows()
        self._full = True  # the next pass rebuilds the rows
        self._flags_due = False  # the next pass repaints the Flags column (and Last seen)
        self._minute = 0  # the clock's minute as last ticked
        self._names: dict[str, str] = {}  # a name as sent -> as shown
        self._bold = QFont()
        self._bold.setBold(True)
        self._hub_labels: dict[str, str] = {}
        self._room_labels: dict[tuple[str, str], str] = {}
        self._looping: set[tuple[str, str]] = set()  # (hub, name) named in a loop warning
        self._pass = RowsPass(self._placement, self._title, self._show, self)
        self._update = QTimer(self, singleShot=True, interval=UPDATE_MS)
        self._update.timeout.connect(self.update_rows)
        self._countdown = QTimer(self, interval=COUNTDOWN_MS, timeout=self._tick)
        self.feed.changed.connect(self._changed)
        self.feed.agentsChanged.connect(self._due)
        watches.changed.connect(self._flags_changed)
        needs.changed.connect(self._flags_changed)
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)

    # -- Qt model -------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.layout.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return HEADING_FLAGS if len(self.layout.rows[index.row()]) == 3 else AGENT_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()  # (-1 for an invalid index)
        rows = self.layout.rows
        if role not in ANSWERED or not 0 <= row < len(rows):
            return None  # (Qt asks ~7 roles a cell as it paints: the others cost nothing more)
        value = rows[row]
        if len(value) == 3:  # a group's heading, written as it is drawn
            if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
                return self._heading(value)  # type: ignore[arg-type]
            return self._bold if role == Qt.ItemDataRole.FontRole else None
        agent = self.state.agents.get(value)
        if agent is None:
            return None
        if role == AGENT_KEY:
            return value
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(agent, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(self.describe(agent), wrap=True)
        return None

    # -- what a row says ------------------------------------------------------------------
    def hub_label(self, hub: str) -> str:
        label = self._hub_labels.get(hub)
        if label is None:
            entry = self.hubs.entry(hub)
            label = self._hub_labels[hub] = entry.label if entry is not None else hub
        return label

    def room_label(self, hub: str, room: str) -> str:
        """The room as the sidebar names it (kept until the hub's room list reloads: asked per
        row and room, the list's lookup is a walk of its rooms)."""
        label = self._room_labels.get((hub, room))
        if label is None:
            entry = self.hubs.entry(hub)
            label = self._room_labels[(hub, room)] = one_line(entry.rooms.label(room) if entry is not None else room)
        return label

    def _hub_changed(self, entry: HubEntry) -> None:
        """A hub renamed (or its state or unread count changed: then the label stays)."""
        if self._hub_labels.get(entry.url, entry.label) != entry.label:
            self._hub_labels.clear()
            self._changed()

    def _rooms_reloaded(self, entry: HubEntry) -> None:
        """The hub's room list reloaded: a DM may have learned its member's name, a service room
        its kind (other rooms are called by their names, which never change)."""
        dms = self.state.dm_rooms.get(entry.url, set())
        renamed = [key for key in self._room_labels if key[0] == entry.url and (key[1] in dms or key[1].startswith("svc."))]
        for key in renamed:
            del self._room_labels[key]

    def name_of(self, agent: AgentRecord) -> str:
        """The agent's name on one line (each name made readable once: rows are sorted by it)."""
        shown = self._names.get(agent.name)
        if shown is None:
            if len(self._names) >= MAX_NAMES_KEPT:
                self._names.clear()
            shown = self._names[agent.name] = one_line(agent.name)
        return shown or agent.id[:8]

    def on_text(self, agent: AgentRecord) -> str:
        """What it is on: its newest task status, the note, and the room."""
        task = agent.task
        if task is None:
            return ""
        note = f" — {one_line(task.note, NOTE_CHARS)}" if task.note else ""
        lease = self.lease_text(agent, at=False)
        return f"{MARKERS.get(task.status, '')} {task.status}{note} · in {self.room_label(agent.hub, task.room)}" + (
            f" · {lease}" if lease else ""
        )

    def lease_text(self, agent: AgentRecord, at: bool = True) -> str:
        """Its lease on dispatched work: ``lease ends in 4:32`` (``at``: with the time), or ""."""
        end = agent.lease_end_ms
        return "" if end is None else lease_words(end, int(self.clock() * 1000), agent.presence == "working", at=at)

    def lease_line(self, agent: AgentRecord) -> str:
        """The card's line on its lease: when it ends and what happens then, or ""."""
        lease = self.lease_text(agent)
        if not lease:
            return ""
        if lease == RAN_OUT:
            return "Lease: ran out: the work is back in the queue for the next worker of its role."
        return f"Lease: {lease.removeprefix('lease ')}. When it runs out, {at_expiry('')}"

    def flag_names(self, agent: AgentRecord) -> list[str]:
        """What the Needs you queue holds of the agent (``HubNeeds``, design.md §4b): a silence on
        the human's work (the queue's "may be stuck"), or anything else, which waits on the human;
        and a loop warning naming it."""
        kinds = {item.kind for item in self.needs.of_agent(agent.hub, agent.id)}
        found = []
        if kinds - {NeedKind.SILENT}:
            found.append("waiting on you")
        if NeedKind.SILENT in kinds:
            found.append("silent on your work")
        if (agent.hub, agent.name) in self._looping:
            found.append("looping")
        return found

    def _cell(self, agent: AgentRecord, column: int) -> str:
        if column == 0:
            return self.name_of(agent) + (" ✓" if agent.verified else "")
        if column == 1:
            return one_line(agent.role)
        if column == 2:
            return self.hub_label(agent.hub)
        if column == 3:
            activity, presence = one_line(agent.activity), one_line(agent.presence)
            return f"{presence} — {activity}" if activity else presence
        if column == 4:
            return self.on_text(agent)
        if column == 5:
            return ago(agent.last_seen_ms, self.clock())
        if column == 6:
            return str(len(agent.rooms))
        if column == 7:
            return ", ".join(self.flag_names(agent))
        if column == 8:
            return self.costs.totals("agent", agent.hub, agent.id, "today").short()
        return ""

    def describe(self, agent: AgentRecord) -> str:
        """The row in full, for its tooltip."""
        rooms = ", ".join(sorted(self.room_label(agent.hub, room) for room in agent.rooms)) or "none"
        lines = [
            f"{self.name_of(agent)} ({one_line(agent.role) or 'no role'}) on {self.hub_label(agent.hub)}",
            f"{one_line(agent.presence)}{' — ' + one_line(agent.activity, NOTE_CHARS) if agent.activity else ''}",
            f"On: {self.on_text(agent) or 'nothing reported'}",
            *filter(None, [self.lease_line(agent)]),
            f"Rooms shared with you: {rooms}",
            "Directory card: " + ("none" if agent.card is None else "verified" if agent.verified else "not verified"),
            f"Today: {self.costs.totals('agent', agent.hub, agent.id, 'today').summary()}",
            f"Last 7 days: {self.costs.totals('agent', agent.hub, agent.id, '7 days').summary()}",
        ]
        return "\n".join(lines)

    def row_of(self, key: tuple[str, str] | None) -> int | None:
        """The agent's first row (``None``: the first agent row), if it is shown."""
        rows = self.layout.rows_of(key)
        return rows[0] if rows else None

    @property
    def heading_rows(self) -> list[int]:
        """The rows that are a group's heading (the view spans them)."""
        return self.layout.heading_rows

    def record(self, key: tuple[str, str]) -> AgentRecord | None:
        return self.state.agents.get(key)

    # -- filter and group -----------------------------------------------------------------
    def set_view(self, filter: str | None = None, group: str | None = None, search: str | None = None) -> None:
        self.filter = filter if filter is not None else self.filter
        self.group = group if group is not None else self.group
        self.search = search if search is not None else self.search
        self.rebuild()

    def _shown(self, agent: AgentRecord) -> bool:
        if self.search and self.search.lower() not in f"{agent.name} {agent.role} {agent.id}".lower():
            return False
        wanted = self.filter
        if wanted == "Working":
            return agent.presence == "working" or (agent.task is not None and agent.task.status in ("accepted", "working"))
        if wanted == "Waiting on me":
            return "waiting on you" in self.flag_names(agent)
        if wanted == "Stuck":
            flags = self.flag_names(agent)
            return "silent on your work" in flags or "looping" in flags
        if wanted == "Offline":
            return agent.presence == "offline"
        return True

    def _placement(self, agent: AgentRecord) -> Placement:
        """Where the agent's rows go under the view's filter and grouping (None: hidden)."""
        return (self.name_of(agent).lower(), tuple(self._groups_of(agent))) if self._shown(agent) else None

    def _groups_of(self, agent: AgentRecord) -> list[Group]:
        if self.group == "Hub":
            return [("hub", agent.hub, "")]
        if self.group == "Room":
            return [("room", agent.hub, room) for room in agent.rooms] or [("", "", "No shared room")]
        if self.group == "Role":
            return [("", "", one_line(agent.role) or "No role")]
        return [NO_GROUP]

    def _title(self, group: Group) -> str:
        scope, hub, name = group
        if scope == "hub":
            return self.hub_label(hub)
        if scope == "room":
            return f"{self.room_label(hub, name)} · {self.hub_label(hub)}"
        return name

    def _heading(self, group: Group) -> str:
        """A group's heading: what it is, how many agents, and for a hub or room what today's
        finished tasks cost there."""
        scope, hub, name = group
        count = self.layout.sizes.get(group, 0)
        heading = f"{self._title(group)} — {count} agent{'s' if count != 1 else ''}"
        today = self.costs.totals(scope, hub, name, "today") if scope else None
        return f"{heading} · today: {today.summary()}" if today is not None and today.tasks else heading

    def _read_flags(self) -> None:
        """What the flags go by besides Needs you: the loop warnings."""
        self._flags_due = False
        self._looping = set()
        for entry in self.hubs.entries:
            watch = self.watches.watch(entry.url)  # (once a hub: asked a room at a time, a walk of the hubs each)
            if watch is not None:
                self._looping.update(
                    (entry.url, name) for room in entry.rooms.room_names() for hint in watch.hints(room) if hint.kind == "loop" for name in hint.agents
                )

    @property
    def update_due(self) -> bool:
        """A pass over what changed is due (within ``UPDATE_MS``), or the rows are being worked out."""
        return self._update.isActive() or self._pass.running

    def update_rows(self) -> None:
        """Repaint the rows of the agents that changed since the last pass, and their groups'
        headings; rebuild the rows when one of them moved, or when anything may have changed."""
        self._update.stop()
        if self._pass.running:
            return  # (it takes in what changed meanwhile as it ends)
        if self._full:
            self.rebuild()
            return
        flags = self._flags_due
        if flags:
            self._read_flags()
        touched, self.state.touched = self.state.touched, set()
        if len(touched) > max(MANY_TOUCHED, len(self.state.agents) // 4):
            self.rebuild()  # (checking each costs what laying them all out does: no reset if none moved)
            return
        for key in touched:
            agent = self.state.agents.get(key)
            if self.layout.moved(key, self._placement(agent) if agent is not None else None):
                self.rebuild()
                return
        for top, bottom in self.layout.repainted(touched):
            self.dataChanged.emit(self.index(top, 0), self.index(bottom, len(COLUMNS) - 1))
        count = len(self.layout.rows)
        if flags and count:
            self.dataChanged.emit(self.index(0, COLUMNS.index("Last seen")), self.index(count - 1, COLUMNS.index("Flags")))
        self.updated.emit()

    def rebuild(self) -> None:
        """Work out the rows for the filter and grouping again (over a few turns of the loop when
        they are many: ``RowsPass``); the same rows only repaint."""
        self._update.stop()
        self._full = False
        self.state.touched.clear()
        self._read_flags()
        self._pass.start(self.state.agents)

    def _show(self, layout: FleetRows) -> None:
        """The rows a pass laid out: swapped in (a reset, unless they are the rows shown); what
        changed while the pass ran is taken in next."""
        if self.feed.watching and not self._countdown.isActive():
            self._countdown.start()
        rows = layout.rows
        if rows == self.layout.rows:
            self.layout = layout
            if rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(COLUMNS) - 1))
        else:
            self.beginResetModel()
            self.layout = layout
            self.endResetModel()
        self.updated.emit()
        if self._full or self._flags_due or self.state.touched:
            self._due()

    def _tick(self) -> None:
        """A second on: the countdowns of the leases shown (and the cards showing them); a minute
        on, what the clock alone changes (Last seen) repaints with the flags."""
        minute = int(self.clock() // 60)
        if minute != self._minute:
            self._minute = minute
            self._flags_changed()
        if not self.feed.watching:
            self._countdown.stop()
        elif self.layout.rows and any(agent.lease_end_ms is not None for agent in self.state.agents.values()):
            on = COLUMNS.index("On")
            self.dataChanged.emit(self.index(0, on), self.index(len(self.layout.rows) - 1, on), [Qt.ItemDataRole.DisplayRole])
            self.updated.emit()

    def _due(self) -> None:
        """A pass soon while the view is open (it rebuilds as it opens)."""
        if self.feed.watching and not self._update.isActive():
            self._update.start()

    def _changed(self, *_args: object) -> None:
        """Anything may have changed: the next pass rebuilds."""
        self._full = True
        self._due()

    def _flags_changed(self) -> None:
        """A Needs you item or a room's warning came or went: the Flags column repaints (the rows
        rebuild under a filter that goes by the flags)."""
        self._full |= self.filter in FLAG_FILTERS
        self._flags_due = True
        self._due()

    def _added(self, entry: HubEntry) -> None:
        entry.rooms.reloaded.connect(lambda: self._rooms_reloaded(entry))
        entry.changed.connect(lambda: self._hub_changed(entry))
