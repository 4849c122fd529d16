"""Show the window at one message: from a notification's "Open", the tray balloon, a search
result or a parler:// link. The room opens at the page holding the message (``TimelineModel``
landing on a seq) and the view selects it in the middle; a message no longer stored opens the
room where it would have been.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from parler_desktop.app.display_text import display_text
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.room_list.room_list_view import RoomListPanel

if TYPE_CHECKING:  # for the type only: the window is built from modules beside this one
    from parler_desktop.ui.main_window import MainWindow


def bring_forward(window: QMainWindow) -> None:
    """Show the window in front: a minimized one restored, a hidden (closed to the tray) or
    maximized one in the state it had."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


class MessageJump(QObject):
    def __init__(self, window: MainWindow, rooms: RoomListPanel, model: TimelineModel) -> None:
        super().__init__(window)
        self._window = window
        self._rooms = rooms
        self._model = model

    def open(self, room: str, seq: int, hub: str | None = None) -> None:
        """Show message ``seq`` of ``room`` (of ``hub``, as the settings name it; default: the hub
        shown), showing that hub first if the window shows another."""
        bring_forward(self._window)
        shown = self._window.shown_hub
        entry = self._window.hubs.entry(hub) if hub is not None else shown
        if entry is not None and entry is not shown:
            self._window.show_hub(entry)
        if self._rooms.filter.text():
            self._rooms.filter.clear()  # the room may be filtered out of the list
        if room != self._model.room and not self._rooms.select_room(room, entry.url if entry is not None else None):
            self._window.statusBar().showMessage(f"Not a member of {display_text(room)} any more", 10_000)
            return
        self._model.open_room(room, landing=seq)  # the view selects it once its page is in
