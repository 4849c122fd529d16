"""How the window's three panels share its width: a default size that fits the screen, and a
narrow window (below NARROW_PX) that hides the members and narrows the room list so the
timeline keeps at least MIN_TIMELINE_PX; widening gives the panels their widths back.

A wider window gives the side panels a share of the extra width (stretch 1 : 3 : 1), so a room
list at 1920 px shows more of each preview; widths given back at another window width (after a
narrow spell, at the next launch) are shared out the same way from the width they were taken at.
The side panels' widths (``widths``) are kept with the window's state (``restore_widths``).

Show members (Ctrl+Shift+M) always shows them: in a narrow window the room list and the
timeline give up width for them (the timeline keeps MIN_NARROW_TIMELINE_PX), and they stay
until hidden again or the window is widened (which shows them as the wide window had them).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QSplitter, QWidget

DEFAULT_SIZE = QSize(1250, 800)
DEFAULT_WIDTHS = (260, 230)  # the room list's and the members' at the default size
NARROW_PX = 1000
MIN_TIMELINE_PX = 480
MIN_NARROW_TIMELINE_PX = 300  # with the members asked for in a narrow window
MIN_ROOMS_PX = 150
MIN_MEMBERS_PX = 150
NARROW_MEMBERS_PX = 190
SPLITTER_SLACK_PX = 24  # the handles and the window's margins
STRETCH = (1, 3, 1)  # how a wider window's extra width is shared: rooms, timeline, members


class PanelLayout:
    def __init__(self, window: QWidget, splitter: QSplitter, members: QWidget) -> None:
        self._window = window
        self._splitter = splitter
        self._members = members
        for index, stretch in enumerate(STRETCH):
            splitter.setStretchFactor(index, stretch)
        self.members_wanted = True  # the human's choice for a wide window
        self._members_narrow = False  # shown in a narrow window because the human asked for them there
        self._narrow = False
        self._wide_widths = DEFAULT_WIDTHS  # the side panels' last widths in a wide window…
        self._wide_at = DEFAULT_SIZE.width()  # …that was this wide
        self._set_widths(*DEFAULT_WIDTHS, DEFAULT_SIZE.width())

    @property
    def members_shown(self) -> bool:
        """Whether the members panel is (or, with the window hidden, will be) on screen."""
        return not self._members.isHidden()

    def fit_screen(self) -> None:
        """A default size that fits the screen's free area (1280×800, 1366×768, at 1× or 2×)."""
        self.resize_within(DEFAULT_SIZE)

    def resize_within(self, size: QSize) -> None:
        """Make the window ``size``, or as much of it as the screen's free area holds."""
        screen = self._window.screen() or QGuiApplication.primaryScreen()
        free = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        self._window.resize(min(size.width(), free.width() - 40), min(size.height(), free.height() - 60))

    def widths(self) -> tuple[int, int, int]:
        """The room list's and the members' widths in a wide window (kept while it is narrow),
        and that window's width."""
        self._note_widths()
        return (*self._wide_widths, self._wide_at)

    def _note_widths(self) -> None:
        """Keep the side panels' widths on screen, if the window shows them as a wide one."""
        if self._narrow or not self._window.isVisible():
            return
        rooms, _timeline, members = self._splitter.sizes()
        self._wide_widths = (rooms, members if members > 0 else self._wide_widths[1])
        self._wide_at = self._window.width()

    def restore_widths(self, rooms: int, members: int, at: int) -> None:
        """Give the side panels these widths, taken in a window ``at`` wide (now, or once the
        window is wide)."""
        self._wide_widths, self._wide_at = (max(MIN_ROOMS_PX, rooms), max(MIN_MEMBERS_PX, members)), at
        if not self._narrow:
            self._set_widths(*self._wide_widths, self._window.width())

    def toggle_members(self) -> bool:
        """Show the members if they are not on screen, else hide them; returns whether shown."""
        shown = not self.members_shown
        self._members.setVisible(shown)
        if self._narrow:
            self._members_narrow = shown
            self._share_narrow(self._window.width())
        else:
            self.members_wanted = shown
            if shown:
                self._set_widths(*self._wide_widths, self._window.width())
        return shown

    def resized(self, width: int) -> None:
        """The window is ``width`` wide now (its splitter already shares that width out)."""
        narrow = width < NARROW_PX
        if narrow:
            if not self._narrow:
                self._narrow, self._members_narrow = True, False
            self._members.setVisible(self._members_narrow)
            self._share_narrow(width)
        elif self._narrow:
            self._narrow = False
            self._members.setVisible(self.members_wanted)
            self._set_widths(*self._wide_widths, width)
        else:
            self._note_widths()

    def _set_widths(self, rooms: int, members: int, width: int) -> None:
        """The splitter's sizes for these side panels (as they were in a window ``_wide_at``
        wide) in a window ``width`` wide: a share of the difference, and they give way to keep
        the timeline MIN_TIMELINE_PX."""
        share = (width - self._wide_at) // sum(STRETCH)
        rooms = max(MIN_ROOMS_PX, rooms + share * STRETCH[0])
        members = max(MIN_MEMBERS_PX, members + share * STRETCH[2])
        total = width - 2 * self._splitter.handleWidth()  # (the splitter spans the window)
        spare = total - MIN_TIMELINE_PX
        if rooms + members > spare > 0:
            rooms, members = rooms * spare // (rooms + members), members * spare // (rooms + members)
        self._splitter.setSizes([rooms, max(MIN_TIMELINE_PX, total - rooms - members), members])

    def _share_narrow(self, width: int) -> None:
        rooms_wide = self._wide_widths[0]
        if self._members_narrow:
            members = NARROW_MEMBERS_PX
            rooms = max(MIN_ROOMS_PX, min(rooms_wide, width - members - MIN_NARROW_TIMELINE_PX - SPLITTER_SLACK_PX))
        else:
            members = 0
            rooms = max(MIN_ROOMS_PX, min(rooms_wide, width - MIN_TIMELINE_PX - SPLITTER_SLACK_PX))
        self._splitter.setSizes([rooms, width - rooms - members, members])
