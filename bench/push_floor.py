"""The floor under ``bench_push.py``'s window: the least a Qt window can do on this machine to show
a pushed message, measured the same way as the app's window, in the same run.

The app's window must read the push through a client session, put it in a model, lay the row out
and paint it through an item view. This window does none of that: a raw websocket on the same
qasync loop reads the delivery; its text goes into a new QTextDocument through Qt's own Markdown
importer; the conversation, a bare ``QAbstractScrollArea``, moves its pixels up by the row's
height and paints the new row (the body alone, as the app paints a row that continues its
author's messages). The window around it has the app's shape and size, because the cost of
moving the pixels and painting grows with the window it is in: the room list, the conversation
with a status line, a scroll bar and a composer, and the members list.

What this window takes over the bare subscriber is what showing a message costs with Qt, Python
and qasync on this machine; the app's window can only add to it.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from PySide6.QtGui import QPainter, QPaintEvent, QTextDocument
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QLineEdit, QListWidget, QMainWindow, QSplitter, QVBoxLayout, QWidget
from support.raw_agent import RawAgent

PAD = 8
SHOWN_ROWS = 40  # more than fit in the conversation: older ones are never painted again


class FloorTimeline(QAbstractScrollArea):
    """Shows each text added at the bottom, as the app's timeline does when it follows."""

    def __init__(self) -> None:
        super().__init__()
        self.painted: dict[str, float] = {}  # text -> when the paint pass that drew it ended
        self._rows: deque[tuple[str, QTextDocument, int]] = deque(maxlen=SHOWN_ROWS)
        self._content_height = 0

    def add(self, text: str) -> None:
        """Lay ``text`` out, scroll the rows above up by its height, and paint it now."""
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setMarkdown(text)
        viewport = self.viewport()
        document.setTextWidth(viewport.width() - 2 * PAD)
        height = round(document.size().height()) + PAD
        self._rows.append((text, document, height))
        self._content_height += height
        bar = self.verticalScrollBar()
        bar.setUpdatesEnabled(False)  # its repaint comes after the row's, as the app's does
        bar.blockSignals(True)  # the pixels are moved below, once
        bar.setRange(0, self._content_height)
        bar.setValue(self._content_height)
        bar.blockSignals(False)
        viewport.scroll(0, -height)
        viewport.repaint(0, viewport.height() - height, viewport.width(), height)
        bar.setUpdatesEnabled(True)

    def _shown(self, top: int, bottom: int) -> list[tuple[str, QTextDocument, int]]:
        """The rows (text, document, top in the viewport) between ``top`` and ``bottom``."""
        shown = []
        row_bottom = self.viewport().height()
        for text, document, height in reversed(self._rows):
            row_top = row_bottom - height
            if row_bottom <= top:
                break
            if row_top <= bottom:
                shown.append((text, document, row_top))
            row_bottom = row_top
        return shown

    def paintEvent(self, event: QPaintEvent) -> None:
        area = event.rect()
        shown = self._shown(area.top(), area.bottom())
        painter = QPainter(self.viewport())
        try:
            for _text, document, top in shown:
                painter.save()
                painter.translate(PAD, top + PAD // 2)
                document.drawContents(painter)
                painter.restore()
        finally:
            painter.end()
        ended = time.perf_counter()
        for text, _document, _top in shown:
            self.painted.setdefault(text, ended)


def floor_window(width: int, height: int) -> tuple[QMainWindow, FloorTimeline]:
    """A window of the app's shape whose conversation is a ``FloorTimeline``."""
    window = QMainWindow()
    timeline = FloorTimeline()
    rooms, members = QListWidget(), QListWidget()
    rooms.addItems([f"room {n}" for n in range(8)])
    members.addItems(["builder", "bare", "boss"])
    middle = QWidget()
    column = QVBoxLayout(middle)
    column.addWidget(QLabel("Connected"))
    column.addWidget(timeline)
    column.addWidget(QLineEdit())
    splitter = QSplitter()
    for part in (rooms, middle, members):
        splitter.addWidget(part)
    splitter.setSizes([width // 5, 3 * width // 5, width // 5])
    window.setCentralWidget(splitter)
    window.resize(width, height)
    return window, timeline


async def show_deliveries(subscriber: RawAgent, show: Callable[[str], None]) -> None:
    """Show the text of each message pushed to ``subscriber`` as it arrives (until cancelled)."""
    while True:
        delivered = await subscriber.recv_delivery(timeout=3600)
        show(delivered["parts"][0]["text"])
