"""The room list: one row per room from the local store, kept in step with session events.

Rows come from ``LocalStore.room_summaries`` (unread = stored seq above the cursor, mention
count, last activity). Events only schedule a reload; reloads are coalesced so a burst of
thousands of messages costs a handful of store queries. The proxy orders by recency and filters.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)

from parler_desktop.app import roles
from parler_desktop.app.bridge import SessionBridge
from parler_desktop.store import LocalStore

RELOAD_DELAY_MS = 120

Index = QModelIndex | QPersistentModelIndex


class RoomListModel(QAbstractListModel):
    totalUnreadChanged = Signal(int)
    reloaded = Signal()

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._rooms: list[Any] = []  # RoomSummary
        self._total_unread = 0
        self._reload_running = False
        self._reload_again = False
        self._timer = QTimer(self, singleShot=True, interval=RELOAD_DELAY_MS)
        self._timer.timeout.connect(self.reload)
        bridge.sessionChanged.connect(self._session_changed)
        # Bound methods (not lambdas): Qt drops the connections when this model is destroyed.
        bridge.messagesStored.connect(self.schedule_reload)
        bridge.roomsChanged.connect(self.schedule_reload)
        bridge.cursorChanged.connect(self.schedule_reload)

    # -- Qt model ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rooms)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rooms):
            return None
        room = self._rooms[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return room.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{room.name} ({room.kind}, {room.members} members)"
        if role == roles.ROOM_KIND:
            return room.kind
        if role == roles.ROOM_UNREAD:
            return int(room.unread)
        if role == roles.ROOM_MENTIONS:
            return int(room.mentions_unread)
        if role == roles.ROOM_LAST_TS:
            return int(room.last_ts or 0)
        if role == roles.ROOM_PREVIEW:
            sender = room.last_sender or ""
            preview = room.last_preview or ""
            return f"{sender}: {preview}" if sender else preview
        return None

    # -- state ------------------------------------------------------------------------------
    @property
    def total_unread(self) -> int:
        return self._total_unread

    def room_names(self) -> list[str]:
        return [room.name for room in self._rooms]

    def summary(self, name: str) -> Any | None:
        return next((room for room in self._rooms if room.name == name), None)

    def schedule_reload(self, *_event: Any) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def reload(self) -> None:
        """Read the summaries again (one store query; overlapping requests collapse into one)."""
        if self._reload_running:
            self._reload_again = True
            return
        if self._bridge.store is None:
            return
        self._reload_running = True
        self._bridge.tasks.spawn("room list", self._reload())

    async def _reload(self) -> None:
        store = self._bridge.store
        try:
            summaries = await store.call(LocalStore.room_summaries)
        finally:
            self._reload_running = False
        if store is self._bridge.store:
            self._apply(list(summaries))
        if self._reload_again:
            self._reload_again = False
            self.reload()

    def _apply(self, summaries: list[Any]) -> None:
        fresh = {room.name: room for room in summaries}
        for row in reversed(range(len(self._rooms))):
            if self._rooms[row].name not in fresh:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rooms[row]
                self.endRemoveRows()
        for row, old in enumerate(self._rooms):
            new = fresh.pop(old.name)
            if new != old:
                self._rooms[row] = new
                index = self.index(row)
                self.dataChanged.emit(index, index)
        if fresh:
            first = len(self._rooms)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            self._rooms.extend(fresh.values())
            self.endInsertRows()
        total = sum(int(room.unread) for room in self._rooms)
        if total != self._total_unread:
            self._total_unread = total
            self.totalUnreadChanged.emit(total)
        self.reloaded.emit()

    def _session_changed(self) -> None:
        self.beginResetModel()
        self._rooms = []
        self.endResetModel()
        if self._total_unread:
            self._total_unread = 0
            self.totalUnreadChanged.emit(0)
        self.schedule_reload()


class RoomSortFilterProxy(QSortFilterProxyModel):
    """Most recent activity first (then by name); the filter box matches room names."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setSortRole(roles.ROOM_LAST_TS)
        self.setDynamicSortFilter(True)
        self.sort(0, Qt.SortOrder.AscendingOrder)

    def lessThan(self, left: Index, right: Index) -> bool:
        # "Less" sorts first: newer activity first, ties by name.
        left_ts = left.data(roles.ROOM_LAST_TS) or 0
        right_ts = right.data(roles.ROOM_LAST_TS) or 0
        if left_ts != right_ts:
            return left_ts > right_ts
        return str(left.data()) < str(right.data())

    def next_unread_row(self, after_row: int) -> int | None:
        """The next row below ``after_row`` (wrapping) whose room has unread messages."""
        count = self.rowCount()
        for step in range(1, count + 1):
            row = (after_row + step) % count
            if (self.index(row, 0).data(roles.ROOM_UNREAD) or 0) > 0:
                return row
        return None
