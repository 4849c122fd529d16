"""FleetFeed: keeps ``FleetState`` (every hub's agents) and ``CostTotals`` (what their finished
tasks cost) up to date for the Agents view and the room header, with no polling of its own beyond
the hub's budgets (design.md §3):
- once, when first needed (``load``), each hub's cache, a hub after another: its stored rosters,
  who spoke last in each room, every stored task part (in slices, taken in a batch per loop turn,
  so neither the store nor the window is held long); then the hub's directory (one ``discover``);
- then what each hub's bridge reports: every stored message (task statuses, receipts, who spoke),
  every roster fetched (the members panel's) and the room list (which rooms are DMs);
- while the view is open (``set_watching``), the directories again every ``refresh_ms`` (two
  requests a minute per hub of the 600 the hub allows), and a hub's as it comes live.
Each message is taken in once: the store announces a stored message once, and one stored while
its hub's cache is being read is passed over by that read. A hub whose session changes (another
identity) is forgotten, its agents and its costs, and read again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.agents.cost_totals import CostTotals, receipts_in
from parler_desktop.app.agents.fleet_state import FleetState, task_parts
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.store import LocalStore, StoreError

REFRESH_MS = 30_000
TASK_BATCH = 100  # task parts taken in per loop turn while loading (~30 µs each)
ROSTER_BATCH = 10  # stored rosters taken in per loop turn (~0.1 ms each, of 20 members)
TASK_SCAN = 20_000  # stored messages searched for task parts per store call
SENDER_SCAN = 200  # each room's newest messages read for who spoke there
DIRECTORY_FAILURES = (BadReply, ConnectionLost, HubRefused, SessionClosed, TimeoutError)


class FleetFeed(QObject):
    changed = Signal()  # anything the rows show may have changed (a hub read or forgotten)
    agentsChanged = Signal()  # the agents in ``state.touched`` changed (what arrives live)
    costsChanged = Signal()  # a receipt was counted
    loaded = Signal()  # every hub's cache and directory were read once

    def __init__(self, hubs: HubList, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.hubs = hubs
        self.state = FleetState()
        self.costs = CostTotals()
        self.refresh_ms = REFRESH_MS
        self._loading: set[HubEntry] = set()
        self._sessions: dict[HubEntry, object] = {}  # the session each hub's state was read from
        self._arrived: dict[HubEntry, set[int]] = {}  # seqs stored while the hub's cache is read
        self._live: dict[HubEntry, bool] = {}  # each hub live as last heard
        self._refresh = QTimer(self, interval=self.refresh_ms)
        self._refresh.timeout.connect(self.refresh_directories)
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(self._removed)

    @property
    def watching(self) -> bool:
        """The view is open (``set_watching``)."""
        return self._refresh.isActive()

    @property
    def started(self) -> bool:
        """Some hub's cache is read or being read."""
        return bool(self._sessions or self._loading)

    # -- what the bridges report ------------------------------------------------------------
    def _added(self, entry: HubEntry) -> None:
        bridge = entry.bridge
        bridge.messagesStored.connect(lambda _room, messages, _live: self._stored(entry, messages))
        bridge.rosterChanged.connect(lambda room, entries: self._roster(entry, room, entries))
        bridge.sessionChanged.connect(lambda: self._session_changed(entry))
        bridge.roomsChanged.connect(lambda rooms: self._rooms_changed(entry, rooms))
        bridge.stateChanged.connect(lambda _state: self._state_changed(entry))

    def _removed(self, entry: HubEntry) -> None:
        self._sessions.pop(entry, None)
        self._live.pop(entry, None)
        self.state.forget_hub(entry.url)
        self.costs.forget_hub(entry.url)
        self.costsChanged.emit()
        self.changed.emit()

    def _session_changed(self, entry: HubEntry) -> None:
        """Another identity or hub, or a first session: what was known of the old one goes, and
        the new one's cache is read if the others' were (the view was used)."""
        known = self._sessions.get(entry)
        if known is not None and known is entry.bridge.session:
            return
        if known is not None:
            del self._sessions[entry]
            self.state.forget_hub(entry.url)
            self.costs.forget_hub(entry.url)
            self.costsChanged.emit()
            self.changed.emit()
        if self.started or self.watching:
            self.load()

    def _state_changed(self, entry: HubEntry) -> None:
        """A hub just live (connected, or back) while the view is open: its directory now."""
        live = entry.bridge.is_live
        if live and not self._live.get(entry) and self.watching and entry in self._sessions and entry not in self._loading:
            entry.bridge.tasks.spawn("agents' directory", self.refresh_directory(entry))
        self._live[entry] = live

    def _rooms_changed(self, entry: HubEntry, rooms: Sequence[Any]) -> None:
        """The hub's room list: which rooms are DMs (a DM an agent opened with the human)."""
        if entry in self._sessions:
            self.state.dm_rooms[entry.url] = {room.name for room in rooms if room.kind == "dm"}

    def _stored(self, entry: HubEntry, messages: Sequence[Any]) -> None:
        if entry not in self._sessions:
            return  # not read yet: its cache holds them when it is
        counted = False
        arrived = self._arrived.get(entry)
        for message in messages:
            if arrived is not None:
                arrived.add(message.seq)  # taken in now: the cache's read passes it over
            tasks = task_parts(message)
            self.state.observe_message(entry.url, message, tasks)
            for receipt in receipts_in(entry.url, message.seq, message.room, message.sender.id, message.ts, tasks):
                counted |= self.costs.add(receipt)
        if counted:
            self.costsChanged.emit()
        self.agentsChanged.emit()

    def _roster(self, entry: HubEntry, room: str, entries: Sequence[Any]) -> None:
        if entry in self._sessions and self.state.observe_roster(entry.url, room, entries):
            self.agentsChanged.emit()

    # -- the caches -------------------------------------------------------------------------
    def load(self) -> None:
        """Read every hub's cache and directory once (again after a hub's session changed), a hub
        after another: each cache is read on its store's thread, and five at once took the
        interpreter from the window's thread for longer than one does."""
        due = [e for e in self.hubs.entries if e not in self._sessions and e not in self._loading and e.bridge.store is not None]
        if due:
            self._loading.update(due)
            due[0].bridge.tasks.spawn("agents", self._load_each(due))

    async def _load_each(self, entries: list[HubEntry]) -> None:
        superseded = False
        for entry in entries:
            try:
                if entry in self.hubs.entries and entry.bridge.store is not None:
                    superseded |= not await self._load(entry)
            finally:
                self._loading.discard(entry)
        if shiboken6.isValid(self):
            if superseded:
                self.load()  # a hub whose session changed while it was read: read the new one
            if not self._loading:
                self.loaded.emit()

    async def _load(self, entry: HubEntry) -> bool:
        """Read the hub's cache, then its directory; False when its session changed meanwhile."""
        bridge, hub = entry.bridge, entry.url
        session, store = bridge.session, bridge.store

        def current() -> bool:
            return shiboken6.isValid(self) and bridge.session is session and self._sessions.get(entry) is session

        self._sessions[entry] = session  # from here on, what is stored is taken in as it comes
        arrived = self._arrived[entry] = set()
        self.state.set_me(hub, bridge.agent_id, bridge.name)
        try:
            kinds = await store.call(LocalStore.room_kinds)
            if not current():
                return False
            self.state.dm_rooms[hub] = {room for room, kind in kinds.items() if kind == "dm"}
            rosters = await store.call(LocalStore.all_rosters)
            for number, (room, roster) in enumerate(rosters.items(), 1):
                if number % ROSTER_BATCH == 0:
                    await asyncio.sleep(0)  # a batch per loop turn
                    if not current():
                        return False
                self.state.observe_roster(hub, room, roster)
            for room in kinds:
                senders = await store.call(LocalStore.senders, room, SENDER_SCAN)
                if not current():
                    return False
                for sender in senders:
                    self.state.observe_sender(hub, room, *sender)
            after: int | None = 0
            while after is not None:
                rows, after = await store.call(LocalStore.task_parts, after, TASK_SCAN)
                if not current():
                    return False
                for number, row in enumerate(rows, 1):
                    if number % TASK_BATCH == 0:
                        await asyncio.sleep(0)  # a batch per loop turn
                        if not current():
                            return False
                    if row[0] not in arrived:
                        self._take_task_part(hub, *row)
        except StoreError:
            pass  # a damaged cache (the session says so): what arrives from now on still counts
        finally:
            if self._arrived.get(entry) is arrived:
                del self._arrived[entry]
        if not current():
            return False
        self.costsChanged.emit()
        self.changed.emit()
        await self.refresh_directory(entry)
        return True

    def _take_task_part(self, hub: str, seq: int, room: str, ts: int, sender: str | None, position: int, part_json: str) -> None:
        if not sender or sender == self.state.me.get(hub, ("",))[0]:
            return
        try:
            task = TaskStatus.from_part(json.loads(part_json))
        except ValueError:
            return
        if task is None:
            return
        record = self.state.agent(hub, sender)
        record.rooms.add(room)
        self.state.observe_task(record, room, ts, task)
        for receipt in receipts_in(hub, seq, room, sender, ts, [(position, task)]):
            self.costs.add(receipt)

    # -- the directories --------------------------------------------------------------------
    def set_watching(self, watching: bool) -> None:
        """The view is open: read what is not read yet, ask the directories now and every
        ``refresh_ms``; closed: stop asking."""
        if watching:
            self._refresh.start(self.refresh_ms)
            self.load()
            self.refresh_directories()
        else:
            self._refresh.stop()

    def refresh_directories(self) -> None:
        for entry in self.hubs.entries:
            if entry in self._sessions and entry not in self._loading:
                entry.bridge.tasks.spawn("agents' directory", self.refresh_directory(entry))

    async def refresh_directory(self, entry: HubEntry) -> None:
        session = entry.bridge.session
        if session is None or not entry.bridge.is_live:
            return
        try:
            listed = await session.discover("hub", limit=1000)
        except DIRECTORY_FAILURES:
            return  # a hub without a directory: the rosters still serve
        if shiboken6.isValid(self) and session is entry.bridge.session and self.state.observe_directory(entry.url, listed):
            self.agentsChanged.emit()
