"""FleetModel: one row per agent of every hub the window holds, for the Agents view; and the cost
totals of their task receipts (``CostTotals``), which the room header shows too.

Where it comes from, with no polling of its own beyond the hub's budgets (design.md §3):
- once, when first needed (``load``), each hub's cache: its stored rosters, who spoke last where,
  every stored task part (taken in a batch per loop turn, so the window never stalls) and the
  human's newest messages; then the hub's directory (one ``discover``);
- then what each hub's bridge reports: every stored message (task statuses, receipts, who spoke)
  and every roster fetched (the members panel's);
- while the view is open (``set_watching``), the directory again every ``refresh_ms`` (two
  requests a minute per hub of the 600 the hub allows).
Rows are rebuilt at most every ``REBUILD_MS`` after a change; the same rows in the same order only
repaint (the selection stays).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont

from parler_desktop.app.agents.cost_totals import CostTotals, receipts_in
from parler_desktop.app.agents.fleet_state import AgentRecord, FleetState, task_parts, waits_on_human
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.protocol.readable import readable
from parler_desktop.store import LocalStore, StoreError

COLUMNS = ("Agent", "Role", "Hub", "Presence", "On", "Last seen", "Rooms", "Flags", "Today")
FILTERS = ("All", "Working", "Waiting on me", "Stuck", "Offline")
GROUPS = ("None", "Hub", "Room", "Role")
AGENT_KEY = Qt.ItemDataRole.UserRole + 1  # (hub, id) of an agent row; None on a group heading
REBUILD_MS = 150
MAX_NAMES_KEPT = 10_000  # names made readable kept (a hostile hub renaming agents cannot grow it past)
REFRESH_MS = 30_000
TASK_BATCH = 100  # task parts taken in per loop turn while loading
TASK_SCAN = 20_000  # stored messages searched for task parts per store call
SENDER_SCAN = 200  # each room's newest messages read for who spoke there
ASKED_SCAN = 500  # the human's newest messages read for whom they addressed
DIRECTORY_FAILURES = (BadReply, ConnectionLost, HubRefused, SessionClosed, TimeoutError)
MARKERS = TaskStatus.MARKERS

ANSWERED = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole, AGENT_KEY})
HEADING_FLAGS = Qt.ItemFlag.ItemIsEnabled
AGENT_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

Index = QModelIndex | QPersistentModelIndex
Row = str | tuple[str, str]  # a group's heading, or an agent's (hub, id)
Group = tuple[str, str, str]  # ("hub", hub, "") or ("room", hub, room) (the scopes of the costs), or ("", "", heading)


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
    loaded = Signal()  # every hub's cache and directory were read once
    costsChanged = Signal()

    def __init__(self, hubs: HubList, watches: HubAgentWatches, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.hubs = hubs
        self.watches = watches
        self.clock: Callable[[], float] = time.time
        self.state = FleetState()
        self.costs = CostTotals()
        self.filter = FILTERS[0]
        self.group = GROUPS[0]
        self.search = ""
        self.refresh_ms = REFRESH_MS
        self._rows: list[Row] = []
        self.heading_rows: list[int] = []  # the rows that are a group's heading (the view spans them)
        self._names: dict[str, str] = {}  # a name as sent -> as shown
        self._bold = QFont()
        self._bold.setBold(True)
        self._hub_labels: dict[str, str] = {}
        self._room_labels: dict[tuple[str, str], str] = {}
        self._looping: set[tuple[str, str]] = set()  # (hub, name) named in a loop warning
        self._loading: set[HubEntry] = set()
        self._sessions: dict[HubEntry, object] = {}  # the session each hub's state was loaded from
        self._rebuild = QTimer(self, singleShot=True, interval=REBUILD_MS)
        self._rebuild.timeout.connect(self.rebuild)
        self._refresh = QTimer(self, interval=self.refresh_ms)
        self._refresh.timeout.connect(self.refresh_directories)
        watches.changed.connect(self._changed)
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(self._removed)

    # -- Qt model -------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return HEADING_FLAGS if isinstance(self._rows[index.row()], str) else AGENT_FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in ANSWERED or not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None  # (Qt asks ~7 roles a cell as it paints: the others cost nothing more)
        value = self._rows[index.row()]
        if isinstance(value, str):
            if role == Qt.ItemDataRole.DisplayRole and index.column() == 0:
                return value
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
            label = self._room_labels[(hub, room)] = readable(entry.rooms.label(room) if entry is not None else room)
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
            shown = self._names[agent.name] = " ".join(readable(agent.name).split())
        return shown or agent.id[:8]

    def on_text(self, agent: AgentRecord) -> str:
        """What it is on: its newest task status, the note, and the room."""
        task = agent.task
        if task is None:
            return ""
        note = f" — {' '.join(readable(task.note).split())}" if task.note else ""
        return f"{MARKERS.get(task.status, '')} {task.status}{note} · in {self.room_label(agent.hub, task.room)}"

    def flag_names(self, agent: AgentRecord) -> list[str]:
        now_ms = int(self.clock() * 1000)
        watch = self.watches.watch(agent.hub)
        after_ms = int((watch.activity.stuck_after if watch is not None else 600) * 1000)
        found = []
        if waits_on_human(agent):
            found.append("waiting on you")
        if agent.is_stuck(now_ms, after_ms):
            found.append("stuck")
        if agent.is_silent(now_ms, after_ms):
            found.append("silent on your work")
        if (agent.hub, agent.name) in self._looping:
            found.append("looping")
        return found

    def _cell(self, agent: AgentRecord, column: int) -> str:
        if column == 0:
            return self.name_of(agent) + (" ✓" if agent.verified else "")
        if column == 1:
            return readable(agent.role)
        if column == 2:
            return self.hub_label(agent.hub)
        if column == 3:
            activity = " ".join(readable(agent.activity).split())
            return f"{readable(agent.presence)} — {activity}" if activity else readable(agent.presence)
        if column == 4:
            return self.on_text(agent)
        if column == 5:
            return ago(agent.last_seen_ms, self.clock())
        if column == 6:
            return str(len(agent.rooms))
        if column == 7:
            return ", ".join(self.flag_names(agent))
        if column == 8:
            today = self.costs.totals("agent", agent.hub, agent.id, "today")
            return f"{today.tasks} · {today.tokens:,} tok" + ("+?" if today.tokens_unknown else "") if today.tasks else ""
        return ""

    def describe(self, agent: AgentRecord) -> str:
        """The row in full, for its tooltip."""
        rooms = ", ".join(sorted(self.room_label(agent.hub, room) for room in agent.rooms)) or "none"
        lines = [
            f"{self.name_of(agent)} ({readable(agent.role) or 'no role'}) on {self.hub_label(agent.hub)}",
            f"{readable(agent.presence)}{' — ' + readable(agent.activity) if agent.activity else ''}",
            f"On: {self.on_text(agent) or 'nothing reported'}",
            f"Rooms shared with you: {rooms}",
            f"Today: {self.costs.totals('agent', agent.hub, agent.id, 'today').summary()}",
            f"Last 7 days: {self.costs.totals('agent', agent.hub, agent.id, '7 days').summary()}",
        ]
        return "\n".join(lines)

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
            return "stuck" in flags or "looping" in flags
        if wanted == "Offline":
            return agent.presence == "offline"
        return True

    def _groups_of(self, agent: AgentRecord) -> list[Group]:
        if self.group == "Hub":
            return [("hub", agent.hub, "")]
        if self.group == "Room":
            return [("room", agent.hub, room) for room in agent.rooms] or [("", "", "No shared room")]
        if self.group == "Role":
            return [("", "", readable(agent.role) or "No role")]
        return [("", "", "")]

    def _heading(self, group: Group, count: int) -> str:
        """A group's heading: what it is, how many agents, and for a hub or room what today's
        finished tasks cost there."""
        scope, hub, name = group
        if scope == "hub":
            title = self.hub_label(hub)
        elif scope == "room":
            title = f"{self.room_label(hub, name)} · {self.hub_label(hub)}"
        else:
            title = name
        heading = f"{title} — {count} agent{'s' if count != 1 else ''}"
        today = self.costs.totals(scope, hub, name, "today") if scope else None
        return f"{heading} · today: {today.summary()}" if today is not None and today.tasks else heading

    def rebuild(self) -> None:
        """Rows for the filter and grouping; the same rows only repaint."""
        self._rebuild.stop()
        self._looping = {
            (entry.url, name)
            for entry in self.hubs.entries
            for room in entry.rooms.room_names()
            for hint in self.watches.hints(entry.url, room)
            if hint.kind == "loop"
            for name in hint.agents
        }
        shown = sorted((self.name_of(agent).lower(), agent.key, agent) for agent in self.state.agents.values() if self._shown(agent))
        grouped: dict[Group, list[tuple[str, str]]] = {}
        for _name, key, agent in shown:  # in name order: so is every group
            for group in self._groups_of(agent):
                members = grouped.get(group)
                if members is None:
                    members = grouped[group] = []
                members.append(key)
        headings = {group: self._heading(group, len(members)) if group[0] or group[2] else "" for group, members in grouped.items()}
        rows: list[Row] = []
        self.heading_rows = []
        for group in sorted(grouped, key=lambda group: headings[group].lower()):
            if headings[group]:
                self.heading_rows.append(len(rows))
                rows.append(headings[group])
            rows.extend(grouped[group])
        if rows == self._rows:
            if rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(rows) - 1, len(COLUMNS) - 1))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def _changed(self, *_args: object) -> None:
        if not self._rebuild.isActive():
            self._rebuild.start()

    # -- feeding --------------------------------------------------------------------------
    def _added(self, entry: HubEntry) -> None:
        bridge = entry.bridge
        bridge.messagesStored.connect(lambda room, messages, _live: self._stored(entry, messages))
        bridge.rosterChanged.connect(lambda room, entries: self._roster(entry, room, entries))
        bridge.sessionChanged.connect(lambda: self._session_changed(entry))
        bridge.roomsChanged.connect(lambda rooms: self._rooms_changed(entry, rooms))
        entry.rooms.reloaded.connect(lambda: self._rooms_reloaded(entry))
        entry.changed.connect(lambda: self._hub_changed(entry))

    def _removed(self, entry: HubEntry) -> None:
        self._sessions.pop(entry, None)
        self.state.forget_hub(entry.url)
        self._changed()

    def _session_changed(self, entry: HubEntry) -> None:
        """Another identity or hub: what was known of the old session goes, and the new one's
        cache is read (if the view was ever used; the totals keep what they counted, each
        receipt once by its hub and seq)."""
        if entry not in self._sessions or self._sessions[entry] is entry.bridge.session:
            return
        del self._sessions[entry]
        self.state.forget_hub(entry.url)
        self._changed()
        if entry.bridge.store is not None:
            self.load()

    def _rooms_changed(self, entry: HubEntry, rooms: Sequence[Any]) -> None:
        """The hub's room list: which rooms are DMs (a DM an agent opened with the human)."""
        if entry in self._sessions:
            self.state.dm_rooms[entry.url] = {room.name for room in rooms if room.kind == "dm"}

    def _stored(self, entry: HubEntry, messages: Sequence[Any]) -> None:
        if entry not in self._sessions:
            return  # not loaded: its cache is read when it is
        receipts_added = False
        for message in messages:  # (a task part the cache's read took in is taken in once)
            self.state.observe_message(entry.url, message)
            tasks = task_parts(message)
            for receipt in receipts_in(entry.url, message.seq, message.room, message.sender.id, message.ts, tasks):
                receipts_added |= self.costs.add(receipt)
        if receipts_added:
            self.costsChanged.emit()
        self._changed()

    def _roster(self, entry: HubEntry, room: str, entries: Sequence[Any]) -> None:
        if entry in self._sessions and self.state.observe_roster(entry.url, room, entries):
            self._changed()

    @property
    def started(self) -> bool:
        """Some hub's cache is read or being read."""
        return bool(self._sessions or self._loading)

    def load(self) -> None:
        """Read every hub's cache and directory once (again after a hub's session changed), a hub
        after another: each cache is read on its store's thread, and five at once took the
        interpreter from the window's thread for longer than one does."""
        due = [e for e in self.hubs.entries if e not in self._sessions and e not in self._loading and e.bridge.store is not None]
        if due:
            self._loading.update(due)
            due[0].bridge.tasks.spawn("agents", self._load_each(due))

    async def _load_each(self, entries: list[HubEntry]) -> None:
        for entry in entries:
            if entry in self.hubs.entries and entry.bridge.store is not None:
                await self._load(entry)
            else:
                self._loading.discard(entry)

    async def _load(self, entry: HubEntry) -> None:
        bridge, hub = entry.bridge, entry.url
        session, store = bridge.session, bridge.store
        try:
            self.state.set_me(hub, bridge.agent_id, bridge.name)
            kinds = await store.call(LocalStore.room_kinds)
            self.state.dm_rooms[hub] = {room for room, kind in kinds.items() if kind == "dm"}
            self._sessions[entry] = session  # from here on, what is stored is taken in as it comes
            for room, roster in (await store.call(LocalStore.all_rosters)).items():
                self.state.observe_roster(hub, room, roster)
            for room in kinds:
                for sender in await store.call(LocalStore.senders, room, SENDER_SCAN):
                    self.state.observe_sender(hub, room, *sender)
            after: int | None = 0
            while after is not None:
                rows, after = await store.call(LocalStore.task_parts, after, TASK_SCAN)
                for number, row in enumerate(rows, 1):
                    self._take_task_part(hub, *row)
                    if number % TASK_BATCH == 0:
                        await asyncio.sleep(0)  # a batch per loop turn
            for message in await store.call(LocalStore.messages_from, bridge.agent_id, list(kinds), ASKED_SCAN):
                self.state.observe_message(hub, message)
            self.costsChanged.emit()
            self._changed()
            await self.refresh_directory(entry)
        except StoreError:
            pass  # a damaged cache (the session says so): what arrives from now on still counts
        finally:
            self._loading.discard(entry)
            if not self._loading and shiboken6.isValid(self):
                self.loaded.emit()

    def _take_task_part(self, hub: str, seq: int, room: str, ts: int, sender: str | None, position: int, part_json: str) -> None:
        if not sender or sender == self.state.me.get(hub, ("",))[0]:
            return
        try:
            task = TaskStatus.from_part(json.loads(part_json))
        except ValueError:
            return
        if task is None:
            return
        record = self.state.agent(hub, sender)
        record.rooms.add(room)
        record.spoke_ms[room] = max(record.spoke_ms.get(room, 0), ts)
        self.state.observe_task(record, room, ts, task, seq, position)
        for receipt in receipts_in(hub, seq, room, sender, ts, [(position, task)]):
            self.costs.add(receipt)

    # -- the directory --------------------------------------------------------------------
    def set_watching(self, watching: bool) -> None:
        """The view is open: ask the directories now and every ``refresh_ms``; closed: stop."""
        if watching:
            self._refresh.start(self.refresh_ms)
            self.load()
            self.refresh_directories()
        else:
            self._refresh.stop()

    def refresh_directories(self) -> None:
        for entry in self.hubs.entries:
            if entry in self._sessions and entry not in self._loading:
                entry.bridge.tasks.spawn("agents' directory", self.refresh_directory(entry))

    async def refresh_directory(self, entry: HubEntry) -> None:
        session = entry.bridge.session
        if session is None or not entry.bridge.is_live:
            return
        try:
            listed = await session.discover("hub", limit=1000)
        except DIRECTORY_FAILURES:
            return  # a hub without a directory: the rosters still serve
        if shiboken6.isValid(self) and session is entry.bridge.session and self.state.observe_directory(entry.url, listed):
            self._changed()
