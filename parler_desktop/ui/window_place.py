"""Keeping where the human is in the window (``window_state.py``): the hub and room shown, the
hubs folded, the window's size (unmaximized) and its side panels' widths, written a moment after
they change (a burst of room switches is one write, off the UI thread) and once more as the app
shuts down, so the next launch reopens there."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import QObject, QSize, QTimer

from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import os_error_text
from parler_desktop.paths import Home
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.window_state import WindowState, save_window_state

log = logging.getLogger(__name__)
SAVE_DELAY_MS = 1000


def window_state_path(home: Home) -> Path:
    return home.config_dir / "window-state.json"


class WindowPlace(QObject):
    def __init__(self, path: Path, window: MainWindow, tasks: TaskSupervisor) -> None:
        super().__init__(window)
        self._path = path
        self._window = window
        self._tasks = tasks
        self._saved: WindowState | None = None
        self._timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._timer.timeout.connect(self._save_soon)
        self._closed = False
        window.room_panel.roomChosen.connect(self._timer.start)
        window.room_panel.foldsChanged.connect(self._timer.start)
        window.splitter.splitterMoved.connect(self._timer.start)

    def _save_soon(self) -> None:
        if not self._closed:
            self._tasks.spawn("save window state", self.save())

    async def save_for_good(self) -> None:
        """The last save, as the window goes: a change after it (the window closing resizes it)
        is not saved, by a timer that would fire once the loop is gone."""
        self._closed = True
        await self.save()

    def restore(self, state: WindowState) -> None:
        """Fold the hubs folded last time, give the window its size and panels back (as much as
        the screen holds), and reopen the room left open if its hub is shown."""
        self._saved = state
        if state.size is not None:
            self._window.panels.resize_within(QSize(*state.size))
        if state.panels is not None:
            self._window.panels.restore_widths(*state.panels)
        for url in state.folded:
            if self._window.hubs.entry(url) is not None:
                self._window.room_panel.set_collapsed(url, True)
        shown = self._window.shown_hub
        if shown is not None and state.room is not None and state.hub == shown.url:
            self._window.opener.reopen(shown.url, state.room)
        self._timer.stop()  # (the folds just restored are no change to save)

    def current(self) -> WindowState:
        panel = self._window.room_panel
        hub, room = panel.shown_room if panel.shown_room is not None else (None, None)
        if hub is None and self._window.shown_hub is not None:
            hub = self._window.shown_hub.url
        held = [entry.url for entry in self._window.hubs.entries]
        folded = tuple(url for url in held if url in panel.model.collapsed)
        window = self._window
        size = (window.normalGeometry() if window.isMaximized() else window.geometry()).size()
        return WindowState(hub, room, folded, (size.width(), size.height()), window.panels.widths())

    async def save(self) -> None:
        """Write the place if it changed; a failure (a full disk) is logged: it costs only the
        room the next launch opens."""
        self._timer.stop()
        state = self.current()
        if state == self._saved:
            return
        try:
            await asyncio.to_thread(save_window_state, self._path, state)
        except OSError as error:
            log.warning("could not save where the window was (%s)", os_error_text(error))
            return
        self._saved = state
