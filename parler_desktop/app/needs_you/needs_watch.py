"""NeedsWatch: one hub's "Needs you" items, kept from its session's events (design.md §4b).

On a new session it reads what the human did (the decisions) and then every message stored until
then in seq order, a page a store call, into a fresh ``NeedsLedger`` (so a fresh cache recomputes
the items from the hub's history). That scan, and the first ask for join requests once live,
wait for every hub's catch-up to be over (``HubNeeds.every_hub_caught_up``): on the store's
thread the scan held up the catch-up's own reads, and with the asks (a request per channel room)
took the window's thread from every hub's pulls and writes (the ledger takes messages in any
order, so what is stored meanwhile is not missed). Each message
stored since, and from then on each stored message, cursor, room list and outbox
change is taken in as the session announces it, never by rescanning. Join requests are asked of
the hub for each channel room (a room that refuses is not ours and is not asked again), on a
timer while live. An answer the human posted is "queued" until the hub has it; the item then
leaves (its reply is stored, or the outbox says sent).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from operator import attrgetter

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.needs_you.needs_rules import SILENT_AFTER_SECS, Decision, Me, NeedItem, NeedsLedger, visible
from parler_desktop.app.needs_you.unblock_stats import Answered, start_of_day
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.client.events import ConnectionState, OutboxItem, StateChanged
from parler_desktop.protocol.values import RoomInfo, StoredMessage
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.store.outbox_item import OutboxStatus

SCAN_PAGE = 2000
NAME, KIND = attrgetter("name"), attrgetter("kind")
REFRESH_MS = 100  # stored messages are taken in at once, the visible items worked out at most this often
CATCH_UP_REFRESH_MS = 500  # and while a catch-up stores pages: each change repaints the sidebar (its heading's count)
CHECK_MS = 30_000  # silence is looked at this often
JOIN_POLL_MS = 15_000


class NeedsWatch(QObject):
    changed = Signal()

    def __init__(
        self, bridge: SessionBridge, refresh_soon: Callable[[NeedsWatch, int], None],
        every_hub_caught_up: Callable[[], Awaitable[None]], clock: Callable[[], float] = time.time,
        parent: QObject | None = None, join_poll_ms: int = JOIN_POLL_MS, silent_after: float = SILENT_AFTER_SECS,
    ) -> None:
        """``refresh_soon(watch, ms)``: the items of ``watch`` are to be worked out again within
        ``ms`` (``HubNeeds`` does it for every hub at once, and announces them once);
        ``every_hub_caught_up()``: until no hub's line is on its way up (module docstring)."""
        super().__init__(parent)
        self._refresh_soon = refresh_soon
        self._every_hub_caught_up = every_hub_caught_up
        self._bridge = bridge
        self.clock = clock
        self.silent_after = silent_after  # the human's setting: a silence on their work needs them after this
        self.ledger = NeedsLedger(Me("", "", None), silent_after)
        self.decisions: dict[str, Decision] = {}
        self.queued: set[str] = set()  # keys with an answer in the outbox the hub has not got yet
        self.answered: list[Answered] = []  # today's (and since), for time to unblock
        self.ready = False  # the store was read: the items are the whole truth
        self._not_owned: set[str] = set()
        self._polling = False
        self._shown: list[NeedItem] = []
        self._by_room: dict[str, list[NeedItem]] = {}  # the shown items of each room (every sidebar row asks)
        self._by_agent: dict[str, list[NeedItem]] = {}  # the shown items of each agent (every Agents view row asks)
        self._timer = QTimer(self, interval=CHECK_MS, timeout=self.refresh)
        self._timer.start()
        self._join_timer = QTimer(self, interval=join_poll_ms, timeout=self.poll_join_requests)
        self._join_timer.start()
        bridge.sessionChanged.connect(self._session_changed)
        bridge.messagesStored.connect(self._stored)
        bridge.cursorChanged.connect(self._cursor)
        bridge.roomsChanged.connect(self._rooms)
        bridge.outboxChanged.connect(self._outbox)
        bridge.stateChanged.connect(self._state)
        if bridge.session is not None:
            self._session_changed()

    # -- asking --------------------------------------------------------------------------------
    def items(self) -> list[NeedItem]:
        """The items open now and not dismissed or snoozed, oldest first."""
        return self._shown

    def count(self) -> int:
        return len(self._shown)

    def in_room(self, room: str) -> list[NeedItem]:
        """The room's items, oldest first."""
        return self._by_room.get(room, [])

    def of_agent(self, agent_id: str) -> list[NeedItem]:
        """The agent's items, oldest first."""
        return self._by_agent.get(agent_id, [])

    def rooms(self) -> set[str]:
        """The rooms with an item."""
        return set(self._by_room)

    def set_silent_after(self, seconds: float) -> None:
        """The human moved the silence threshold: the items it ends or starts are announced, and
        one it ends is not an answer (no time to unblock is counted for it)."""
        self.silent_after = self.ledger.silent_after = seconds
        self._shown = []
        self.refresh(announce=True)

    def refresh(self, announce: bool = False) -> None:
        """Work out the visible items again (at the clock's time); announce a change (or, with
        ``announce``, in any case)."""
        if self.work_out(announce):
            self.changed.emit()

    def work_out(self, changed: bool = False) -> bool:
        """Work out the visible items again (at the clock's time), announcing nothing; whether
        they changed (or ``changed`` already). An item gone for anything but a snooze was
        answered (``unblock_stats``)."""
        now = self.clock()
        shown = visible(self.ledger.open_items(now), self.decisions, now)
        if self.ready and self._shown:
            kept = {item.key for item in shown}
            self._answered([item for item in self._shown if item.key not in kept and not self._snoozed(item.key, now)], now)
        changed = changed or [(i.key, i.text) for i in shown] != [(i.key, i.text) for i in self._shown]
        self._shown = shown
        self._by_room, self._by_agent = {}, {}
        for item in shown:
            self._by_room.setdefault(item.room, []).append(item)
            self._by_agent.setdefault(item.agent_id, []).append(item)
        return changed

    def _snoozed(self, key: str, now: float) -> bool:
        decision = self.decisions.get(key)
        return decision is not None and decision.action != "dismissed" and decision.hides(now)

    def _answered(self, items: list[NeedItem], now: float) -> None:
        if not items:
            return
        done = [Answered(i.key, i.agent_name, i.room, i.kind.value, i.since, now) for i in items]
        self.answered.extend(done)
        rows = [(d.key, d.agent, d.room, d.kind, d.since, d.answered_at) for d in done]
        self._bridge.keep("keep answered items", LocalStore.save_needs_answered, rows)

    # -- what the human did -------------------------------------------------------------------
    def decide(self, decision: Decision) -> None:
        """Dismiss or snooze an item; kept in the hub's store."""
        self.decisions[decision.key] = decision
        self.refresh()
        row = (decision.key, decision.action, decision.until, decision.agent, decision.after_seq)
        self._bridge.keep("keep a decision", LocalStore.save_needs_decision, row)

    def newest_seq(self) -> int:
        return self.ledger.newest_seq

    # -- the session's events -----------------------------------------------------------------
    def _session_changed(self) -> None:
        bridge = self._bridge
        self.ledger = NeedsLedger(Me(bridge.agent_id, bridge.name, bridge.role), self.silent_after)
        self.decisions, self.queued, self._not_owned, self.ready = {}, set(), set(), False
        self.answered = []
        self.refresh()
        if bridge.store is not None:
            bridge.tasks.spawn("needs you", self._read_store(bridge.store))

    async def _read_store(self, store: object) -> None:
        """What the human did and each room's kind and cursor, then the messages stored until
        then (those stored since arrive as the session stores them, with the rooms' kinds known;
        a read overlapping a catch-up otherwise decodes its pages again)."""
        try:
            rows = await store.call(LocalStore.needs_decisions)
            answered = await store.call(LocalStore.needs_answered, start_of_day(self.clock()))
            rooms = await store.call(LocalStore.room_kinds_and_cursors)
            sent = await store.call(LocalStore.sent_posts)
            if store is not self._bridge.store:
                return
            self.decisions = {row[0]: Decision(*row) for row in rows}
            self.answered = [Answered(*row) for row in answered]
            for message_id, reply_to in sent:  # (my posts the cache may not hold yet)
                self.ledger.mine(message_id)
                if reply_to:
                    self.ledger.replied(reply_to)
            for room, (kind, cursor) in rooms.items():
                self.ledger.room_kinds.setdefault(room, kind)
                self.ledger.set_cursor(room, cursor)
            stored_before = await store.call(LocalStore.newest_stored_seq)  # (taken once the kinds are known: see above)
            await self._every_hub_caught_up()
            if store is not self._bridge.store:
                return
            after = 0
            while True:
                page = await store.call(LocalStore.messages_in_order, after, stored_before, SCAN_PAGE)
                if store is not self._bridge.store:
                    return
                self._observe(page)
                if len(page) < SCAN_PAGE:
                    break
                after = page[-1].seq
        except StoreError:
            pass  # the session reports a damaged cache; the items then start from what arrives
        if store is self._bridge.store:
            self._shown, self._by_room, self._by_agent = [], {}, {}  # what showed while the store was read was not answered since
            self.ready = True
            self.refresh(announce=True)

    def _observe(self, messages: tuple[StoredMessage, ...] | list[StoredMessage]) -> None:
        ended: list[str] = []
        ledger, me = self.ledger, self.ledger.me.agent_id
        snoozes = [d for d in self.decisions.values() if d.action == "until_speaks"]  # (once a batch: a wake's are long)
        for message in messages:
            ledger.observe(message)
            if snoozes:
                ended += ledger.poster_spoke(message.sender.id, message.seq, snoozes)
            if message.reply_to and message.sender.id == me:
                self.queued.discard(message.reply_to)
        if ended:
            for key in ended:
                self.decisions.pop(key, None)
            self._bridge.keep("end snoozes", LocalStore.drop_needs_decisions, ended)

    def _state(self, event: StateChanged) -> None:
        if event.state is ConnectionState.LIVE:
            self._bridge.tasks.spawn("join requests", self._poll_once_caught_up())

    async def _poll_once_caught_up(self) -> None:
        await self._every_hub_caught_up()
        self.poll_join_requests()

    def _stored(self, _room: str, messages: tuple[StoredMessage, ...], live: bool) -> None:
        self._observe(messages)
        self._refresh_soon(self, REFRESH_MS if live else CATCH_UP_REFRESH_MS)  # a wake's pages: one refresh for those stored meanwhile

    def _cursor(self, room: str, cursor: int) -> None:
        self.ledger.set_cursor(room, cursor)
        self.refresh()

    def _rooms(self, rooms: tuple[RoomInfo, ...]) -> None:
        listed = dict(zip(map(NAME, rooms), map(KIND, rooms)))  # (100,000 rooms: at C speed)
        for gone in self.ledger.room_kinds.keys() - listed.keys():
            self.ledger.forget_room(gone)
            self.ledger.set_join_requests(gone, ())
        new = listed.keys() - self.ledger.room_kinds.keys()
        self.ledger.room_kinds = listed
        self.refresh()
        if new:  # (the room list is listed again often; a new room may be one we own)
            self.poll_join_requests()

    def _outbox(self, item: OutboxItem) -> None:
        if item.status is OutboxStatus.SENT and item.message_id:
            self.ledger.mine(item.message_id)
        if item.reply_to is None:
            self.refresh()
            return
        if item.status is OutboxStatus.PENDING:
            self.queued.add(item.reply_to)
        else:  # sent (the hub has it: the item leaves) or failed (the item stays, unanswered)
            self.queued.discard(item.reply_to)
            if item.status is OutboxStatus.SENT:
                self.ledger.replied(item.reply_to)
        self.refresh(announce=True)  # "answer queued" shows or goes, even when the items are the same

    # -- join requests ------------------------------------------------------------------------
    def poll_join_requests(self) -> None:
        if self._bridge.is_live and not self._polling:
            self._polling = True
            self._bridge.tasks.spawn("join requests", self._poll(self._bridge.session))

    async def _poll(self, session: object) -> None:
        try:
            for room, kind in list(self.ledger.room_kinds.items()):
                if kind != "channel" or room in self._not_owned:
                    continue
                try:
                    requests = await self._bridge.join_requests(room, urgent=False)
                except HubRefused as error:
                    if not error.is_transient:
                        self._not_owned.add(room)
                    continue
                if session is not self._bridge.session:
                    return
                self.ledger.set_join_requests(room, requests)
        except (ConnectionLost, SessionClosed, BadReply):
            pass  # asked again on the next tick
        finally:
            self._polling = False
        self.refresh()

    def joined_or_denied(self, item: NeedItem) -> None:
        """A join request was resolved here: it leaves at once (the next poll agrees)."""
        self.ledger.drop_join(item.key)
        self.refresh()
