"""Every hub's rooms in one list: a heading row per hub (its name, connection line and unread
total) followed by that hub's rooms, as each hub's ``RoomListModel`` has them.

The rows of each hub's model are passed through as they change (inserted, removed, changed),
so a hub's reload never resets the others or the selection. Headings are shown only while the
window holds more than one hub (one hub needs no grouping: the connection bar names it).
Each row's sort key (``sort_keys``, for the sidebar's proxy) is made again only after rows change,
before the change is passed on (``room_list_model.py`` says why).

``hold_order`` keeps the rooms where they are on screen while the human points at the list or
moves in it with the keyboard (a row that jumps to the top under the pointer takes the click
meant for another); rooms new meanwhile go at the end of their hub. Letting go sorts them again,
one hub a turn of the event loop: the sidebar's proxy places each row that changed while held
again, a few Python calls each, and five hubs' at once held the window 30-60 ms at each pointer
leaving the list under traffic (bench_hubs.py's switching). A hub's rows are ordered apart from
the others', so a hub sorted again beside hubs still held is in order; a hold that comes back
meanwhile keeps those still held where they are.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal

from parler_desktop.app import roles
from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.room_list.row_reading import heading_reading, with_agents

Index = QModelIndex | QPersistentModelIndex


class HubRoomsModel(QAbstractListModel):
    hiddenChanged = Signal(int)  # rooms the hubs list that their lists leave out (``busiest_rooms``)

    def __init__(self, hubs: HubList, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._hubs = hubs
        self.collapsed: set[str] = set()  # hub URLs whose rooms are folded away
        self.agents: HubAgentWatches | None = None  # each room's agents, read out with the room (set by the window)
        self._keys: list[tuple] | None = None  # each row's sort key (None: rows changed since)
        self._row_count: int | None = None  # (None: rows changed since)
        self._holding = False  # the pointer or the focus is on the list (``hold_order``)
        self._held: dict[HubEntry, dict[str, int]] = {}  # hubs whose rooms keep their places: room -> its place
        self._held_keys: dict[HubEntry, dict[str, tuple]] = {}  # and room -> its sort key when held
        self._made_keys: dict[HubEntry, tuple[list, int, list, dict | None]] = {}  # (its model's keys, its order, its sidebar keys, the held places)
        self._letting_go = QTimer(self, singleShot=True, interval=0)  # the next held hub sorted again, a turn later
        self._letting_go.timeout.connect(self._let_go_of_one)
        for entry in hubs.entries:
            self._follow(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(self._removed)

    # -- where each hub's rows are ----------------------------------------------------------
    def _offset(self, entry: HubEntry) -> int:
        """The row of ``entry``'s heading (its rooms follow it)."""
        offset = 0
        for other in self._hubs.entries:
            if other is entry:
                return offset
            offset += 1 + other.rooms.rowCount()
        raise KeyError(entry.url)

    def _locate(self, row: int) -> tuple[HubEntry, int] | None:
        """The hub of ``row`` and the room's row in its model (-1 for the heading)."""
        for entry in self._hubs.entries:
            size = 1 + entry.rooms.rowCount()
            if row < size:
                return entry, row - 1
            row -= size
        return None

    def row_place(self, row: int) -> tuple[str | None, bool]:
        """(the hub of ``row``, whether the row is its heading) without an index: the sidebar's
        proxy asks for each row it filters."""
        where = self._locate(row)
        return (None, False) if where is None else (where[0].url, where[1] < 0)

    def heading_index(self, url: str) -> QModelIndex:
        entry = self._hubs.entry(url)
        return self.index(self._offset(entry)) if entry is not None else QModelIndex()

    def room_indexes(self, url: str) -> list[QModelIndex]:
        """The rows of the hub ``url``'s rooms (below its heading)."""
        entry = self._hubs.entry(url)
        if entry is None:
            return []
        heading = self._offset(entry)
        return [self.index(heading + 1 + row) for row in range(entry.rooms.rowCount())]

    # -- Qt model ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        """Kept until rows change: Qt asks for it for every index made, and the sidebar's proxy
        makes one for each row it sorts or filters (summing the hubs' counts each time was
        a fifth of showing a hub's pulled rooms, bench_hubs.py's wake)."""
        if parent.isValid():
            return 0
        if self._row_count is None:
            self._row_count = sum(1 + entry.rooms.rowCount() for entry in self._hubs.entries)
        return self._row_count

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        where = self._locate(index.row()) if index.isValid() else None
        if where is None:
            return None
        entry, room_row = where
        if role == roles.HUB_URL:
            return entry.url
        if role == roles.HUB_ORDER:
            return self._hubs.index(entry)
        if role == roles.HUB_HEADER:
            return room_row < 0
        if room_row >= 0 and role == Qt.ItemDataRole.AccessibleTextRole and self.agents is not None:
            room = entry.rooms.row_data(room_row, roles.ROOM_NAME)
            return with_agents(entry.rooms.row_data(room_row, role), self.agents.state(entry.url, room))
        if room_row >= 0 and role == roles.ROOM_ROW:
            row = entry.rooms.row_data(room_row, role)
            return None if row is None else row._replace(hub=entry.url)
        if room_row >= 0:
            return entry.rooms.row_data(room_row, role)
        if role == Qt.ItemDataRole.DisplayRole:
            return display_text(entry.label)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            collapsed = entry.url in self.collapsed
            return heading_reading(display_text(entry.label), entry.status.view.heading, entry.rooms.total_unread, entry.rooms.total_mentions, collapsed)
        if role == Qt.ItemDataRole.ToolTipRole:  # where the hub is, and who the human is there
            where, agent_id = entry.url or "the hub this app runs on this computer", entry.bridge.agent_id
            return plain_tooltip(f"{where}\nYour agent id here: {agent_id[:8]}…" if agent_id else where)
        if role == roles.ROOM_UNREAD:
            return entry.rooms.total_unread
        if role == roles.ROOM_MENTIONS:  # (a mention is unread too: it changes with the total)
            return entry.rooms.total_mentions
        if role == roles.HUB_STATE:
            return entry.status.view
        if role == roles.HUB_COLLAPSED:
            return entry.url in self.collapsed
        if role == roles.HUB_NEEDS:
            return entry.needs_you
        return None

    def sort_keys(self) -> list[tuple]:
        """Each row's key for the sidebar's order: the hubs in order, each heading before its
        rooms, the rooms in their model's order (newest activity first, then by label; while
        held, where they were, a room new since after them)."""
        if self._keys is None:
            self._keys = []
            for order, entry in enumerate(self._hubs.entries):
                self._keys.append((order, 0))
                self._keys.extend(self._hub_keys(entry, order, entry.rooms.sort_keys()))
        return self._keys

    def _hub_keys(self, entry: HubEntry, order: int, keys: list[tuple]) -> list[tuple]:
        """``entry``'s rows' keys as the sidebar's, made again only when its model's keys are new
        or the order was held or let go since (a change of one hub's rows made all five hubs'
        500 keys again, at each change; while held, at each signal of a tick's changes)."""
        cached = self._made_keys.get(entry)
        held = self._held.get(entry)
        if cached is None or cached[0] is not keys or cached[1] != order or cached[3] is not held:
            if held is None:
                made = [(order, 1, *key) for key in keys]
            else:  # where each room was when held first; a room new since after them
                last = len(held)
                made = [(order, 1, held.get(name, last), *key) for name, key in zip(entry.rooms.room_names(), keys)]
            cached = (keys, order, made, held)
            self._made_keys[entry] = cached
        return cached[2]

    def hold_order(self, hold: bool) -> None:
        """Keep each room where it is now (True) until released (False: sorted again, a hub a turn)."""
        if hold == self._holding:
            return
        self._holding = hold
        if not hold:
            self._let_go_of_one()
            return
        self._letting_go.stop()
        for entry in self._hubs.entries:
            if entry not in self._held:  # (a hub still held keeps the places it has on screen)
                keys, names = entry.rooms.sort_keys(), entry.rooms.room_names()
                order = sorted(range(len(keys)), key=keys.__getitem__)
                self._held[entry] = {names[row]: place for place, row in enumerate(order)}
                self._held_keys[entry] = {names[row]: keys[row] for row in order}
        self._keys = None

    def _let_go_of_one(self) -> None:
        """Sort the first hub still held again; the next one a turn later. Its rooms whose keys
        are the same as when held keep their order among themselves: only those that changed or
        came meanwhile can have moved, told in one signal from the first to the last (told a run
        at a time, each run was placed among the others' new keys from their old places, and the
        sidebar stayed out of order). Told of every row, the proxy sorted all of them again."""
        entry = next((entry for entry in self._hubs.entries if entry in self._held), None)
        if self._holding or entry is None:
            return
        held_keys = self._held_keys.pop(entry)
        del self._held[entry]
        self._keys = None
        moved = [row for row, (name, key) in enumerate(zip(entry.rooms.room_names(), entry.rooms.sort_keys())) if held_keys.get(name) != key]
        if moved:
            heading = self._offset(entry)
            self.dataChanged.emit(self.index(heading + 1 + moved[0]), self.index(heading + 1 + moved[-1]))
        if self._held:
            self._letting_go.start()

    def _rows_changed(self) -> None:
        self._keys = self._row_count = None

    def set_collapsed(self, url: str, collapsed: bool) -> None:
        (self.collapsed.add if collapsed else self.collapsed.discard)(url)
        heading = self.heading_index(url)
        if heading.isValid():
            self.dataChanged.emit(heading, heading)

    def hidden(self) -> int:
        return sum(entry.rooms.hidden for entry in self._hubs.entries)

    def find(self, text: str) -> None:
        """The filter box's text: each hub's list also lists the rooms matching it (``RoomListModel.find``)."""
        for entry in self._hubs.entries:
            entry.rooms.find(text)

    def found_more(self) -> bool:
        """More rooms match the filter's text than a hub's list shows (``room_search``)."""
        return any(entry.rooms.found_more for entry in self._hubs.entries)

    # -- following each hub's model ---------------------------------------------------------
    def _added(self, entry: HubEntry) -> None:
        first = self._offset(entry)
        self.beginInsertRows(QModelIndex(), first, first + entry.rooms.rowCount())
        self._rows_changed()
        self.endInsertRows()
        self._follow(entry)
        self._heading_changed(entry)  # one hub more: every heading may show now

    def _removed(self, entry: HubEntry) -> None:
        self.beginResetModel()  # the entry is out of the list already: its rows cannot be located
        self.collapsed.discard(entry.url)
        self._made_keys.pop(entry, None)
        self._held.pop(entry, None)
        self._held_keys.pop(entry, None)
        self._rows_changed()
        self.endResetModel()

    def _follow(self, entry: HubEntry) -> None:
        rooms = entry.rooms
        rooms.rowsAboutToBeInserted.connect(
            lambda _parent, first, last: self.beginInsertRows(QModelIndex(), *self._span(entry, first, last))
        )
        rooms.rowsInserted.connect(self._end_insert_rows)
        rooms.reloaded.connect(lambda: self.hiddenChanged.emit(self.hidden()))
        rooms.rowsAboutToBeRemoved.connect(
            lambda _parent, first, last: self.beginRemoveRows(QModelIndex(), *self._span(entry, first, last))
        )
        rooms.rowsRemoved.connect(self._end_remove_rows)
        rooms.modelAboutToBeReset.connect(self.beginResetModel)
        rooms.modelReset.connect(self._end_reset_model)
        rooms.dataChanged.connect(lambda top, bottom, changed=(): self._rooms_changed(entry, top, bottom))
        entry.changed.connect(lambda: self._heading_changed(entry))

    def _end_insert_rows(self) -> None:
        self._rows_changed()
        self.endInsertRows()

    def _end_remove_rows(self) -> None:
        self._rows_changed()
        self.endRemoveRows()

    def _end_reset_model(self) -> None:
        self._rows_changed()
        self.endResetModel()

    def _span(self, entry: HubEntry, first: int, last: int) -> tuple[int, int]:
        heading = self._offset(entry)
        return heading + 1 + first, heading + 1 + last

    def _rooms_changed(self, entry: HubEntry, top: QModelIndex, bottom: QModelIndex) -> None:
        if entry in self._hubs.entries:
            first, last = self._span(entry, top.row(), bottom.row())
            self._rows_changed()
            self.dataChanged.emit(self.index(first), self.index(last))

    def _heading_changed(self, entry: HubEntry) -> None:
        if entry in self._hubs.entries:
            heading = self.index(self._offset(entry))
            self.dataChanged.emit(heading, heading)
