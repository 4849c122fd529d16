"""The "Watch a demo" button on the empty first-run screen.

A first launch has no rooms and nothing to watch; this button sits below the timeline's
"No rooms yet" text and starts scripted agents on the hub, so there is something to see.
It follows the view's size to stay centred under the text, while it is offered (the filter is
not left on the timeline's viewport: every event there, each paint, would pass through Python).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractScrollArea, QPushButton

TEXT = "Watch a demo: three agents at work"


class DemoOffer(QPushButton):
    def __init__(self, view: QAbstractScrollArea) -> None:
        super().__init__(TEXT, view.viewport(), objectName="demoOffer")
        self._area = view.viewport()
        self.hide()

    def offer(self, shown: bool) -> None:
        self.setVisible(shown)
        if shown:
            self._area.installEventFilter(self)  # once only, however often it is offered
            self._place()
        else:
            self._area.removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._area and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        self.adjustSize()
        area = self._area.rect()
        self.move(area.center().x() - self.width() // 2, area.center().y() + 70)
