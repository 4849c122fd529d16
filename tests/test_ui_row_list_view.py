"""RowListView on its own (a plain string model, rows of different heights): rows removed above
the view leave what is on screen where it was, and paint nothing; rows removed on screen lay the
rest out again."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QStringListModel, Qt
from PySide6.QtGui import QRegion
from PySide6.QtWidgets import QStyledItemDelegate
from test_ui_timeline_speed import PaintedAreas, on_screen, settle

from parler_desktop.ui.row_list_view import RowListView

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
