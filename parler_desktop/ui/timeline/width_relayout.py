"""A new width, or a room just opened, lays the rows on screen out at once and the others a slice
at a time, later.

A new width asks for every row's size, and each row's Markdown has to be wrapped anew: 600
loaded rows held the window for ~100 ms at each step of a resize drag. Here the rows on screen,
and a margin around them, are laid out at once at the new width; the others keep their last
height for the moment (``RowSizes.stale``) and are laid out in slices of at most ``SLICE_MS``
per loop turn, after which the view places them again.

A room opened lays out its page (60 rows) before its first paint, each row's Markdown for the
first time: most of a switch to a room not shown before (bench_hubs.py's switching, cProfile:
38 rows laid out afresh a switch, ~12 on screen). So ``opening`` lays out the rows from where
the room opens (its newest row upward, or its first unread downward) until they fill the view,
and a margin; the others take the mean height of those for the moment (``RowSizes.estimate``)
and are laid out in slices after the first paint.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, QPoint, QTimer
from PySide6.QtWidgets import QStyleOptionViewItem

from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.timeline.message_delegate import MessageDelegate
from parler_desktop.ui.timeline.row_list_view import RowListView

MARGIN_ROWS = 10  # laid out at once beyond the rows on screen, for a scroll right after
SLICE_MS = 6
OPENING_MARGIN_ROWS = 3  # laid out at once beyond the rows on screen where a room opens (the rest a turn later)


class WidthRelayout(QObject):
    def __init__(self, view: RowListView, model: TimelineModel, delegate: MessageDelegate) -> None:
        super().__init__(view)
        self._view = view
        self._model = model
        self._delegate = delegate
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self._slice)

    def width_changing(self, following: bool) -> None:
        """Call before the view lays out at a new width (``following``: it shows the newest rows)."""
        count = self._model.rowCount()
        if count == 0:
            return
        top = self._view.indexAt(QPoint(0, 0))
        bottom = self._view.indexAt(QPoint(0, self._view.viewport().height() - 1))
        first = top.row() if top.isValid() else 0
        last = count - 1 if following or not bottom.isValid() else bottom.row()
        self._delegate.sizes.exact_rows = range(max(0, first - MARGIN_ROWS), last + MARGIN_ROWS + 1)
        self._timer.start()

    def opening(self, row: int, upward: bool) -> None:
        """A room's page is in and will be shown from ``row`` down (or, ``upward``, up to
        ``row``, its newest): call before the view lays it out (see the module docstring)."""
        count = self._model.rowCount()
        if not 0 <= row < count:
            return
        option = QStyleOptionViewItem()
        option.initFrom(self._view)
        step = -1 if upward else 1
        view_height, filled, beyond, measured = self._view.viewport().height(), 0, 0, []
        first = last = row
        while 0 <= row < count and beyond < OPENING_MARGIN_ROWS:
            beyond += filled >= view_height
            height = self._delegate.exact_height(option, self._model.index(row))
            filled += height
            measured.append(height)
            first, last = min(first, row), max(last, row)
            row += step
        if not upward:  # the rows just above the divider: in view at once after a small scroll up
            for above in range(first - 1, max(-1, first - 1 - OPENING_MARGIN_ROWS), -1):
                measured.append(self._delegate.exact_height(option, self._model.index(above)))
                first = above
        if first == 0 and last == count - 1:
            return  # every row laid out: nothing to guess
        sizes = self._delegate.sizes
        sizes.exact_rows = range(first, last + 1)
        sizes.estimate = max(1, sum(measured) // len(measured))
        self._timer.start()

    def _slice(self) -> None:
        sizes = self._delegate.sizes
        option = QStyleOptionViewItem()
        option.initFrom(self._view)
        clock = QElapsedTimer()
        clock.start()
        present: set[str] = set()
        first_changed: int | None = None
        for row in range(self._model.rowCount()):
            entry = self._model.entry(row)
            if entry is None or entry.key not in sizes.stale:
                continue
            present.add(entry.key)
            if clock.elapsed() < SLICE_MS:
                self._delegate.exact_height(option, self._model.index(row))
                first_changed = row if first_changed is None else first_changed
        sizes.stale &= present  # rows no longer loaded are forgotten
        if first_changed is None and sizes.estimate is not None and not sizes.stale:
            first_changed = 0  # the guessed rows were laid out meanwhile (painted): placed now
        if first_changed is not None:
            self._delegate.sizeHintChanged.emit(self._model.index(first_changed))
        if sizes.stale:
            self._timer.start()
        else:
            sizes.exact_rows = None
            sizes.estimate = None
