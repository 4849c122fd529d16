"""Which room the window opens without a click: a room just joined or created, the room left open
when the window last closed, else the newest room of the hub shown.

With several hubs, "the newest room" must not pull the human off a hub they chose: who went to a
hub with no rooms yet (Add a hub…, Ctrl+Alt+N) stays on it while the other hubs' lists fill. Only
a window that opened on an empty hub by itself (nobody chose it) opens another hub's room.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parler_desktop.app.hubs.hub_list import HubEntry

if TYPE_CHECKING:  # for the type only: the window is built from modules beside this one
    from parler_desktop.ui.main_window import MainWindow


class RoomOpener:
    def __init__(self, window: MainWindow) -> None:
        self._window = window
        self._joined: tuple[str, str] | None = None  # (hub, room) just joined or created: opens once listed
        self._left_open: tuple[str, str] | None = None  # (hub, room) open when the window last closed
        self.hub_chosen = False  # the human (or a link) chose the hub shown, rather than the launch

    def open_when_listed(self, room: str) -> None:
        """A room just created or joined (on the hub shown) opens as soon as its list has it."""
        if self._window.shown_hub is not None:
            self._joined = (self._window.shown_hub.url, room)
            self._open_joined()

    def reopen(self, hub: str, room: str) -> None:
        """Open ``room`` of ``hub`` (the shown hub) once its rooms are listed; one that hub no
        longer lists once it is live gives way to its newest room."""
        self._left_open = (hub, room)

    def listed(self, entry: HubEntry) -> None:
        """``entry``'s room list was (re)loaded."""
        self._open_joined()
        panel, opened = self._window.room_panel, self._window.timeline_model.room
        if self._left_open is not None and self._left_open[0] == entry.url:
            if opened is None and panel.reveal_room(self._left_open[1], entry.url):
                self._left_open = None
            elif entry.bridge.is_live or opened is not None:
                self._left_open = None
        self._open_newest()

    def _open_joined(self) -> None:
        if self._joined is not None and self._window.room_panel.reveal_room(self._joined[1], self._joined[0]):
            self._joined = None

    def _open_newest(self) -> None:
        shown = self._window.shown_hub
        waiting = self._joined is not None or self._left_open is not None
        if shown is None or waiting or self._window.timeline_model.room is not None:
            return
        shown_is_empty = shown.bridge.is_live and shown.rooms.loaded and shown.rooms.rowCount() == 0
        first = self._window.room_panel.first_room(None if shown_is_empty and not self.hub_chosen else shown.url)
        if first is not None:
            self._window.room_panel.view.setCurrentIndex(first)
