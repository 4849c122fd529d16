"""The hubs the window holds: for each, a bridge that follows that hub's session for good, its
room list and its connection state; and what aggregates them (the total unread count).

Every hub keeps counting while the human looks at another: its rooms, badges and connection
line come from its own ``HubEntry``. The window's timeline, composer and members panel follow
one session at a time, through a bridge of their own that attaches to the shown hub's session.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.connection_status import ConnectionStatus, hub_place
from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.app.room_list.sidebar_ticks import SidebarFrames

EMBEDDED_LABEL = "This computer"


def hub_label(url: str) -> str:
    """What a hub is called in the sidebar: the embedded hub (``""``) is this computer, any other
    hub its host and port."""
    return EMBEDDED_LABEL if not url else hub_place(url)


class HubEntry(QObject):
    """One hub: ``url`` as the settings hold it (``""`` = the embedded hub)."""

    changed = Signal()  # its label, state or unread count changed
    needsChanged = Signal()  # how many items need the human here changed (its heading's count alone)

    def __init__(self, url: str, parent: QObject | None = None, frames: SidebarFrames | None = None) -> None:
        """``frames``: shared by every hub of a window, so their rows change in one frame."""
        super().__init__(parent)
        self.url = url
        self.name = ""  # what the human called it (Rename…); "" = named after its address
        self.needs_you = 0  # items waiting on the human here (set by app/needs_you's HubNeeds, their one source)
        self.damaged_store: Path | None = None  # its cache could not be used: "Start with a fresh cache" replaces it
        self.bridge = SessionBridge(self)
        self.rooms = RoomListModel(self.bridge, self, frames)
        self.status = ConnectionStatus(self)
        self.bridge.stateChanged.connect(self.status.on_state)
        self.bridge.sessionChanged.connect(self._session_changed)
        self.status.changed.connect(self.changed)
        self.rooms.totalUnreadChanged.connect(self.changed)

    @property
    def label(self) -> str:
        return self.name or hub_label(self.url)

    def rename(self, name: str) -> None:
        if name != self.name:
            self.name = name
            self.changed.emit()

    def set_needs_you(self, count: int) -> None:
        if count != self.needs_you:
            self.needs_you = count
            self.needsChanged.emit()

    def _session_changed(self) -> None:
        self.status.reset()
        self.status.set_name(self.bridge.name)


class HubList(QObject):
    """The hubs in the sidebar's order."""

    added = Signal(object)  # HubEntry, already in ``entries``
    removed = Signal(object)  # HubEntry, no longer in ``entries``
    totalUnreadChanged = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[HubEntry] = []
        self.sidebar_frames = SidebarFrames(self)  # every hub's room list changes in one frame (``sidebar_ticks``)
        self._total_unread = 0

    def add(self, url: str) -> HubEntry:
        """The entry for ``url``, made (at the end) if the list does not hold it yet."""
        existing = self.entry(url)
        if existing is not None:
            return existing
        entry = HubEntry(url, self, self.sidebar_frames)
        self.entries.append(entry)
        entry.rooms.totalUnreadChanged.connect(self._count)
        self.added.emit(entry)
        return entry

    def remove(self, entry: HubEntry) -> None:
        self.sidebar_frames.discard(entry.rooms)
        self.entries.remove(entry)
        self.removed.emit(entry)
        self._count()
        entry.deleteLater()

    def entry(self, url: str) -> HubEntry | None:
        return next((entry for entry in self.entries if entry.url == url), None)

    def entry_of_session(self, session: object) -> HubEntry | None:
        return next((entry for entry in self.entries if entry.bridge.session is session), None)

    def index(self, entry: HubEntry) -> int:
        return self.entries.index(entry)

    @property
    def total_unread(self) -> int:
        return self._total_unread

    def _count(self, *_changed: object) -> None:
        total = sum(entry.rooms.total_unread for entry in self.entries)
        if total != self._total_unread:
            self._total_unread = total
            self.totalUnreadChanged.emit(total)
