"""The room list's context menus: for a room, how much of it may notify, mark it read, copy its
name, export it (each on the room's own hub: a level is set for that hub's room, not for every
room of the name); for a hub's heading, Retry now (and, with a damaged cache, Start with a fresh
cache), fold or unfold its rooms, rename it (in this window) and remove it from the window. Both
offer Sort rooms: by activity / A–Z, for the hub (a window of one hub shows no heading).

Leaving a room is not offered: nobody leaves a room in Parler (docs/protocol.md §7.1, §12: a
membership ends only when the room is deleted), and deleting it would remove it for everyone.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QActionGroup, QGuiApplication
from PySide6.QtWidgets import QMenu

from parler_desktop.app import roles
from parler_desktop.app.attention.attention_preferences import AttentionPreferences
from parler_desktop.app.attention.attention_settings import LEVEL_LABELS, Level, with_level
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.ui.dialogs.export_dialog import ExportDialog
from parler_desktop.ui.room_list.room_list_view import RoomListPanel


class RoomMenu(QObject):
    retryRequested = Signal(object)  # HubEntry: Retry now on its heading
    removeRequested = Signal(object)  # HubEntry: Remove this hub… on its heading
    freshCacheRequested = Signal(object)  # HubEntry: Start with a fresh cache, on a damaged hub's heading
    renameRequested = Signal(object)  # HubEntry: Rename… on its heading
    sortRequested = Signal(object, bool)  # HubEntry, A–Z (else by activity): Sort rooms
    keepRequested = Signal(object)  # HubEntry: Keep messages… on its heading

    def __init__(self, panel: RoomListPanel, hubs: HubList, preferences: AttentionPreferences) -> None:
        super().__init__(panel)
        self._panel = panel
        self._hubs = hubs
        self._preferences = preferences
        self.menu: QMenu | None = None  # the one open now (tests and screenshots look at it)
        panel.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        panel.view.customContextMenuRequested.connect(self._requested)

    def _requested(self, point: QPoint) -> None:
        index = self._panel.view.indexAt(point)
        entry = self._hubs.entry(index.data(roles.HUB_URL)) if index.isValid() else None
        if entry is None:
            return
        menu = self.build_heading(entry) if index.data(roles.HUB_HEADER) else self.build(index.data(roles.ROOM_NAME), entry)
        menu.popup(self._panel.view.viewport().mapToGlobal(point))

    def _entry(self, entry: HubEntry | None) -> HubEntry:
        """The hub a room is on (default: the one shown, as in a window of one hub)."""
        return entry or self._panel.window().shown_hub or self._hubs.entries[0]

    def build_heading(self, entry: HubEntry) -> QMenu:
        menu = QMenu(self._panel, objectName="hubMenu")
        menu.addAction("Retry now", lambda: self.retryRequested.emit(entry))
        if entry.damaged_store is not None:
            menu.addAction("Start with a fresh cache", lambda: self.freshCacheRequested.emit(entry))
        folded = entry.url in self._panel.model.collapsed
        menu.addAction("Show its rooms" if folded else "Fold its rooms", lambda: self._panel.set_collapsed(entry.url, not folded))
        menu.addAction("Rename…", lambda: self.renameRequested.emit(entry))
        self._add_sort(menu, entry)
        menu.addAction("Keep messages…", lambda: self.keepRequested.emit(entry))
        menu.addSeparator()
        remove = menu.addAction("Remove this hub…", lambda: self.removeRequested.emit(entry))
        remove.setEnabled(len(self._hubs.entries) > 1)
        menu.aboutToHide.connect(menu.deleteLater)
        self.menu = menu
        return menu

    def build(self, room: str, entry: HubEntry | None = None) -> QMenu:
        entry = self._entry(entry)
        menu = QMenu(self._panel, objectName="roomMenu")
        notify = menu.addMenu("Notify me about")
        group = QActionGroup(notify)
        current = self._preferences.current().level(entry.url, room)
        for level, label in LEVEL_LABELS.items():
            action = notify.addAction(label)
            action.setCheckable(True)
            action.setChecked(level is current)
            action.setData(level.value)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, chosen=level: self.set_level(entry, room, chosen))
        menu.addSeparator()
        summary = entry.rooms.summary(room)
        mark = menu.addAction("Mark as read", lambda: self._mark_read(room, entry))
        mark.setEnabled(summary is not None and summary.unread > 0)
        menu.addAction("Copy room name", lambda: QGuiApplication.clipboard().setText(room))
        menu.addAction("Export…", lambda: self.export(room, entry))
        menu.addSeparator()
        self._add_sort(menu, entry)
        menu.aboutToHide.connect(menu.deleteLater)
        self.menu = menu
        return menu

    def _add_sort(self, menu: QMenu, entry: HubEntry) -> None:
        sort = menu.addMenu("Sort rooms")
        group = QActionGroup(sort)
        for label, by_name in (("By activity", False), ("A–Z", True)):
            action = sort.addAction(label)
            action.setCheckable(True)
            action.setChecked(entry.rooms.by_name == by_name)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, chosen=by_name: self.sortRequested.emit(entry, chosen))

    def export(self, room: str, entry: HubEntry | None = None) -> ExportDialog:
        entry = self._entry(entry)
        dialog = ExportDialog(entry.bridge, room, entry.rooms.label(room), self._panel.window())
        dialog.open()
        return dialog

    def set_level(self, entry: HubEntry, room: str, level: Level) -> None:
        self._preferences.update(with_level(self._preferences.current(), entry.url, room, level))

    def _mark_read(self, room: str, entry: HubEntry) -> None:
        summary = entry.rooms.summary(room)
        if summary is not None and summary.max_seq > summary.cursor:
            entry.bridge.mark_read(room, summary.max_seq)
