"""The room list's context menu: how much of the room may notify, mark it read, copy its name,
export it.

Leaving a room is not offered: nobody leaves a room in Parler (docs/protocol.md §7.1, §12: a
membership ends only when the room is deleted), and deleting it would remove it for everyone.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QActionGroup, QGuiApplication
from PySide6.QtWidgets import QMenu

from parler_desktop.app import roles
from parler_desktop.app.attention.attention_preferences import AttentionPreferences
from parler_desktop.app.attention.attention_settings import LEVEL_LABELS, Level, with_level
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.ui.dialogs.export_dialog import ExportDialog
from parler_desktop.ui.room_list.room_list_view import RoomListPanel


class RoomMenu(QObject):
    def __init__(
        self, panel: RoomListPanel, rooms: RoomListModel, bridge: SessionBridge, preferences: AttentionPreferences
    ) -> None:
        super().__init__(panel)
        self._panel = panel
        self._rooms = rooms
        self._bridge = bridge
        self._preferences = preferences
        self.menu: QMenu | None = None  # the one open now (tests and screenshots look at it)
        panel.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        panel.view.customContextMenuRequested.connect(self._requested)

    def _requested(self, point: QPoint) -> None:
        index = self._panel.view.indexAt(point)
        if index.isValid():
            self.build(index.data(roles.ROOM_NAME)).popup(self._panel.view.viewport().mapToGlobal(point))

    def build(self, room: str) -> QMenu:
        menu = QMenu(self._panel, objectName="roomMenu")
        notify = menu.addMenu("Notify me about")
        group = QActionGroup(notify)
        current = self._preferences.current().level(room)
        for level, label in LEVEL_LABELS.items():
            action = notify.addAction(label)
            action.setCheckable(True)
            action.setChecked(level is current)
            action.setData(level.value)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, chosen=level: self.set_level(room, chosen))
        menu.addSeparator()
        summary = self._rooms.summary(room)
        mark = menu.addAction("Mark as read", lambda: self._mark_read(room))
        mark.setEnabled(summary is not None and summary.unread > 0)
        menu.addAction("Copy room name", lambda: QGuiApplication.clipboard().setText(room))
        menu.addAction("Export…", lambda: self.export(room))
        menu.aboutToHide.connect(menu.deleteLater)
        self.menu = menu
        return menu

    def export(self, room: str) -> ExportDialog:
        dialog = ExportDialog(self._bridge, room, self._rooms.label(room), self._panel.window())
        dialog.open()
        return dialog

    def set_level(self, room: str, level: Level) -> None:
        self._preferences.update(with_level(self._preferences.current(), room, level))

    def _mark_read(self, room: str) -> None:
        summary = self._rooms.summary(room)
        if summary is not None and summary.max_seq > summary.cursor:
            self._bridge.mark_read(room, summary.max_seq)
