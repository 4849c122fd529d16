"""A vertical list of rows of their own heights that lays out only what changed.

QListView lays out every row again after any insert: it asks the delegate for each row's size
(one Python call, plus two for the model's row count, per row). With a room's loaded rows that
was most of the time between a pushed message reaching the model and its row on screen. Here the
row heights are kept in a list with their tops: rows appended at the end are measured alone, a
row whose data changed is measured again alone, and the rows above an append stay where they
are (the view scrolls them up as pixels); rows removed above the view move nothing on screen
and paint nothing. Anything else — rows inserted above or removed elsewhere, a reset, a new
width, a delegate's ``sizeHintChanged`` — lays out every row, once, before the next paint or the
next question about where a row is (Qt's delayed layout, as QListView does).

Rows span the viewport's width; scrolling is by pixel. The delegate measures a row with
``row_height(option, model, row)`` and paints it with ``paint_row`` (see ``paintEvent``).
Selection, the current row, the keyboard and the mouse are ``QAbstractItemView``'s own, but for
two moves the reader never asked for: a click scrolls nothing, and a current row that is removed
hands its place to no other row. It is a QListView only to be read out as a list by screen
readers (Qt gives list accessibility to QListViews alone): none of QListView's layout runs, each
override calls ``QAbstractItemView``'s implementation past it.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import accumulate

from PySide6.QtCore import QAbstractItemModel, QEvent, QItemSelection, QItemSelectionModel, QModelIndex, QPoint, QRect, QSignalBlocker, Qt
from PySide6.QtGui import QMouseEvent, QPainter, QPaintEvent, QRegion, QResizeEvent
from PySide6.QtWidgets import QAbstractItemDelegate, QAbstractItemView, QListView, QStyleOptionViewItem, QWidget

from parler_desktop.ui.timeline.row_failures import RowFailures, notice_height, paint_notice


# What the item option is made of: the window's activation and the view's enabled state (the
# palette's colour group), its font, palette, style, direction and locale.
_OPTION_CHANGES = frozenset(
    {
        QEvent.Type.ActivationChange,
        QEvent.Type.EnabledChange,
        QEvent.Type.FontChange,
        QEvent.Type.PaletteChange,
        QEvent.Type.StyleChange,
        QEvent.Type.LayoutDirectionChange,
        QEvent.Type.LocaleChange,
    }
)


class RowListView(QListView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._heights: list[int] = []
        self._tops: list[int] = [0]  # each row's top in the content, then the content's height
        self._measured = False  # _heights are every row's at the current width
        self._laying_out = False
        self._item_option: QStyleOptionViewItem | None = None  # see _option
        # Held, not asked for on each use (each question is a call into Qt on a pushed message's
        # way to the screen): the scroll bar and the viewport are never replaced, and the model,
        # selection model and delegate are noted as they are set.
        self._bar = self.verticalScrollBar()
        self._viewport = self.viewport()
        self._row_model: QAbstractItemModel | None = None
        self._selection: QItemSelectionModel | None = None
        self._delegate: QAbstractItemDelegate | None = None
        self._failures = RowFailures()
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    # -- what changes the layout --------------------------------------------------------------
    def setModel(self, model: QAbstractItemModel | None) -> None:
        super().setModel(model)
        self._row_model = model
        if model is not None:
            model.rowsRemoved.connect(self._rows_removed)
            for change in (model.rowsMoved, model.layoutChanged):
                change.connect(self._relayout_later)
        self._relayout_later()

    def setSelectionModel(self, selection: QItemSelectionModel) -> None:
        super().setSelectionModel(selection)
        self._selection = self.selectionModel()  # (Qt keeps the old one if this one is refused)

    def setItemDelegate(self, delegate: QAbstractItemDelegate) -> None:
        super().setItemDelegate(delegate)
        self._delegate = delegate
        delegate.sizeHintChanged.connect(self._relayout_later)

    def _relayout_later(self, *_change: object) -> None:
        self._measured = False
        self.scheduleDelayedItemsLayout()

    def reset(self) -> None:
        super().reset()
        self._relayout_later()

    def rowsInserted(self, parent: QModelIndex, start: int, end: int) -> None:
        """Rows added at the end are measured alone; the rest of the layout stands."""
        if self._measured and start == len(self._heights):  # every row was measured: these are at the end
            option = self._option()
            bottom = self._tops[-1]
            for row in range(start, end + 1):
                self._heights.append(self._measure(option, row))
                bottom += self._heights[-1]
                self._tops.append(bottom)
            self.updateGeometries()  # following the bottom, the rows above scroll up as pixels
            self._viewport.update(self._rows_rect(start, end))
        else:
            self._relayout_later()
        QAbstractItemView.rowsInserted(self, parent, start, end)

    def rowsAboutToBeRemoved(self, parent: QModelIndex, start: int, end: int) -> None:
        """A current row that goes is let go, not handed on: Qt makes the row after it current
        (and selected) and scrolls to it, so trimming a followed room of the row the reader had
        clicked carried the view up to a row they never chose, and it stopped following.
        (QListView's would also throw the layout away: ``_rows_removed`` says when that is needed.)"""
        current = self.currentIndex()
        if current.isValid() and start <= current.row() <= end and current.parent() == parent:
            self._selection.clearCurrentIndex()
        QAbstractItemView.rowsAboutToBeRemoved(self, parent, start, end)

    def _rows_removed(self, _parent: QModelIndex, first: int, last: int) -> None:
        """Rows removed above the view (a followed room's window trimmed from the top) change
        nothing on screen: their heights go, and the scroll position moves up by theirs with the
        scroll bar's signals blocked, so no pixels move and nothing is painted again (in a burst,
        laying every row out and painting the whole view came every ``TRIM_ROWS`` messages, in the
        frame of an append). Any other removal lays every row out again."""
        bar = self._bar
        offset = bar.value()
        if not (self._measured and last < len(self._heights) and self._tops[last + 1] <= offset):
            self._relayout_later()
            return
        value = offset - (self._tops[last + 1] - self._tops[first])
        del self._heights[first : last + 1]
        self._tops = list(accumulate(self._heights, initial=0))
        with QSignalBlocker(bar):
            self.updateGeometries()
            bar.setValue(value)

    def dataChanged(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Sequence[int] = ()) -> None:
        """A changed row is measured again; the rows below move only if its height changed."""
        first, last = top_left.row(), bottom_right.row()
        if self._measured and 0 <= first <= last < len(self._heights):
            option = self._option()
            heights = [self._measure(option, row) for row in range(first, last + 1)]
            if heights != self._heights[first : last + 1]:
                self._heights[first : last + 1] = heights
                self._tops = list(accumulate(self._heights, initial=0))
                self.updateGeometries()
                self._viewport.update()
        QAbstractItemView.dataChanged(self, top_left, bottom_right, roles)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if event.size().width() != event.oldSize().width():
            self._relayout_later()
        QAbstractItemView.resizeEvent(self, event)

    def doItemsLayout(self) -> None:
        """Measure every row (the delegate remembers what it laid out before)."""
        if self._laying_out:
            return
        self._laying_out = True
        try:
            model = self._row_model
            option = self._option()
            count = model.rowCount() if model is not None else 0
            self._heights = [self._measure(option, row) for row in range(count)]
            self._tops = list(accumulate(self._heights, initial=0))
            self._measured = True
            QAbstractItemView.doItemsLayout(self)  # the scroll range, and the whole viewport painted again
        finally:
            self._laying_out = False

    def _option(self) -> QStyleOptionViewItem:
        """The option rows are measured and painted with (callers set its rect; nothing changes
        its state, see ``paintEvent``). Made once and again only when what it is made of
        changes: making one cost as much as laying out a new row's header."""
        if self._item_option is None:
            self._item_option = QStyleOptionViewItem()
            self.initViewItemOption(self._item_option)
        return self._item_option

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in _OPTION_CHANGES:
            self._item_option = None
        super().changeEvent(event)

    def _measure(self, option: QStyleOptionViewItem, row: int) -> int:
        try:
            return self._delegate.row_height(option, self._row_model, row)
        except Exception:  # a bug laying out this row: it shows a notice (``row_failures``)
            self._failures.note("laid out", row)
            return notice_height(option.fontMetrics)

    def _settled(self) -> None:
        """Lay out now what is waiting to be (before saying where a row is)."""
        if not self._laying_out:
            self.executeDelayedItemsLayout()

    # -- where rows are -----------------------------------------------------------------------
    def updateGeometries(self) -> None:
        bar = self._bar
        height = self._viewport.height()
        bar.setPageStep(height)
        bar.setRange(0, max(0, self._tops[-1] - height))
        QAbstractItemView.updateGeometries(self)

    def _rows_rect(self, first: int, last: int) -> QRect:
        top = self._tops[first] - self._bar.value()
        return QRect(0, top, self._viewport.width(), self._tops[last + 1] - self._tops[first])

    def visualRect(self, index: QModelIndex) -> QRect:
        self._settled()
        row = index.row() if index.isValid() else -1
        return self._rows_rect(row, row) if 0 <= row < len(self._heights) else QRect()

    def _row_at(self, y: int) -> int | None:
        """The row at ``y`` in the content; None past the last row."""
        row = bisect.bisect_right(self._tops, y) - 1
        return row if 0 <= row < len(self._heights) and y >= 0 else None

    def indexAt(self, point: QPoint) -> QModelIndex:
        self._settled()
        row = self._row_at(point.y() + self._bar.value())
        inside = 0 <= point.x() < self._viewport.width()
        return self._row_model.index(row, 0) if row is not None and inside else QModelIndex()

    def scrollTo(self, index: QModelIndex, hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        rect = self.visualRect(index)
        if not rect.isValid():
            return
        bar, height = self._bar, self._viewport.height()
        top = rect.top() + bar.value()  # in the content
        Hint = QAbstractItemView.ScrollHint
        if hint == Hint.PositionAtTop or (hint == Hint.EnsureVisible and (rect.top() < 0 or rect.height() > height)):
            bar.setValue(top)
        elif hint == Hint.PositionAtBottom or (hint == Hint.EnsureVisible and rect.bottom() >= height):
            bar.setValue(top + rect.height() - height)
        elif hint == Hint.PositionAtCenter:
            bar.setValue(top + rect.height() // 2 - height // 2)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Move the rows as pixels; only the strip scrolled into view is painted (the base
        class would paint the whole viewport again)."""
        self.scrollDirtyRegion(dx, dy)
        self._viewport.scroll(dx, dy)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A click chooses the row under it and moves nothing. With auto-scroll on, Qt scrolls to
        the pressed row once the double-click wait is over (half a second later): in a busy room
        it had scrolled up out of view by then, and the view jumped back to it and stopped
        following the newest messages. (The keyboard's moves still scroll to the current row.)"""
        auto_scroll = self.hasAutoScroll()
        self.setAutoScroll(False)
        try:
            super().mousePressEvent(event)
        finally:
            self.setAutoScroll(auto_scroll)

    def verticalScrollbarValueChanged(self, _value: int) -> None:
        """Nothing to do when the rows scroll. ``QAbstractItemView`` would ask the model for more
        rows at the bottom (none of ours fetches that way) and look for the row under a resting
        pointer to repaint it as hovered: rows here look the same hovered or not, yet under a
        pointer resting on the conversation each pushed message's paint drew two more rows, after
        asking the X server where the pointer was (``bench_push.py`` under Xvfb: row painted
        3.1–3.4 ms after the model had it, 2.1–2.3 ms without)."""

    def horizontalOffset(self) -> int:
        return 0

    def verticalOffset(self) -> int:
        return self._bar.value()

    def isIndexHidden(self, _index: QModelIndex) -> bool:
        return False

    def moveCursor(self, action: QAbstractItemView.CursorAction, _modifiers: Qt.KeyboardModifier) -> QModelIndex:
        """Up and Down choose the row above or below (Home, End and the page keys scroll the
        conversation instead: ``TimelineView``); with no row chosen yet, the top one on screen."""
        self._settled()
        count = len(self._heights)
        if count == 0:
            return QModelIndex()
        current = self.currentIndex()
        if not current.isValid():
            top = self.indexAt(QPoint(0, 0))
            return top if top.isValid() else self._row_model.index(0, 0)
        Move = QAbstractItemView.CursorAction
        step = {Move.MoveUp: -1, Move.MovePrevious: -1, Move.MoveDown: 1, Move.MoveNext: 1}.get(action, 0)
        return self._row_model.index(min(max(current.row() + step, 0), count - 1), 0)

    def setSelection(self, rect: QRect, command: QItemSelectionModel.SelectionFlag) -> None:
        """Select the rows ``rect`` (viewport coordinates) touches."""
        area = rect.normalized()
        offset = self._bar.value()
        first, last = self._row_at(area.top() + offset), self._row_at(area.bottom() + offset)
        selection = QItemSelection()
        if first is not None:
            last = len(self._heights) - 1 if last is None else last
            selection.select(self._row_model.index(first, 0), self._row_model.index(last, 0))
        self._selection.select(selection, command)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        region = QRegion()
        for part in selection:
            first, last = part.top(), min(part.bottom(), len(self._heights) - 1)
            if 0 <= first <= last:
                region += self._rows_rect(first, last)
        return region

    # -- painting -----------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        """Paint the rows in the area asked for, and only those.

        The delegate paints each row with ``paint_row(painter, option, model, row, selected)``:
        it is told whether the row is selected in a bool, and the option's state stays the
        view's. Qt's flags are Python enums: adding a row's flags to the state, and the delegate
        reading them back, ran the enum module's Python code on every pushed message's way to the
        screen.

        A row whose paint raises shows a notice instead (``row_failures``), and the rows below it
        are painted as usual. The painter is begun afresh after it: the failed paint may have
        left it saved, clipped or moved.

        The painter is ended in a ``finally``, not left to Python to destroy: an exception keeps
        this frame, and so the painter, alive in its traceback for as long as the error is kept
        (by ``sys.last_value``, a task, a log record), and a painter still active when Qt ends the
        paint pass leaves the backing store being painted ("endPaint() called with active
        painter"); Qt may then crash when the painter is destroyed."""
        self._settled()
        area = event.rect()
        offset = self._bar.value()
        first = self._row_at(area.top() + offset)
        if first is None:
            return
        model, selection = self._row_model, self._selection
        chosen = selection.hasSelection()  # (none, the usual case: no index is made per row)
        paint_row = self._delegate.paint_row
        option = self._option()
        width = self._viewport.width()
        painter = QPainter(self._viewport)
        try:
            for row in range(first, len(self._heights)):
                top = self._tops[row] - offset
                if top > area.bottom():
                    break
                option.rect = QRect(0, top, width, self._heights[row])
                try:
                    paint_row(painter, option, model, row, chosen and selection.isSelected(model.index(row, 0)))
                except Exception:
                    self._failures.note("painted", row)
                    painter.end()
                    painter = QPainter(self._viewport)
                    paint_notice(painter, option)
        finally:
            painter.end()
