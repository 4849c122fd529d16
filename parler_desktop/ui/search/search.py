"""Search wired into a window: the index kept building in the background, Ctrl+F (the open
room) and Ctrl+Shift+F (all rooms), and a result opening the room at its message."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.search.search_model import SearchIndexer, SearchResultsModel
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.timeline.message_jump import MessageJump
from parler_desktop.ui.dialogs.search_dialog import SearchDialog


class Search:
    def __init__(self, bridge: SessionBridge, window: MainWindow, jump: MessageJump) -> None:
        self.window = window
        self.model = SearchResultsModel(bridge, window)
        self.indexer = SearchIndexer(bridge, window)
        self.dialog = SearchDialog(self.model, window.rooms, window)
        self.dialog.openRequested.connect(jump.open)
        self.indexer.progress.connect(self.dialog.show_progress)
        menu = window.menuBar().addMenu("&Search")
        for text, keys, room_only in (
            ("Search this room…", "Ctrl+F", True),
            ("Search all rooms…", "Ctrl+Shift+F", False),
        ):
            action = QAction(text, window)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _checked=False, only=room_only: self.open(only))
            window.addAction(action)
            menu.addAction(action)

    def open(self, this_room: bool) -> None:
        self.dialog.start(self.window.timeline_model.room if this_room else None)
        if self.indexer.latest is not None:
            self.dialog.show_progress(self.indexer.latest)
