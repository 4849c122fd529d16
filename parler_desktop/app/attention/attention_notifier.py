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
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.store.codec import preview_text

QUIET_MS = 1500
MAX_WAIT_MS = 5000
WEIGH_SLICE = 200  # messages weighed between two turns of the window's loop


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
    new: list[StoredMessage] = field(default_factory=list)  # from others, since the last alert
    kept: list[StoredMessage] = field(default_factory=list)  # of those, the first that may notify
    for_me: list[StoredMessage] = field(default_factory=list)  # of those, addressed to me


def senders_phrase(names: Sequence[str]) -> str:
    """ "planner", "planner and alice", "planner and 2 others" (the first name leads)."""
    unique = list(dict.fromkeys(names))
    if len(unique) <= 2:
        return " and ".join(unique)
    return f"{unique[0]} and {len(unique) - 1} others"


def alert_for(label: str, batch: RoomBatch) -> Alert:
    """The one alert a room's batch becomes (see the module docstring)."""
    lead = batch.for_me[0] if batch.for_me else batch.kept[0]
    if len(batch.new) == 1:
        return Alert(lead.room, lead.seq, f"{display_text(lead.sender.name)} in {label}", preview_text(lead.parts))
    names = [display_text(lead.sender.name)] + [display_text(m.sender.name) for m in reversed(batch.new)]
    for_me = f", {len(batch.for_me)} for you" if batch.for_me else ""
    return Alert(lead.room, lead.seq, label, f"{senders_phrase(names)}: {len(batch.new)} new{for_me}")


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
        self._batches: dict[str, list[StoredMessage]] = {}  # room -> from others, since the last alert
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
        self._batches.setdefault(room, []).extend(others)  # weighed when announced
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

    async def _announce(self, batches: dict[str, list[StoredMessage]]) -> None:
        store = self._bridge.store
        settings = self._settings()
        for room, new in sorted(batches.items()):
            if store is None or store is not self._bridge.store:
                return  # the session went (the window quits, a hub is removed): its store is closing
            try:
                cursor = await store.call(LocalStore.cursor, room)
            except StoreError:
                return  # a damaged cache: the session says so; nothing reliable to announce
            if settings.quiet() or self._on_screen(room):
                continue
            unread = await self._weigh([m for m in new if m.seq > cursor and not self._raised_need(m.id)], settings)
            if unread.kept and store is self._bridge.store:
                self.alert.emit(alert_for(self._label(room), unread))

    async def _weigh(self, unread: list[StoredMessage], settings: AttentionSettings) -> RoomBatch:
        """``unread`` as its alert needs it: every message for the human, the first one kept
        (see the module docstring); a slice at a time."""
        batch = RoomBatch(unread)
        for start in range(0, len(unread), WEIGH_SLICE):
            piece = unread[start:start + WEIGH_SLICE]
            batch.for_me.extend(m for m in piece if self.for_me(m))
            if not batch.kept:
                batch.kept.extend(next(([m] for m in piece if self.keeps(m, settings)), []))
            await asyncio.sleep(0)
        return batch
