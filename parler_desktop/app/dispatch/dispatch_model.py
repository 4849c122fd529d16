"""DispatchModel: the work dispatched in the shown service room, one row each, with its state.

It reads the room's stored history once (the newest ``HISTORY`` messages) when the room opens,
then every message the session stores for it, into a ``DispatchLedger``; the room's roster says
which holders are still ``working`` (a silent holder that is not loses its lease, see the ledger).
While a worker holds a lease, its row counts down to the lease's end (``lease.py``), every
``COUNTDOWN_MS``, and the ledger is checked for leases that ran out as it does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer

from parler_desktop.app.dispatch.dispatch_ledger import DispatchedWork, DispatchLedger
from parler_desktop.app.dispatch.lease import at_expiry, lease_words
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.store import LocalStore
from parler_desktop.store.outbox_item import OutboxStatus

HISTORY = 1000
COUNTDOWN_MS = 1000
TOOLTIP_STEPS = 8  # the newest steps a row's tooltip lists (it has room for a dozen lines)
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
        self.clock: Callable[[], float] = time.time
        self._working: dict[str, int] | None = None  # who is working (id -> its presence's time), once the roster is known
        self._countdown = QTimer(self, interval=COUNTDOWN_MS, timeout=self._tick)
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
            lease = self.lease_line(work)
            return f"{display_text(work.role)}: {task} — {state_line(work)}" + (f" · {lease}" if lease else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip("\n".join(self._tooltip_lines(work)), wrap=True)
        if role == self.STATE:
            return work.state
        return None

    def work(self, row: int) -> DispatchedWork:
        return self._rows[row]

    def _tooltip_lines(self, work: DispatchedWork) -> list[str]:
        """The work, its newest steps with their times, and what the window knows of the lease
        (each line made plain and bounded by ``plain_tooltip``)."""
        steps = [
            f"{time.strftime('%H:%M:%S', time.localtime(step.ts / 1000))}  {step.state}"
            + (f" · {step.who}" if step.who else "") + (f" — {step.note}" if step.note else "")
            for step in work.steps[-TOOLTIP_STEPS:]
        ]
        lease = self.lease_line(work)
        if lease:
            steps += ["", f"{display_text(work.holder) or 'The worker'}'s {lease}, reckoned from its last sign on the work and "
                      f"the hub's default lease (the hub tells a lease only to its holder). When the lease runs out, "
                      f"{at_expiry(display_text(work.role))}"]
        return [display_text(work.text, NOTICE_CHARS), "", *steps]  # (the task on one line)

    def lease_line(self, work: DispatchedWork) -> str:
        """``lease ends 14:05:12 (in 4:32)`` while a worker holds it, else ""."""
        end = work.lease_end_ms
        if end is None:
            return ""
        return lease_words(end, int(self.clock() * 1000), work.holder_id in (self._working or {}))

    def set_room(self, room: str | None) -> None:
        """Follow ``room`` (only a service room has dispatched work; any other shows nothing)."""
        self.room = room if is_service_room(room) else None
        self._ledger = DispatchLedger()
        self._working = None
        self._show()
        if self.room is not None and self._bridge.store is not None:
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
            self._working = {entry.id: entry.last_seen for entry in entries if entry.status == "working"}
            self._lapse()

    def _lapse(self) -> None:
        if self._working is None or not self._ledger.lapse(int(self.clock() * 1000), self._working):
            return
        work = self._ledger.work
        if [(w.message_id, w.state) for w in work] != [(w.message_id, w.state) for w in self._rows]:
            self._show()
        elif work:  # only renewed: the rows repaint, the list (its selection, where it is scrolled) stays
            self._rows = work
            self.dataChanged.emit(self.index(0), self.index(len(work) - 1))

    def _tick(self) -> None:
        """A second on: leases that ran out, and the countdowns."""
        self._lapse()
        if self._rows:
            self.dataChanged.emit(self.index(0), self.index(len(self._rows) - 1), [Qt.ItemDataRole.DisplayRole])

    def _show(self) -> None:
        self.beginResetModel()
        self._rows = self._ledger.work
        self.endResetModel()
        if any(work.lease_end_ms is not None for work in self._rows):
            if not self._countdown.isActive():
                self._countdown.start()
        else:
            self._countdown.stop()
