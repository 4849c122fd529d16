"""How the window's three panels share its width: a default size that fits the screen, and a
narrow window (below NARROW_PX) that hides the members and narrows the room list so the
timeline keeps at least MIN_TIMELINE_PX; widening gives the panels their sizes back.

Show members (Ctrl+Shift+M) always shows them: in a narrow window the room list and the
timeline give up width for them (the timeline keeps MIN_NARROW_TIMELINE_PX), and they stay
until hidden again or the window is widened (which shows them as the wide window had them).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSplitter, QWidget

DEFAULT_SIZE = QSize(1250, 800)
NARROW_PX = 1000
MIN_TIMELINE_PX = 480
MIN_NARROW_TIMELINE_PX = 300  # with the members asked for in a narrow window
MIN_ROOMS_PX = 150
NARROW_MEMBERS_PX = 190
SPLITTER_SLACK_PX = 24  # the handles and the window's margins


class PanelLayout:
    def __init__(self, window: QWidget, splitter: QSplitter, members: QWidget) -> None:
        self._window = window
        self._splitter = splitter
        self._members = members
        self.members_wanted = True  # the human's choice for a wide window
        self._members_narrow = False  # shown in a narrow window because the human asked for them there
        self._wide_sizes: list[int] | None = None  # the splitter's sizes before the window got narrow

    @property
    def members_shown(self) -> bool:
        """Whether the members panel is (or, with the window hidden, will be) on screen."""
        return not self._members.isHidden()

    def fit_screen(self) -> None:
        """A default size that fits the screen's free area (1280×800, 1366×768, at 1× or 2×)."""
        screen = self._window.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        self._window.resize(min(DEFAULT_SIZE.width(), free.width() - 40), min(DEFAULT_SIZE.height(), free.height() - 60))

    def toggle_members(self) -> bool:
        """Show the members if they are not on screen, else hide them; returns whether shown."""
        shown = not self.members_shown
        if self._wide_sizes is None:
            self.members_wanted = shown
            self._members.setVisible(shown)
        else:
            self._members_narrow = shown
            self._members.setVisible(shown)
            self._share_narrow(self._window.width())
        return shown

    def resized(self, width: int) -> None:
        narrow = width < NARROW_PX
        if narrow and self._wide_sizes is None:
            self._wide_sizes = self._splitter.sizes()  # given back when the window is wide again
            self._members_narrow = False
        if narrow:
            self._members.setVisible(self._members_narrow)
            self._share_narrow(width)
        elif self._wide_sizes is not None:
            self._members.setVisible(self.members_wanted)
            self._splitter.setSizes(self._wide_sizes)
            self._wide_sizes = None

    def _share_narrow(self, width: int) -> None:
        wide = self._wide_sizes or self._splitter.sizes()
        if self._members_narrow:
            members = NARROW_MEMBERS_PX
            rooms = max(MIN_ROOMS_PX, min(wide[0], width - members - MIN_NARROW_TIMELINE_PX - SPLITTER_SLACK_PX))
        else:
            members = 0
            rooms = max(MIN_ROOMS_PX, min(wide[0], width - MIN_TIMELINE_PX - SPLITTER_SLACK_PX))
        self._splitter.setSizes([rooms, width - rooms - members, members])
