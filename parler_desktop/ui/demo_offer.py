"""The "Watch a demo" button on the empty first-run screen.

A first launch has no rooms and nothing to watch; this button sits below the timeline's
"No rooms yet" text and starts scripted agents on the hub, so there is something to see.
It follows the view's size to stay centred under the text.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QAbstractScrollArea, QPushButton

TEXT = "Watch a demo: three agents at work"


class DemoOffer(QPushButton):
    def __init__(self, view: QAbstractScrollArea) -> None:
        super().__init__(TEXT, view.viewport(), objectName="demoOffer")
        self._area = view.viewport()
        self._area.installEventFilter(self)
        self.hide()

    def offer(self, shown: bool) -> None:
        self.setVisible(shown)
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._area and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        self.adjustSize()
        area = self._area.rect()
        self.move(area.center().x() - self.width() // 2, area.center().y() + 70)
