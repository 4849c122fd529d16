"""The tray icon: shows the window on click and the per-room summaries of what came in meanwhile."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMainWindow, QSystemTrayIcon

from parler_desktop.app.room_list_model import RoomListModel
from parler_desktop.app.unseen_tally import UnseenTally


class Tray(QSystemTrayIcon):
    def __init__(self, window: QMainWindow, rooms: RoomListModel, tally: UnseenTally) -> None:
        super().__init__(QApplication.windowIcon(), window)
        self._window = window
        self._rooms = rooms
        self.setToolTip("Parler")
        self.activated.connect(self._show_window)
        self.messageClicked.connect(self._show_window)
        tally.summary.connect(self._summarize)
        rooms.totalUnreadChanged.connect(self._unread_changed)

    def _unread_changed(self, unread: int) -> None:
        self.setToolTip(f"Parler — {unread} unread" if unread else "Parler")

    def _summarize(self, room: str, count: int, mentions: int) -> None:
        noun = "message" if count == 1 else "messages"
        extra = f", {mentions} for you" if mentions else ""
        self.showMessage(self._rooms.label(room), f"{count} new {noun}{extra}", QSystemTrayIcon.MessageIcon.Information, 8000)

    def _show_window(self, *_reason: object) -> None:
        self._window.showNormal()
        self._window.raise_()
        self._window.activateWindow()
