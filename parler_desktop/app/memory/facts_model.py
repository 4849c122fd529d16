"""FactsModel: what a room's shared memory holds for a search (protocol.md §7.15), one fact a row.

The hub answers ``recall`` only for a query (words a fact must contain) or a key, so a search
asks both: the facts with that key first, newest first, then those whose words match (a fact in
both is shown once). ``remember`` writes the human's fact; a keyed one replaces the human's own
fact with that key (an agent's stays, older, below it). Where the hub refuses a write for good
(not a member, not allowed, …) the model says so in ``read_only`` and the panel stops offering it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.errors import ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol import errors
from parler_desktop.protocol.values import Fact, RecallHit

RESULT_LIMIT = 50  # the most a recall answers (§7.15)

Index = QModelIndex | QPersistentModelIndex


class FactsModel(QAbstractListModel):
    KEY = Qt.ItemDataRole.UserRole + 1  # str: the fact's key ("" for an unkeyed fact)
    TEXT = Qt.ItemDataRole.UserRole + 2  # str: the fact's text as written
    problemChanged = Signal(str)  # a sentence about the last search or save ("" once fine again)
    readOnlyChanged = Signal(str)  # why the hub refuses the human's facts in this room ("" = it takes them)
    saved = Signal()

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.room: str | None = None
        self.query = ""
        self.read_only = ""
        self._hits: list[RecallHit] = []
        self._names: dict[str, str] = {}
        self._generation = 0  # a newer search makes an older answer stale
        bridge.rosterChanged.connect(self._roster_changed)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            key = f"{display_text(hit.key)}: " if hit.key else ""
            return f"{key}{display_text(hit.text, NOTICE_CHARS)} — {self.author(hit)}, {time.strftime('%Y-%m-%d %H:%M', time.localtime(hit.ts / 1000))}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(display_text(hit.text, NOTICE_CHARS * 4))
        if role == self.KEY:
            return hit.key or ""
        if role == self.TEXT:
            return hit.text
        return None

    def author(self, hit: RecallHit) -> str:
        if hit.author == self._bridge.agent_id:
            return "you"
        return display_text(self._names.get(hit.author, "")) or hit.author[:8]

    def set_room(self, room: str | None) -> None:
        if room != self.room:
            self.room = room
            self._set_read_only("")
            self.search(self.query)

    def search(self, query: str) -> None:
        """Show the facts of the room for ``query`` (its words, or a key); nothing for no query."""
        self.query = query.strip()
        self._generation += 1
        if not self.query or self.room is None or self._bridge.session is None:
            self._show([])
            return
        self._bridge.tasks.spawn("recall", self._search(self._generation, self._bridge.session, self.room, self.query))

    async def _search(self, generation: int, session: Any, room: str, query: str) -> None:
        try:
            keyed = await session.recall("", room, key=query, limit=RESULT_LIMIT) if len(query.split()) == 1 else ()
            matching = await session.recall(query, room, limit=RESULT_LIMIT)
        except (HubRefused, ConnectionLost, SessionClosed) as error:
            if generation == self._generation:
                self.problemChanged.emit(display_text(f"The room's memory could not be searched: {error}", NOTICE_CHARS))
            return
        if generation == self._generation:
            seen = {(h.author, h.key, h.text, h.ts) for h in keyed}
            self._show([*keyed, *(h for h in matching if (h.author, h.key, h.text, h.ts) not in seen)])
            self.problemChanged.emit("")

    def remember(self, key: str, text: str) -> None:
        """Write the human's fact to the room (keyed when ``key`` is given), then show that key."""
        if self.room is None or self._bridge.session is None or self.read_only:
            return
        fact = Fact(text=text.strip(), key=key.strip() or None, room=self.room)
        self._bridge.tasks.spawn("remember", self._remember(self._bridge.session, fact))

    async def _remember(self, session: Any, fact: Fact) -> None:
        try:
            await session.remember(fact)
        except HubRefused as error:
            if error.code is None or error.code in (errors.NOT_MEMBER, errors.NOT_AUTHORIZED):
                if fact.room == self.room:
                    self._set_read_only(display_text(f"The hub keeps this room's memory read-only for you: {error.message}", NOTICE_CHARS))
                return
            self.problemChanged.emit(display_text(f"The fact was not saved: {error.message}", NOTICE_CHARS))
            return
        except (ConnectionLost, SessionClosed) as error:
            self.problemChanged.emit(display_text(f"The fact was not saved: {error}", NOTICE_CHARS))
            return
        self.saved.emit()
        if fact.room == self.room:
            self.search(fact.key or fact.text)

    def _set_read_only(self, reason: str) -> None:
        if reason != self.read_only:
            self.read_only = reason
            self.readOnlyChanged.emit(reason)

    def _roster_changed(self, room: str, entries: Sequence[Any]) -> None:
        self._names.update((entry.id, entry.name) for entry in entries if entry.name)
        if room == self.room and self._hits:
            self.dataChanged.emit(self.index(0), self.index(len(self._hits) - 1))

    def _show(self, hits: list[RecallHit]) -> None:
        self.beginResetModel()
        self._hits = hits
        self.endResetModel()
