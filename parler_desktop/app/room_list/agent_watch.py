"""AgentWatch: keeps ``AgentActivity`` fed from one hub's session and checks it on a timer, so the
room list's dots, the room header's loop warning and its notification follow what agents do.
``HubAgentWatches`` holds one per hub of the window, on that hub's own bridge: every hub's rooms
get their own dots and warnings, looked up by (hub, room), while the human looks at another.

On a new session it reads each room's newest page from the store (the states survive a
restart), a room a store call, so other work goes between, once the session has stopped
connecting and catching up (it is live, or cannot be for now): read at once, five hubs' pages
held the Qt thread and the cores for half a second at each launch, the catch-up's pulls behind
them (bench_hubs.py's wake). What a room stores before its page is read is in that page (stored
first): it is passed over as it arrives, not taken in twice (a message counted twice counts
towards a loop), and a launch's catch-up costs nothing before then.
Then every stored message is observed as it arrives, and its room looked at again (every room,
if that was not done in the last few seconds: a busy room's burst costs one room a batch). A
watch has one timer, however many rooms. A warning is announced once (``hintRaised``) and again
only after it has cleared. The clock is injectable for tests. A room whose agent waits on the
human is one with an open "Needs you" item (``waiting``, from ``app/needs_you``): one source (and
the header reads what waits, and who went silent on the human's work, there too).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.room_list.agent_activity import AgentActivity, AgentState, Hint
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.client.events import ConnectionState, StateChanged
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, StoreError

CHECK_MS = 30_000
ARRIVAL_CHECK_SECS = 5.0  # an arrival looks again at every room at most this often (else at its own)
HISTORY_PAGE = 200
NEWER_THAN_ANY = 2**63 - 1  # the largest seq SQLite holds: the page before it is the newest
SYNCING = {ConnectionState.CONNECTING, ConnectionState.AUTHENTICATING, ConnectionState.CATCHING_UP}


class AgentWatch(QObject):
    changed = Signal()  # a room's state or warnings changed
    hintRaised = Signal(str, object)  # room, Hint: a new warning

    def __init__(
        self,
        bridge: SessionBridge,
        settings: Callable[[], AttentionSettings],
        clock: Callable[[], float] = time.time,
        parent: QObject | None = None,
        check_ms: int = CHECK_MS,
        waiting: Callable[[str], bool] = lambda _room: False,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._waiting = waiting
        self._settings = settings
        self.clock = clock  # wall time; tests put a clock they move by hand here
        self.activity = AgentActivity("")
        self._shown: dict[str, tuple[AgentState, tuple[Hint, ...]]] = {}
        self._raised: set[tuple[str, str, tuple[str, ...]]] = set()
        self._checked_all_at = float("-inf")
        self._listing = False  # the rooms are being listed: every room's arrivals are in its page
        self._unread: set[str] = set()  # rooms listed whose page is still to be read
        self._history_due = False  # the pages are read once the session settles (module docstring)
        self.apply_settings(settings())
        self._timer = QTimer(self, interval=check_ms)
        self._timer.timeout.connect(self.check)
        self._timer.start()
        bridge.messagesStored.connect(self._stored)
        bridge.sessionChanged.connect(self._session_changed)
        bridge.stateChanged.connect(self._state_changed)
        bridge.storeFailed.connect(self._store_failed)
        if bridge.session is not None:
            self._session_changed()

    def apply_settings(self, settings: AttentionSettings) -> None:
        self.activity.loop_messages = settings.loop_messages
        self.activity.loop_window = settings.loop_minutes * 60

    def state(self, room: str) -> AgentState:
        return AgentState.WAITING if self._waiting(room) else self._shown.get(room, (AgentState.IDLE, ()))[0]

    def hints(self, room: str) -> tuple[Hint, ...]:
        return self._shown.get(room, (AgentState.IDLE, ()))[1]

    def check(self, rooms: Sequence[str] | None = None) -> None:
        """Look again at ``rooms`` (default: every room) at the clock's time; announce what changed."""
        self.apply_settings(self._settings())
        now = self.clock()
        if rooms is None:  # every room: one not looked at is idle
            rooms, shown = self.activity.rooms(), {}
            self._checked_all_at = now
        else:
            shown = dict(self._shown)
        for room in rooms:
            state, hints = self.activity.room_state(room), tuple(self.activity.hints(room, now))
            if state is not AgentState.IDLE or hints:
                shown[room] = (state, hints)
            else:
                shown.pop(room, None)
        raised = {(room, hint.kind, hint.agents) for room, (_, hints) in shown.items() for hint in hints}
        for room, (_, hints) in sorted(shown.items()):
            for hint in hints:
                if (room, hint.kind, hint.agents) not in self._raised:
                    self.hintRaised.emit(room, hint)
        self._raised = raised
        if shown != self._shown:
            self._shown = shown
            self.changed.emit()

    def _stored(self, room: str, messages: Sequence[StoredMessage], _live: bool) -> None:
        if self._listing or room in self._unread:
            return  # its page, read later, holds them
        for message in messages:
            self.activity.observe(message)
        self.check(None if self.clock() - self._checked_all_at >= ARRIVAL_CHECK_SECS else [room])

    def _session_changed(self) -> None:
        self.activity = AgentActivity(self._bridge.agent_id)
        self.apply_settings(self._settings())
        self._raised.clear()
        self._unread.clear()
        self._listing = self._history_due = self._bridge.store is not None
        self.check()

    def _state_changed(self, state: StateChanged) -> None:
        if state.state not in SYNCING:
            self._read_history()

    def _store_failed(self, _error: object) -> None:
        self._read_history()  # (what the cache holds can still be read)

    def _read_history(self) -> None:
        if self._history_due and self._bridge.store is not None:
            self._history_due = False
            self._bridge.tasks.spawn("agent states", self._read_pages(self._bridge.store))

    async def _read_pages(self, store: object) -> None:
        """What each room's newest page says (a damaged cache, which the session reports, is
        skipped: the states then start from what arrives)."""
        try:
            rooms = await store.call(LocalStore.room_names)
            if store is not self._bridge.store:
                return  # another session's watch now
            self._listing, self._unread = False, set(rooms)  # (a room made since is not in it: all it holds arrives)
            for room in rooms:  # a call a room: others go between
                page = await store.call(LocalStore.messages_before, room, NEWER_THAN_ANY, HISTORY_PAGE)
                if store is not self._bridge.store:
                    return
                for message in page:
                    self.activity.observe(message)
                self._unread.discard(room)
        except StoreError:
            if store is not self._bridge.store:
                return
            self._listing = False
            self._unread.clear()
        self.check()


class HubAgentWatches(QObject):
    """An ``AgentWatch`` per hub the window holds, each on its hub's own bridge; asked by (hub,
    room), the hub as the settings name it."""

    changed = Signal()  # a room's state or warnings changed, on any hub
    hintRaised = Signal(object, str, object)  # HubEntry, room, Hint: a new warning

    def __init__(
        self, hubs: HubList, settings: Callable[[], AttentionSettings], parent: QObject | None = None,
        waiting: Callable[[str, str], bool] = lambda _hub, _room: False,
    ) -> None:
        """``waiting(hub, room)``: an agent there waits on the human (``HubNeeds.waiting_in``)."""
        super().__init__(parent)
        self._waiting = waiting
        self.clock: Callable[[], float] = time.time  # every watch's wall time; tests move it by hand
        self._hubs = hubs
        self.settings = settings  # (the Agents view reads its stuck setting here too)
        self._watches: dict[HubEntry, AgentWatch] = {}
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(self._removed)

    def watch(self, hub: str) -> AgentWatch | None:
        entry = self._hubs.entry(hub)
        return None if entry is None else self._watches.get(entry)

    def state(self, hub: str, room: str) -> AgentState:
        watch = self.watch(hub)
        return AgentState.IDLE if watch is None else watch.state(room)

    def hints(self, hub: str, room: str) -> tuple[Hint, ...]:
        watch = self.watch(hub)
        return () if watch is None else watch.hints(room)

    def _added(self, entry: HubEntry) -> None:
        watch = AgentWatch(
            entry.bridge, self.settings, lambda: self.clock(), parent=self, waiting=lambda room: self._waiting(entry.url, room)
        )
        watch.changed.connect(self.changed)
        watch.hintRaised.connect(lambda room, hint: entry in self._watches and self.hintRaised.emit(entry, room, hint))
        self._watches[entry] = watch

    def _removed(self, entry: HubEntry) -> None:
        self._watches.pop(entry).deleteLater()
        self.changed.emit()
