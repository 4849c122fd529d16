"""RowListView on its own (a plain string model, rows of different heights): rows removed above
the view leave what is on screen where it was, and paint nothing; rows removed on screen lay the
rest out again; a row that cannot be laid out or painted costs only itself."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QStringListModel, Qt
from PySide6.QtGui import QImage, QRegion
from PySide6.QtWidgets import QStyledItemDelegate
from test_ui_timeline_speed import PaintedAreas, on_screen, settle

from parler_desktop.ui.timeline.row_list_view import RowListView

pytestmark = pytest.mark.timeout(30)


class TextRows(QStyledItemDelegate):
    """Each row's text in a row 20, 30 or 40 px high (by the number in its text)."""

    def row_height(self, _option, model, row: int) -> int:  # noqa: ANN001
        return 20 + int(model.data(model.index(row, 0))) % 3 * 10

    def paint_row(self, painter, option, model, row: int, _selected: bool) -> None:  # noqa: ANN001
        painter.drawText(option.rect, Qt.AlignmentFlag.AlignLeft, model.data(model.index(row, 0)))


def shown(qtbot) -> RowListView:  # noqa: ANN001
    model = QStringListModel([str(n) for n in range(100)])
    view = RowListView()
    view.setItemDelegate(TextRows(view))
    view.setModel(model)
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(view.verticalScrollBar().isVisible, timeout=5000)  # (shown a turn after its range)
    view.verticalScrollBar().setValue(1000)  # the middle of the rows
    settle(view)
    return view


def top_row(view: RowListView) -> tuple[str, int]:
    index = view.indexAt(QPoint(5, 0))
    return index.data(), view.visualRect(index).top()


def test_rows_removed_above_the_view_move_nothing_on_screen_and_paint_nothing(qtbot):
    view = shown(qtbot)
    before, pixels = top_row(view), on_screen(view)
    painted = PaintedAreas(view.viewport())
    view.model().removeRows(0, 10)
    settle(view)
    assert top_row(view) == before and on_screen(view) == pixels
    assert painted.areas == []
    view.viewport().repaint()  # painted afresh, it looks the same
    assert on_screen(view) == pixels


def test_rows_removed_on_screen_lay_the_rest_out_again(qtbot):
    view = shown(qtbot)
    text, top = top_row(view)
    first = int(text)
    painted = PaintedAreas(view.viewport())
    view.model().removeRows(first, 3)  # the top row on screen and the two under it
    settle(view)
    assert top_row(view) == (str(first + 3), top)
    assert any(QRegion(view.viewport().rect()).subtracted(area).isEmpty() for area in painted.areas)  # all of it
    shown_now = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == shown_now


def test_rows_removed_up_to_the_top_of_the_view_hide_a_scroll_bar_left_with_nothing_to_scroll(qtbot):
    """With nothing left above the view the rows may just fill it: the scroll bar goes (the way
    that paints nothing sets the bar's range with its signals blocked)."""
    view = shown(qtbot)
    model, bar = view.model(), view.verticalScrollBar()
    last_five = sum(TextRows().row_height(None, model, row) for row in range(95, 100))
    view.resize(300, last_five + 2 * view.frameWidth())  # the last five rows fill the viewport
    settle(view)
    bar.setValue(bar.maximum())
    settle(view)
    assert top_row(view) == ("95", 0) and bar.isVisible()
    model.removeRows(0, 95)
    settle(view)
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=5000)
    assert top_row(view) == ("95", 0)


class FailingRows(TextRows):
    """``TextRows``, but row "13" cannot be laid out, or painted: its paint raises after leaving
    the painter saved, clipped and moved, as a bug in our paint code would."""

    def __init__(self, parent, fails: str) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.fails = fails

    def row_height(self, option, model, row: int) -> int:  # noqa: ANN001
        if self.fails == "layout" and model.data(model.index(row, 0)) == "13":
            raise ValueError("no layout for 13")
        return super().row_height(option, model, row)

    def paint_row(self, painter, option, model, row: int, selected: bool) -> None:  # noqa: ANN001
        self.row_height(option, model, row)  # (a row is painted as laid out)
        self._paint_or_fail(painter, option, model, row, selected)

    def _paint_or_fail(self, painter, option, model, row: int, selected: bool) -> None:  # noqa: ANN001
        if self.fails == "paint" and model.data(model.index(row, 0)) == "13":
            painter.save()
            painter.setClipRect(QRect(0, 0, 1, 1))
            painter.translate(500, 500)
            raise ValueError("no paint for 13")
        super().paint_row(painter, option, model, row, selected)


def rows_shown(qtbot, delegate_for) -> RowListView:  # noqa: ANN001
    """Rows 0-29 in a view showing rows 10 to 20 or so."""
    view = RowListView()
    view.setItemDelegate(delegate_for(view))
    view.setModel(QStringListModel([str(n) for n in range(30)]))
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(view.verticalScrollBar().isVisible, timeout=5000)  # (shown a turn after its range)
    settle(view)
    view.verticalScrollBar().setValue(view.visualRect(view.model().index(10, 0)).top() + view.verticalScrollBar().value())
    settle(view)
    return view


def row_pixels(view: RowListView, row: int) -> QImage:
    shown = on_screen(view)
    assert not shown.isNull()
    return shown.copy(view.visualRect(view.model().index(row, 0)))


@pytest.mark.parametrize("fails", ["layout", "paint"])
def test_a_row_that_cannot_be_shown_shows_a_notice_and_the_rows_below_it_are_painted(qtbot, caplog, fails):
    """A bug in one row's layout or paint used to blank every row below it (or leave the view a
    row height short); now that row shows a notice, logged once however often it is painted."""
    good = rows_shown(qtbot, TextRows)
    view = rows_shown(qtbot, lambda parent: FailingRows(parent, fails))
    view.viewport().repaint()
    view.viewport().repaint()
    below = range(14, 30)
    assert [view.model().data(view.indexAt(QPoint(5, view.visualRect(view.model().index(row, 0)).top()))) for row in below] == [str(row) for row in below]
    shown = [row for row in below if view.visualRect(view.model().index(row, 0)).intersects(view.viewport().rect())]
    assert len(shown) >= 3
    for row in shown:
        assert row_pixels(view, row) == row_pixels(good, row), f"row {row} is not painted as it should be"
    notice = row_pixels(view, 13)
    assert notice != row_pixels(good, 13) and len({notice.pixel(x, y) for x in range(notice.width()) for y in range(notice.height())}) > 1
    failures = [record for record in caplog.records if record.levelname == "ERROR"]
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert f"could not be {'laid out' if fails == 'layout' else 'painted'}" in failures[0].getMessage()
