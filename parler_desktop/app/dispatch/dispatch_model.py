"""DispatchModel: the work dispatched in the shown service room, one row each, with its state.

It reads the room's stored history once (the newest ``HISTORY`` messages) when the room opens,
then every message the session stores for it, into a ``DispatchLedger``; the room's roster says
which holders are still ``working`` (a silent holder that is not loses its lease, see the ledger),
checked again every ``LAPSE_CHECK_MS``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer

from parler_desktop.app.dispatch.dispatch_ledger import DispatchedWork, DispatchLedger
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.store import LocalStore
from parler_desktop.store.outbox_item import OutboxStatus

HISTORY = 1000
LAPSE_CHECK_MS = 15_000
SERVICE_PREFIX = "svc."
STATE_WORDS = {
    "sending": "waiting to be sent",
    "unsent": "not sent (the hub refused it: see the room)",
    "queued": "queued",
    "claimed": "claimed by {who}",
    "working": "{who} is working on it",
    "awaiting": "{who} waits for an answer",
    "done": "done by {who}",
    "failed": "failed ({who})",
    "cancelled": "cancelled ({who})",
    "expired": "{who}'s lease ran out: back in the queue",
}

Index = QModelIndex | QPersistentModelIndex


def is_service_room(room: str | None) -> bool:
    return room is not None and room.startswith(SERVICE_PREFIX)


def state_line(work: DispatchedWork) -> str:
    """What the row says of the work's state, names shown as plain, bounded text."""
    return STATE_WORDS[work.state].format(who=display_text(work.holder) or "a worker")


class DispatchModel(QAbstractListModel):
    STATE = Qt.ItemDataRole.UserRole + 1  # str: the work's state word

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.room: str | None = None
        self._ledger = DispatchLedger()
        self._rows: list[DispatchedWork] = []
        self._working: set[str] | None = None  # who is working, once the room's roster is known
        self._lapse_timer = QTimer(self, interval=LAPSE_CHECK_MS, timeout=self._lapse)
        bridge.messagesStored.connect(self._stored)
        bridge.outboxChanged.connect(self._outbox_changed)
        bridge.rosterChanged.connect(self._roster_changed)
        bridge.sessionChanged.connect(lambda: self.set_room(None))

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        work = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            task = display_text(work.text, 80) or "(no text)"
            return f"{display_text(work.role)}: {task} — {state_line(work)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            steps = [
                f"{time.strftime('%H:%M:%S', time.localtime(step.ts / 1000))}  {step.state}"
                + (f" · {step.who}" if step.who else "") + (f" — {step.note}" if step.note else "")
                for step in work.steps
            ]
            return plain_tooltip(display_text("\n".join([work.text, "", *steps]), NOTICE_CHARS * 4))
        if role == self.STATE:
            return work.state
        return None

    def work(self, row: int) -> DispatchedWork:
        return self._rows[row]

    def set_room(self, room: str | None) -> None:
        """Follow ``room`` (only a service room has dispatched work; any other shows nothing)."""
        self.room = room if is_service_room(room) else None
        self._ledger = DispatchLedger()
        self._working = None
        self._show()
        if self.room is None:
            self._lapse_timer.stop()
            return
        self._lapse_timer.start()
        if self._bridge.store is not None:
            self._bridge.tasks.spawn("dispatched work", self._load(self.room))

    async def _load(self, room: str) -> None:
        history = await self._bridge.store.call(LocalStore.messages_before, room, 2**63 - 1, HISTORY)
        unsent = await self._bridge.store.call(LocalStore.outbox_items, (OutboxStatus.PENDING, OutboxStatus.FAILED), room)
        if room == self.room:
            self._add(history)
            for item in unsent:
                self._outbox_changed(item)

    def _outbox_changed(self, item: Any) -> None:
        if item.room == self.room and self._ledger.posted(item):
            self._show()

    def _stored(self, room: str, messages: Sequence[Any], _live: bool) -> None:
        if room == self.room:
            self._add(messages)

    def _add(self, messages: Sequence[Any]) -> None:
        if self._ledger.add(messages):
            self._lapse()
            self._show()

    def _roster_changed(self, room: str, entries: Sequence[Any]) -> None:
        if room == self.room:
            self._working = {entry.id for entry in entries if entry.status == "working"}
            self._lapse()

    def _lapse(self) -> None:
        if self._working is not None and self._ledger.lapse(int(time.time() * 1000), self._working):
            self._show()

    def _show(self) -> None:
        self.beginResetModel()
        self._rows = self._ledger.work
        self.endResetModel()
