"""Shared memory (issue 43 item 6): *Hub → Room memory…* opens the panel of the shown room's
facts (``memory_panel.py`` over ``app/memory/facts_model.py``), which follows the room shown."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.memory.facts_model import FactsModel
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.memory.memory_panel import MemoryPanel


class RoomMemory(QObject):
    def __init__(self, bridge: SessionBridge, timeline_model: TimelineModel, parent: QWidget) -> None:
        """``action`` goes in a menu."""
        super().__init__(parent)
        self._timeline = timeline_model
        self._window = parent
        self.model = FactsModel(bridge, self)
        self.panel: MemoryPanel | None = None
        self.action = QAction("Room &memory…", self)
        self.action.triggered.connect(self.open_panel)
        self.action.setEnabled(False)
        timeline_model.modelReset.connect(self._follow_room)

    def open_panel(self) -> MemoryPanel:
        """Show the panel (made once, then raised), its search field ready for typing."""
        if self.panel is None:
            self.panel = MemoryPanel(self.model, self._window)
        self._follow_room()
        self.panel.show()
        self.panel.raise_()
        self.panel.activateWindow()
        self.panel.search.setFocus()
        return self.panel

    def _follow_room(self) -> None:
        room = self._timeline.room
        self.action.setEnabled(room is not None)
        self.model.set_room(room)
        if self.panel is not None:
            self.panel.follow(display_text(room) if room is not None else "")
