"""Show the window at one message: from a notification's "Open", the tray balloon, a search
result or a parler:// link. Opens the room, loads history back to the message, scrolls it to the
middle and selects it; a message no longer stored leaves the room open at its newest page.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QAbstractItemView, QMainWindow

from parler_desktop.app.timeline_model import TimelineModel
from parler_desktop.ui.room_list_view import RoomListPanel
from parler_desktop.ui.timeline_view import TimelineView


def bring_forward(window: QMainWindow) -> None:
    window.showNormal()
    window.raise_()
    window.activateWindow()


class MessageJump(QObject):
    def __init__(self, window: QMainWindow, rooms: RoomListPanel, timeline: TimelineView, model: TimelineModel) -> None:
        super().__init__(window)
        self._window = window
        self._rooms = rooms
        self._timeline = timeline
        self._model = model

    def open(self, room: str, seq: int) -> None:
        bring_forward(self._window)
        if self._rooms.filter.text():
            self._rooms.filter.clear()  # the room may be filtered out of the list
        if room != self._model.room and not self._rooms.select_room(room):
            self._window.statusBar().showMessage(f"Not a member of {room} any more", 10_000)
            return
        self._model.tasks.spawn("open message", self._scroll_to(room, seq))

    async def _scroll_to(self, room: str, seq: int) -> None:
        if self._model.loading:
            loaded = asyncio.get_running_loop().create_future()
            self._model.roomLoaded.connect(lambda name: loaded.done() or loaded.set_result(name))
            if await loaded != room:
                return
        await self._model.load_back_to(seq - 1)
        row = next(
            (row for row in range(self._model.rowCount()) if (entry := self._model.entry(row)) and entry.seq == seq),
            None,
        )
        if row is None or self._model.room != room:
            return
        index = self._model.index(row)
        self._timeline.setCurrentIndex(index)
        self._timeline.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
