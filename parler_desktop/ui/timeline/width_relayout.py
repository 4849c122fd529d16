"""A new width lays the rows on screen out at once and the others a slice at a time, later.

A new width asks for every row's size, and each row's Markdown has to be wrapped anew: 600
loaded rows held the window for ~100 ms at each step of a resize drag. Here the rows on screen,
and a margin around them, are laid out at once at the new width; the others keep their last
height for the moment (``RowSizes.stale``) and are laid out in slices of at most ``SLICE_MS``
per loop turn, after which the view places them again.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QObject, QPoint, QTimer
from PySide6.QtWidgets import QStyleOptionViewItem

from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.timeline.message_delegate import MessageDelegate
from parler_desktop.ui.timeline.row_list_view import RowListView

MARGIN_ROWS = 10  # laid out at once beyond the rows on screen, for a scroll right after
SLICE_MS = 6


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
        if first_changed is not None:
            self._delegate.sizeHintChanged.emit(self._model.index(first_changed))
        if sizes.stale:
            self._timer.start()
        else:
            sizes.exact_rows = None
