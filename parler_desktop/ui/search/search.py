"""Search wired into a window: each hub's index kept building in the background, Ctrl+F (the
open room) and Ctrl+Shift+F (all rooms of every hub), and a result opening the room (on its
hub) at its message."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.search.search_model import SearchIndexer, SearchResultsModel
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.timeline.message_jump import MessageJump
from parler_desktop.ui.dialogs.search_dialog import SearchDialog


class Search:
    def __init__(self, window: MainWindow, jump: MessageJump) -> None:
        self.window = window
        self.model = SearchResultsModel(window.hubs, lambda: window.shown_hub, window)
        self.dialog = SearchDialog(self.model, lambda: window.rooms, window)
        self.dialog.openRequested.connect(jump.open)
        self.indexers: dict[HubEntry, SearchIndexer] = {}
        for entry in window.hubs.entries:
            self._hub_added(entry)
        window.hubs.added.connect(self._hub_added)
        window.hubs.removed.connect(lambda entry: self.indexers.pop(entry).deleteLater())
        menu = window.add_menu(QMenu("&Search", window))
        for text, keys, room_only in (
            ("&Search this room…", "Ctrl+F", True),
            ("Search &all rooms…", "Ctrl+Shift+F", False),
        ):
            action = QAction(text, window)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _checked=False, only=room_only: self.open(only))
            window.addAction(action)
            menu.addAction(action)

    @property
    def indexer(self) -> SearchIndexer:
        """The shown hub's indexer (whose progress the dialog shows)."""
        return self.indexers[self.window.shown_hub or self.window.hubs.entries[0]]

    def _hub_added(self, entry: HubEntry) -> None:
        indexer = SearchIndexer(entry.bridge, entry)
        indexer.progress.connect(lambda progress: self.dialog.show_progress(progress) if entry is self.window.shown_hub else None)
        self.indexers[entry] = indexer

    def open(self, this_room: bool) -> None:
        self.dialog.start(self.window.timeline_model.room if this_room else None)
        if self.indexer.latest is not None:
            self.dialog.show_progress(self.indexer.latest)
