"""HubNeeds: every hub's "Needs you" items in one place, the one source of every count that says
what waits on the human (the queue, the sidebar entry, the title, the tray, the room dots, the
Agents view's flags, and each hub's heading through ``HubEntry.needs_you``), so they never disagree."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.needs_you.needs_rules import SILENT_AFTER_SECS, NeedItem, NeedKind
from parler_desktop.app.needs_you.needs_watch import NeedsWatch
from parler_desktop.app.needs_you.unblock_stats import UnblockRow, today
from parler_desktop.client.events import ConnectionState

CAUGHT_UP_WAIT_SECS = 5.0  # what waits for every hub's catch-up waits at most this long (``every_hub_caught_up``)
ON_THE_WAY_UP = frozenset({ConnectionState.CONNECTING, ConnectionState.AUTHENTICATING, ConnectionState.CATCHING_UP})


@dataclass(frozen=True)
class HubItem:
    """An item with the hub it is on."""

    entry: HubEntry
    item: NeedItem

    @property
    def key(self) -> tuple[str, str]:
        return (self.entry.url, self.item.key)


class HubNeeds(QObject):
    changed = Signal()  # an item came, left, or changed on any hub
    countChanged = Signal(int)
    waitingRoomsChanged = Signal(object)  # set of (hub, room) that gained their first item or lost their last (the dots)

    def __init__(self, hubs: HubList, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clock: Callable[[], float] = time.time  # every watch's wall time; tests move it by hand
        self.hubs = hubs
        self.silent_after = SILENT_AFTER_SECS  # the attention settings' "needs you when silent for", every hub
        self._watches: dict[HubEntry, NeedsWatch] = {}
        self._count = 0
        self._items: list[HubItem] | None = None  # every hub's, sorted: made again after a change, when asked
        self._waiting_rooms: set[tuple[str, str]] = set()  # (hub, room) with an item
        self._due: set[NeedsWatch] = set()  # watches whose items are to be worked out again (``_refresh_soon``)
        self._due_timer = QTimer(self, singleShot=True, timeout=self._refresh_due)
        self._caught_up = asyncio.Event()  # no hub's line is on its way up
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(self._removed)

    def watch(self, entry: HubEntry) -> NeedsWatch | None:
        return self._watches.get(entry)

    def items(self) -> list[HubItem]:
        """Every hub's items, oldest first (one list a change: the queue, its header, its filters
        and the alerts each ask, and a wake changes the items ten times a second)."""
        if self._items is None:
            found = [HubItem(entry, item) for entry, watch in self._watches.items() for item in watch.items()]
            self._items = sorted(found, key=lambda found: (found.item.since, found.item.seq, found.item.key))
        return self._items

    def count(self, hub: str | None = None) -> int:
        """How many items wait on the human (on ``hub``, as the settings name it; None: every hub)."""
        return sum(watch.count() for entry, watch in self._watches.items() if hub in (None, entry.url))

    def in_room(self, hub: str, room: str) -> list[NeedItem]:
        """The items of ``room`` on ``hub``, oldest first: the room's warning line reads them."""
        entry = self.hubs.entry(hub)
        watch = None if entry is None else self._watches.get(entry)
        return [] if watch is None else watch.in_room(room)

    def waiting_in(self, hub: str, room: str) -> bool:
        """An agent waits on the human in ``room`` of ``hub``: the room list's dot reads it."""
        return bool(self.in_room(hub, room))

    def of_agent(self, hub: str, agent_id: str) -> list[NeedItem]:
        """The items of ``agent_id`` on ``hub``, oldest first: the Agents view's flags read them
        here ("waiting on you", "silent on your work"), so the flags, the queue and every count agree."""
        entry = self.hubs.entry(hub)
        watch = None if entry is None else self._watches.get(entry)
        return [] if watch is None else watch.of_agent(agent_id)

    def raised(self, entry: HubEntry, message_id: str) -> bool:
        """``message_id`` raised an item on ``entry`` that Needs you tells of (any but a mention,
        which the rules tell of): the rules' notifier leaves it out."""
        watch = self._watches.get(entry)
        item = None if watch is None else watch.ledger.items.get(message_id)
        return item is not None and item.kind is not NeedKind.MENTION

    def today(self) -> list[UnblockRow]:
        """Time to unblock today, per hub, agent and room (``unblock_stats``)."""
        answered = [(entry.label, done) for entry, watch in self._watches.items() for done in watch.answered]
        return today(answered, self.clock())

    def is_queued(self, found: HubItem) -> bool:
        watch = self._watches.get(found.entry)
        return watch is not None and found.item.key in watch.queued

    def refresh(self) -> None:
        for watch in self._watches.values():
            watch.refresh()

    def set_silent_after(self, seconds: float) -> None:
        if seconds != self.silent_after:
            self.silent_after = seconds
            for watch in self._watches.values():
                watch.set_silent_after(seconds)

    def _added(self, entry: HubEntry) -> None:
        entry.bridge.stateChanged.connect(self._lines_changed)
        entry.bridge.sessionChanged.connect(self._lines_changed)
        watch = NeedsWatch(
            entry.bridge, self._refresh_soon, self.every_hub_caught_up, lambda: self.clock(), parent=self, silent_after=self.silent_after
        )
        watch.changed.connect(self._changed)
        self._watches[entry] = watch
        self._lines_changed()
        self._changed()

    def _removed(self, entry: HubEntry) -> None:
        self._watches.pop(entry).deleteLater()
        self._lines_changed()
        self._changed()

    async def every_hub_caught_up(self) -> None:
        """Until no hub's line is on its way up (each live, or down), ``CAUGHT_UP_WAIT_SECS`` at
        most: what Needs you reads and asks in the background (``needs_watch``) waits for a
        wake's catch-ups, every hub's, which it slowed."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._caught_up.wait(), CAUGHT_UP_WAIT_SECS)

    def _lines_changed(self, *_state: object) -> None:
        def on_the_way_up(entry: HubEntry) -> bool:
            state = entry.bridge.last_state
            return entry.bridge.session is not None and (state is None or state.state in ON_THE_WAY_UP)

        if any(on_the_way_up(entry) for entry in self._watches):
            self._caught_up.clear()
        else:
            self._caught_up.set()

    def _refresh_soon(self, watch: NeedsWatch, within_ms: int) -> None:
        """``watch`` took in stored messages: its items are worked out within ``within_ms``, with
        those of every hub due by then, and announced once for all of them (a wake stores pages
        on five hubs at once: each hub's announcement reloaded the queue and repainted the
        sidebar's dots and headings)."""
        self._due.add(watch)
        if not self._due_timer.isActive() or self._due_timer.remainingTime() > within_ms:
            self._due_timer.start(within_ms)

    def _refresh_due(self) -> None:
        due, self._due = self._due, set()
        if any([watch.work_out() for watch in due if watch in self._watches.values()]):  # (a list: every one is worked out)
            self._changed()

    def _changed(self) -> None:
        self._items = None
        for entry, watch in self._watches.items():
            entry.set_needs_you(watch.count())
        self.changed.emit()
        count = self.count()
        if count != self._count:
            self._count = count
            self.countChanged.emit(count)
        rooms = {(entry.url, room) for entry, watch in self._watches.items() for room in watch.rooms()}
        if rooms != self._waiting_rooms:
            changed, self._waiting_rooms = rooms ^ self._waiting_rooms, rooms
            self.waitingRoomsChanged.emit(changed)
