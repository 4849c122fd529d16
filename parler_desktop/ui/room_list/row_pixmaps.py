"""Each room row of the sidebar painted once into a pixmap, and drawn from it until it changes.

Any change of any hub's rooms re-sorts the sidebar and repaints every row on screen, though a
tick changes a few rows at most: a row painted afresh is some thirty calls into Qt from Python
(fonts, badges, two elided texts), 0.3-0.4 ms, ~6 ms a paint of the sidebar, 8 paints a second
at 60 messages/s (bench_room_list.py). A row drawn from its pixmap is one call. A pixmap is
kept for what the row shows (``look``: the row's values, its size, selected or not, the font,
the palette and whatever the delegate adds, such as the agents' dot), so a row that only moves
is drawn from its pixmap; the newest ``KEPT`` are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

KEPT = 64  # a few sidebars' worth of rows (~54 KB each at 300 x 44 px)


class RowPixmaps:
    def __init__(self) -> None:
        self._kept: OrderedDict[Hashable, QPixmap] = OrderedDict()

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, look: Hashable, draw: Callable[[QPainter, QStyleOptionViewItem], None],
    ) -> None:
        """Draw the row at ``option.rect`` from the pixmap kept for ``look``, painting it first
        with ``draw`` (into a pixmap, at the same place within the row) when none is kept."""
        rect = option.rect
        ratio = painter.device().devicePixelRatioF()
        key = (look, rect.width(), rect.height(), ratio, bool(option.state & QStyle.StateFlag.State_Selected),
               option.font.key(), option.palette.cacheKey())
        pixmap = self._kept.get(key)
        if pixmap is None:
            pixmap = QPixmap(round(rect.width() * ratio), round(rect.height() * ratio))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            inside = QStyleOptionViewItem(option)
            inside.rect = QRect(0, 0, rect.width(), rect.height())
            on_pixmap = QPainter(pixmap)
            try:
                draw(on_pixmap, inside)
            finally:
                on_pixmap.end()
            self._kept[key] = pixmap
            if len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        painter.drawPixmap(rect.topLeft(), pixmap)

    def clear(self) -> None:
        """Forget every pixmap (a new colour scheme: the delegates' colours are not in the key)."""
        self._kept.clear()
