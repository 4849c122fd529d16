"""AttentionNotifier: decides what deserves a desktop notification, and coalesces it per room.

Each message from someone else goes through the room's level and, for the default level, the
keep/drop rules (``attention_rules``). Nothing is shown for the human's own messages, for a room
on screen in the active window, or while notifications are paused or in Do Not Disturb.

No storms: what is kept waits in a per-room batch until the line has been quiet for
``quiet_ms`` (at most ``max_wait_ms`` after the batch began, so a steady stream still gets
through) *and* the session is live, so a catch-up after a wake, a reconnect or a launch ends in
one alert per room, never one per message. A batch of one message is shown as that message
(sender, room, first line); a bigger one as a summary ("planner and 2 others: 37 new, 2 for
you"). Messages the human has read meanwhile (at or below the room's cursor) are left out.

A batch is weighed (its room's level and rules, who it is for) when it is announced, not as its
messages are stored, and only as far as the alert needs: every message for the human (counted),
the first one kept. A wake stores tens of thousands of messages on the window's thread, and
weighing each as it was stored cost ~30 µs (1.5 s of a 50,000-message wake, bench_hubs.py);
the announcement weighs a slice at a time, letting the window run between slices.

Bounded: a room's batch holds its newest ``HELD_MAX`` messages; older ones are let go and only
the span of their seqs is kept, which the announcement reads back from the store a slice at a
time (the same messages: what a room stores from others meanwhile in that span counts too).
Holding every message of a 50,000-message wake until the line was live and quiet held them all
(issue 47). An announcement counts at most ``SENDERS_HELD`` senders a room ("… and 1000+ others").
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.display_text import display_text
from parler_desktop.app.room_list.agent_activity import Hint
from parler_desktop.app.attention.attention_rules import MessageFacts, decide
from parler_desktop.app.attention.attention_settings import AttentionSettings, Level
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.client.events import ConnectionState, StateChanged
from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.protocol.values import RoomInfo, StoredMessage
from parler_desktop.store import LocalStore, StoreError, StoreWorker
from parler_desktop.store.codec import preview_text

QUIET_MS = 1500
MAX_WAIT_MS = 5000
WEIGH_SLICE = 200  # messages weighed between two turns of the window's loop
HELD_MAX = 1000  # messages a room's batch holds; older ones are read back from the store
SENDERS_HELD = 1000  # senders an announcement counts a room


@dataclass(frozen=True)
class Alert:
    """One notification: which room (of which hub), the message "Open" goes to, and what it says."""

    room: str
    seq: int
    title: str
    body: str
    hub: str = ""  # the hub as the settings name it ("" = the embedded hub)
    slot: str = ""  # alerts of one (hub, room, slot) replace each other: a room's share one, a Needs you item has its own
    reply: bool = False  # offer Reply beside Open


@dataclass
class RoomBatch:
    """A room's messages from others since its last alert: the newest ``HELD_MAX`` (in the order
    stored), and the seqs spanned by those let go before them (in the store)."""

    held: list[StoredMessage] = field(default_factory=list)
    let_go: tuple[int, int] | None = None  # (first, last) seq

    def add(self, messages: Sequence[StoredMessage]) -> None:
        self.held.extend(messages)
        if len(self.held) > HELD_MAX:  # let the older half go (not one at a time: each is a copy)
            keep = HELD_MAX // 2
            gone, self.held = self.held[:-keep], self.held[-keep:]
            seqs = [m.seq for m in gone] + list(self.let_go or ())
            self.let_go = (min(seqs), max(seqs))

    def in_let_go(self, seq: int) -> bool:
        return self.let_go is not None and self.let_go[0] <= seq <= self.let_go[1]


@dataclass
class Unread:
    """What a room's alert needs of its unread batch, weighed in order (see the module docstring)."""

    count: int = 0
    for_me: int = 0  # addressed to me
    first_for_me: StoredMessage | None = None
    first_kept: StoredMessage | None = None  # the first that may notify
    senders: dict[str, None] = field(default_factory=dict)  # names, the latest to write last
    more_senders: bool = False  # more than ``SENDERS_HELD``: the oldest were forgotten

    def sent_by(self, name: str) -> None:
        self.senders.pop(name, None)
        self.senders[name] = None
        if len(self.senders) > SENDERS_HELD:
            del self.senders[next(iter(self.senders))]
            self.more_senders = True


def senders_phrase(names: Sequence[str], more: bool = False) -> str:
    """ "planner", "planner and alice", "planner and 2 others" (the first name leads); with
    ``more``, the others counted are a part of them ("planner and 1000+ others")."""
    unique = list(dict.fromkeys(names))
    if len(unique) <= 2 and not more:
        return " and ".join(unique)
    return f"{unique[0]} and {len(unique) - 1}{'+' if more else ''} others"


def alert_for(label: str, unread: Unread) -> Alert:
    """The one alert a room's unread batch becomes (see the module docstring)."""
    lead = unread.first_for_me or unread.first_kept
    assert lead is not None
    if unread.count == 1:
        return Alert(lead.room, lead.seq, f"{display_text(lead.sender.name)} in {label}", preview_text(lead.parts))
    names = [display_text(lead.sender.name)] + [display_text(name) for name in reversed(unread.senders)]
    for_me = f", {unread.for_me} for you" if unread.for_me else ""
    return Alert(lead.room, lead.seq, label, f"{senders_phrase(names, unread.more_senders)}: {unread.count} new{for_me}")


class AttentionNotifier(QObject):
    alert = Signal(object)  # Alert

    def __init__(
        self,
        bridge: SessionBridge,
        hub: Callable[[], str],
        settings: Callable[[], AttentionSettings],
        label: Callable[[str], str],
        on_screen: Callable[[str], bool],
        parent: QObject | None = None,
        quiet_ms: int | None = None,
        max_wait_ms: int | None = None,
        raised_need: Callable[[str], bool] = lambda _message_id: False,
    ) -> None:
        """``bridge`` follows one hub's session; ``hub()`` names that hub as the settings do (its
        rooms' levels are that hub's own). A message that ``raised_need`` (a Needs you item, by
        its id) is told by ``needs_alerts``, not here."""
        super().__init__(parent)
        self._raised_need = raised_need
        self._bridge = bridge
        self._hub = hub
        self._settings = settings
        self._label = label
        self._on_screen = on_screen
        self._batches: dict[str, RoomBatch] = {}  # room -> from others, since the last alert
        self._kinds: dict[str, str] = {}
        self._quiet = QTimer(self, singleShot=True, interval=QUIET_MS if quiet_ms is None else quiet_ms)
        self._deadline = QTimer(self, singleShot=True, interval=MAX_WAIT_MS if max_wait_ms is None else max_wait_ms)
        self._quiet.timeout.connect(self._flush_if_live)
        self._deadline.timeout.connect(self._flush_if_live)
        bridge.messagesStored.connect(self._stored)
        bridge.roomsChanged.connect(self._rooms_changed)
        bridge.stateChanged.connect(self._state_changed)
        bridge.sessionChanged.connect(self._session_changed)

    @property
    def pending_rooms(self) -> list[str]:
        return sorted(self._batches)

    def for_me(self, message: StoredMessage) -> bool:
        """Addressed to the human, by the one rule the @ badge uses (``protocol/mentions.py``)."""
        bridge = self._bridge
        return mentions_human(
            message.sender.id, message.parts, message.mentions or (), bridge.agent_id, bridge.name, bridge.role
        )

    def keeps(self, message: StoredMessage, settings: AttentionSettings) -> bool:
        """Whether ``message`` (from someone else) may notify, by its room's level or the rules."""
        level = settings.level(self._hub(), message.room)
        if level is Level.NONE:
            return False
        if level is Level.ALL:
            return True
        bridge = self._bridge
        if level is Level.FOR_ME:
            return self.for_me(message)
        facts = MessageFacts.of(
            message, self._kinds.get(message.room, "channel"), bridge.agent_id, bridge.name, bridge.role or None
        )
        return decide(settings.rules, facts)

    def hint(self, room: str, hint: Hint) -> None:
        """A warning about the room's agents (a loop), shown at once if the room's level
        and the rules keep it (its part kind is the hint's kind)."""
        settings = self._settings()
        level = settings.level(self._hub(), room)
        if settings.quiet() or self._on_screen(room) or level in (Level.NONE, Level.FOR_ME):
            return
        facts = MessageFacts(
            room,
            self._kinds.get(room, "channel"),
            hint.agents[0],
            "",
            frozenset({hint.kind}),
            frozenset(),
            hint.text,
            False,
            False,
        )
        if level is Level.ALL or decide(settings.rules, facts):
            self.alert.emit(Alert(room, hint.seq, f"{self._label(room)}: agents may be in a loop", hint.text))

    def _stored(self, room: str, messages: Sequence[StoredMessage], _live: bool) -> None:
        settings = self._settings()
        if settings.quiet() or self._on_screen(room):
            return
        me = self._bridge.agent_id
        others = [m for m in messages if m.sender.id != me]
        if not others:
            return
        self._batches.setdefault(room, RoomBatch()).add(others)  # weighed when announced
        self._quiet.start()
        if not self._deadline.isActive():
            self._deadline.start()

    def _rooms_changed(self, rooms: Sequence[RoomInfo]) -> None:
        self._kinds = {room.name: room.kind for room in rooms}

    def _state_changed(self, event: StateChanged) -> None:
        if event.state is ConnectionState.LIVE and self._batches:
            self._quiet.start()  # the catch-up is over once the line goes quiet
            self._deadline.start()

    def _session_changed(self) -> None:
        self._batches.clear()
        self._kinds.clear()
        self._quiet.stop()
        self._deadline.stop()

    def _flush_if_live(self) -> None:
        if not self._bridge.is_live:
            return  # still catching up: the batch grows until the line is live and quiet
        self._quiet.stop()
        self._deadline.stop()
        batches, self._batches = self._batches, {}
        if self._bridge.store is not None and batches:
            self._bridge.tasks.spawn("notifications", self._announce(batches))

    async def _announce(self, batches: dict[str, RoomBatch]) -> None:
        store = self._bridge.store
        settings = self._settings()
        for room, batch in sorted(batches.items()):
            if store is None or store is not self._bridge.store:
                return  # the session went (the window quits, a hub is removed): its store is closing
            try:
                cursor = await store.call(LocalStore.cursor, room)
                if settings.quiet() or self._on_screen(room):
                    continue
                unread = await self._weigh(store, room, batch, cursor, settings)
            except StoreError:
                return  # a damaged cache: the session says so; nothing reliable to announce
            if unread.first_kept and store is self._bridge.store:
                self.alert.emit(alert_for(self._label(room), unread))

    async def _weigh(
        self, store: StoreWorker, room: str, batch: RoomBatch, cursor: int, settings: AttentionSettings
    ) -> Unread:
        """What of ``batch`` lies above ``cursor``, as its alert needs it: every message for the
        human, the first one kept (see the module docstring); a slice at a time, what it let go
        read back from the store."""
        unread = Unread()
        if batch.let_go is not None:
            after, last = max(cursor, batch.let_go[0] - 1), batch.let_go[1]
            while after < last and store is self._bridge.store:
                piece = await store.call(LocalStore.messages_after, room, after, WEIGH_SLICE)
                self._weigh_piece(unread, [m for m in piece if m.seq <= last and m.sender.id != self._bridge.agent_id], settings)
                after = piece[-1].seq if len(piece) == WEIGH_SLICE else last
        held = [m for m in batch.held if m.seq > cursor and not batch.in_let_go(m.seq)]
        for start in range(0, len(held), WEIGH_SLICE):
            self._weigh_piece(unread, held[start:start + WEIGH_SLICE], settings)
            await asyncio.sleep(0)
        return unread

    def _weigh_piece(self, unread: Unread, piece: list[StoredMessage], settings: AttentionSettings) -> None:
        for message in piece:
            if self._raised_need(message.id):
                continue
            unread.count += 1
            unread.sent_by(message.sender.name)
            if self.for_me(message):
                unread.for_me += 1
                unread.first_for_me = unread.first_for_me or message
            if unread.first_kept is None and self.keeps(message, settings):
                unread.first_kept = message
