"""RosterModel: the members of the shown room with presence, activity and role.

Presence is never pushed by the hub, so the model shows the stored roster at once and asks the
session to watch the shown room (refreshed now and periodically by the session). While the
session is not live, presence is only as fresh as the last roster: each member says "as of"
when it was learned, and the panel greys them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from parler_desktop.app import roles
from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.protocol.readable import readable
from parler_desktop.store import LocalStore

STATUS_ORDER = {"working": 0, "waiting": 1, "idle": 2, "offline": 3}

Index = QModelIndex | QPersistentModelIndex


class RosterModel(QAbstractListModel):
    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.room: str | None = None
        self._entries: list[Any] = []  # RosterEntry
        self._learned_at = time.time()  # when the shown presence came from the hub
        self._live = False
        bridge.rosterChanged.connect(self._roster_changed)
        bridge.stateChanged.connect(self._state_changed)
        bridge.sessionChanged.connect(self._session_changed)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        entry = self._entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return display_text(entry.name) or entry.id[:8]
        if role == Qt.ItemDataRole.ToolTipRole:
            details = " · ".join(p for p in (entry.status or "offline", entry.role or entry.service_role or "") if p)
            activity = f"\n{entry.activity}" if entry.activity else ""
            return plain_tooltip(readable(f"{entry.name or entry.id[:8]} — {details}{activity}"))
        if role == roles.MEMBER_AS_OF:
            return "" if self._live else time.strftime("as of %H:%M", time.localtime(self._learned_at))
        if role == roles.MEMBER_STATUS:
            return entry.status or "offline"
        if role == roles.MEMBER_ACTIVITY:
            return entry.activity or ""
        if role == roles.MEMBER_ROLE:
            return entry.role or entry.service_role or ""
        if role == Qt.ItemDataRole.AccessibleTextRole:  # what the row shows, for a screen reader
            shown = (Qt.ItemDataRole.DisplayRole, roles.MEMBER_STATUS, roles.MEMBER_ROLE, roles.MEMBER_ACTIVITY, roles.MEMBER_AS_OF)
            return readable(", ".join(text for text in (self.data(index, r) for r in shown) if text))
        return None

    def names(self) -> list[str]:
        return [entry.name for entry in self._entries if entry.name]

    def set_room(self, room: str | None) -> None:
        self.room = room
        self._show([])
        self._bridge.watch_roster([room] if room is not None else [])
        if room is not None and self._bridge.store is not None:
            self._bridge.tasks.spawn("roster", self._load(room))

    async def _load(self, room: str) -> None:
        entries = await self._bridge.store.call(LocalStore.roster, room)
        if room == self.room and not self._entries:
            # stored from an earlier session: as fresh as the newest presence it holds
            self._learned_at = max((entry.last_seen for entry in entries), default=0) / 1000 or time.time()
            self._show(list(entries))

    def _session_changed(self) -> None:
        self.set_room(None)

    def _roster_changed(self, room: str, entries: Sequence[Any]) -> None:
        if room == self.room:
            self._learned_at = time.time()
            self._show(list(entries))

    def _state_changed(self, _event: Any) -> None:
        live = self._bridge.is_live
        if live != self._live:
            self._live = live
            if self._entries:
                self.dataChanged.emit(self.index(0), self.index(len(self._entries) - 1))

    def _show(self, entries: list[Any]) -> None:
        entries.sort(key=lambda e: (STATUS_ORDER.get(e.status, 2), (e.name or "").lower()))
        self.beginResetModel()
        self._entries = entries
        self.endResetModel()
