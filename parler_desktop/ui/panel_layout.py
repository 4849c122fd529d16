"""How the window's three panels share its width: a default size that fits the screen, and a
narrow window (below NARROW_PX) that hides the members and narrows the room list so the
timeline keeps at least MIN_TIMELINE_PX; widening gives the panels their sizes back.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSplitter, QWidget

DEFAULT_SIZE = QSize(1250, 800)
NARROW_PX = 1000
MIN_TIMELINE_PX = 480
MIN_ROOMS_PX = 150


class PanelLayout:
    def __init__(self, window: QWidget, splitter: QSplitter, members: QWidget) -> None:
        self._window = window
        self._splitter = splitter
        self._members = members
        self.members_wanted = True  # the human's choice; a narrow window hides them anyway
        self._wide_sizes: list[int] | None = None  # the splitter's sizes before the window got narrow

    def fit_screen(self) -> None:
        """A default size that fits the screen's free area (1280×800, 1366×768, at 1× or 2×)."""
        screen = self._window.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        self._window.resize(min(DEFAULT_SIZE.width(), free.width() - 40), min(DEFAULT_SIZE.height(), free.height() - 60))

    def toggle_members(self) -> bool:
        self.members_wanted = not self._members.isVisible()
        self._members.setVisible(self.members_wanted)
        return self.members_wanted

    def resized(self, width: int) -> None:
        narrow = width < NARROW_PX
        if narrow and self._wide_sizes is None:
            self._wide_sizes = self._splitter.sizes()  # given back when the window is wide again
        self._members.setVisible(self.members_wanted and not narrow)
        if narrow:
            rooms = max(MIN_ROOMS_PX, min(self._wide_sizes[0], width - MIN_TIMELINE_PX - 24))
            self._splitter.setSizes([rooms, width - rooms, 0])
        elif self._wide_sizes is not None:
            self._splitter.setSizes(self._wide_sizes)
            self._wide_sizes = None
