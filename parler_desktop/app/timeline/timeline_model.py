"""TimelineModel: a window onto one room's stored messages, plus the human's unsent posts.

Opening a room reads one page from the store (so a room of 100,000 messages opens as fast as
one of 200): the newest page, or — when more than a page is unread — the page that starts at
the first unread message, so the reader starts where they left off without the whole backlog
being read in. Older pages are read when the view asks (scrolling up), newer ones likewise
(scrolling down, ``has_newer``); ``load_latest`` goes back to the newest page. Rows are the
loaded stored messages, ascending by seq, followed by outbox rows (pending / failed / sent but
not yet stored). New messages are appended at once in a quiet room and once a frame in a burst
(``append_pacer``), and while the reader follows the bottom the window is trimmed from the top so
it never grows without end.

Pages are read beside the store's writes (``StoreWorker.read``), so one may miss a write queued
before it was asked for: what is stored from the moment the room opens comes by ``messagesStored``
(and the outbox by ``outboxChanged``) and goes where its seq belongs, once.

``read_marker`` is the hub cursor when the room was opened: the "new messages" divider sits
above the first row with a higher seq written by someone else (the human's own posts are never
unread). A post of the human's joins the stored rows at its seq as soon as the hub has given it
one, so it never sits below messages that came after it. What the rows say is ``TimelineRows``.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, Signal

from parler_desktop.app.timeline.append_pacer import AppendPacer
from parler_desktop.app.timeline.hub_history import older_from_hub
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.timeline.message_reading import MessageReading
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.app.timeline.timeline_rows import TimelineRows
from parler_desktop.app.timeline.waiting_messages import WaitingMessages
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.client.events import OutboxItem, OutboxStatus
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.store import LocalStore

log = logging.getLogger(__name__)

# Rows read per page: opening a room lays out every row it reads (in bench/bench_ui.py 200 rows
# held the window for 44-80 ms, 60 rows for 19-26 ms); the view reads more while they do not fill it.
PAGE_SIZE = 60
# Rows kept while following the bottom (older ones are read again on scroll-up), so a room that
# never pauses does not grow without end. Rows go TRIM_ROWS at a time: the view neither lays out
# nor paints for rows removed above it (``RowListView``), but each removal is a round of signals.
FOLLOW_WINDOW, TRIM_ROWS = 120, 60
# Rows loaded at most while the reader is up in the history: newer messages past them are counted
# (the "new messages" pill) and read in when the reader scrolls down, as past a window opened at
# the first unread; a window left scrolled up for a week held every message since (issue 42). Five pages: each
# row laid out holds its body (~26 KB of Qt's heap), and 2,000 of them fragmented the C heap for good (a room of
# 100,000 scrolled back to its start and closed: 1.19x the RSS before opening it; 1.10-1.11x at 600, 1.07x at 300).
MAX_ROWS = 300
CONTEXT_ROWS = 20  # read messages kept above the first unread when a room opens there


OpeningPage = tuple[int, int, int, list[Any], list[OutboxItem], bool]


def _opening_page(store: LocalStore, room: str, landing: str | int) -> OpeningPage:
    """On the store's thread, in one call (one consistent read, one round trip) of few
    statements: where the room opens, its message count and cursor, that page, the posts still
    in the outbox, and whether the cache pruned messages older than the page (``hub_history.py``)."""
    place = store.room_place(room)
    first_unread = place.total - place.after_cursor
    # The newest page holds every unread message and a read one above them only when fewer
    # than a page are unread: at exactly a page it starts at the first unread, where the model
    # cannot tell it from one with more above, and the room opened at the bottom (issue 32.1).
    at_unread = landing == "unread" and place.total - first_unread >= PAGE_SIZE
    offset = max(0, first_unread - CONTEXT_ROWS) if at_unread else max(0, place.total - PAGE_SIZE)
    if isinstance(landing, int):  # one message, with a little context above it
        offset = min(offset, max(0, store.row_of_seq(room, landing - 1) - CONTEXT_ROWS))
    messages = store.messages_slice(room, offset, PAGE_SIZE, place.total)
    pruned = offset == 0 and bool(messages) and store.pruned_span_before(room, messages[0].seq) is not None
    return offset, place.total, place.cursor, messages, _unstored_posts(store, room, place.sync_mark or 0), pruned


def _unstored_posts(store: LocalStore, room: str, sync_mark: int) -> list[OutboxItem]:
    """The human's posts of ``room`` not stored as messages: waiting, failed, or sent with their
    copy still to be stored (a catch-up stores it after the room's pages), so a post never
    disappears from the room when it is opened again. A sent post at or below the sync mark is
    stored: a pull covered it."""
    return [
        item for item in store.outbox_unstored(room, sync_mark)
        if item.status is not OutboxStatus.SENT or item.message_id is None or store.message_by_id(room, item.message_id) is None
    ]


def _page_before(store: LocalStore, room: str, seq: int) -> tuple[list[Any], int, bool]:
    """On the store's thread: the page before ``seq``, the row its first message is at, and
    whether the cache pruned messages older than it."""
    messages = store.messages_before(room, seq, PAGE_SIZE)
    before = store.row_of_seq(room, messages[0].seq - 1) if messages else 0
    return messages, before, before == 0 and store.pruned_span_before(room, messages[0].seq if messages else seq) is not None


class TimelineModel(TimelineRows):
    roomLoaded = Signal(str)  # the newest page of the room is in
    olderLoaded = Signal(int)  # that many rows were inserted at the top
    newerLoaded = Signal(int)  # that many rows of the next page were appended at the bottom
    appended = Signal(int)  # that many stored messages from others were appended at the bottom
    readUpTo = Signal()  # the shown room's hub cursor moved (read here or by another client)

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(MessageReading(lambda: (bridge.agent_id, bridge.name, bridge.role), lambda: bridge.is_live), parent)
        self._bridge = bridge
        self.room: str | None = None
        self._generation = 0
        self._loading = False
        self._loading_older = False
        self._paging = False  # a page is being read from the store (``_read_page``)
        self._older_task: asyncio.Task | None = None
        self._hub_older = True  # the hub may hold older messages a catch-up left there (``load_older_from_hub``)
        self._asking_hub = False
        self.has_newer = False  # stored messages after the loaded window (it opened at the first unread)
        self.older_at_hub = False  # the cache pruned messages older than the window: the hub has them
        # Where the view goes once loaded: "unread" (the read cursor), "newest", or a seq (that message).
        self.landing: str | int = "unread"
        self._incoming = WaitingMessages()
        self._shown_early: set[int] = set()  # seqs taken as they arrived whose store write is to come
        self._outbox_during_load: dict[str, OutboxItem] = {}  # newest state per post, applied after the load
        self.following = True  # the view is pinned to the bottom (set by the view)
        self.cursor = 0  # the shown room's hub cursor now (read_marker stays where the room opened)
        self._pacer = AppendPacer(self._flush_incoming, self)
        # Called with each arriving row before it goes in: the view lays out its body then, so an
        # append can stop at its deadline (``append_pacer``) with the costly part of its rows done.
        self.prepare_row: Callable[[TimelineEntry], None] = lambda _entry: None
        bridge.on_arrival(self._messages_arrived)
        bridge.messagesStored.connect(self._messages_stored)
        bridge.outboxChanged.connect(self._outbox_changed)
        bridge.sessionChanged.connect(self._session_changed)
        bridge.cursorChanged.connect(self._cursor_changed)

    @property
    def tasks(self) -> TaskSupervisor:
        """The window's task owner, for views that start loads (jump to first unread)."""
        return self._bridge.tasks

    @property
    def loading(self) -> bool:
        return self._loading

    # -- loading ----------------------------------------------------------------------------
    def open_room(self, room: str | None, landing: str | int = "unread") -> None:
        """Show ``room`` (or nothing): reset, then read its page in the background; ``landing``
        "newest" reads the newest page whatever is unread, a seq the page holding that message."""
        self._generation += 1
        self.beginResetModel()
        self.room, self.landing, self.has_newer, self.older_at_hub = room, landing, False, False
        self._stored, self._outbox, self._offset, self.read_marker, self.cursor = [], [], 0, 0, 0
        self._incoming.clear()
        self._shown_early.clear()
        self._outbox_during_load.clear()
        self._loading_older, self._paging, self._hub_older, self._asking_hub = False, False, True, False
        self.endResetModel()
        self._loading = room is not None and self._bridge.store is not None
        if self._loading:
            page = self._bridge.store.read_soon(_opening_page, room, self.landing)  # read while the click is painted
            self._bridge.tasks.spawn(f"open {room}", self._load_newest(room, self._generation, page))

    def load_latest(self) -> None:
        """Back to the newest page (the reader went to the bottom of a window opened further up)."""
        self.open_room(self.room, landing="newest")

    async def _load_newest(self, room: str, generation: int, page: Awaitable[OpeningPage]) -> None:
        offset, total, cursor, messages, outbox, pruned = await page
        if generation != self._generation:
            return
        my_id, my_name = self._bridge.agent_id, self._bridge.name
        self.beginResetModel()
        self._offset = offset
        self.has_newer = offset + len(messages) < total
        self.older_at_hub = pruned
        self._stored = [TimelineEntry.from_message(m, my_id) for m in messages]
        self._outbox = [TimelineEntry.from_outbox(item, my_id, my_name) for item in outbox]
        self.read_marker = self.cursor = int(cursor or 0)
        self.endResetModel()
        self._loading = False
        self.roomLoaded.emit(room)
        if self._incoming:
            self._pacer.request()
        changed, self._outbox_during_load = self._outbox_during_load, {}
        for item in changed.values():
            self._outbox_changed(item)

    @property
    def has_older(self) -> bool:
        return self._offset > 0 or self.older_at_hub

    def load_older(self) -> bool:
        """Read the page before the loaded window (from the hub past what the cache keeps);
        False when there is none or one is on its way."""
        if self._loading or self._loading_older or not self.has_older or self.room is None:
            return False
        self._loading_older = True
        self._older_task = self._bridge.tasks.spawn("older history", self._load_older(self.room, self._generation))
        return True

    def load_older_from_hub(self) -> None:
        """The reader reached the oldest stored message: ask the session for the page a catch-up
        left on the hub just below it (sync.py reads a long room's newest messages, not all of
        them). It is stored and announced, and goes in where its seqs belong; asked again on the
        next scroll up until the session says none is left."""
        if self._hub_older and not self._asking_hub and self._stored and self.room is not None and not self._loading:
            self._asking_hub = True
            self._bridge.tasks.spawn("older history from the hub", self._pull_older(self.room, self._generation))

    async def _load_older(self, room: str, generation: int) -> None:
        """Page back by seq, not by row: rows shift when a gap fill lands before the window."""
        first_seq = self._stored[0].seq or 0 if self._stored else 0
        try:
            if self._offset == 0:
                (messages, pruned), before = await older_from_hub(self._bridge, room, first_seq), 0
            else:
                messages, before, pruned = await self._read_page(generation, _page_before, room, first_seq)
        finally:
            if generation == self._generation:
                self._loading_older = False
        if generation != self._generation:
            return
        my_id = self._bridge.agent_id
        entries = [TimelineEntry.from_message(m, my_id) for m in messages if m.seq < first_seq]
        self._offset, self.older_at_hub = before, pruned
        if not entries:
            return
        self.beginInsertRows(QModelIndex(), 0, len(entries) - 1)
        self._stored[:0] = entries
        self._end_insert_rows(0)
        self._trim_newest()
        self.olderLoaded.emit(len(entries))

    def _trim_newest(self) -> None:
        """Past ``MAX_ROWS`` on the way up, the newest rows go (read again from the store on the
        way down, ``has_newer``): a room of 10,000 scrolled back to its start held them all,
        with their laid-out bodies (issue 42)."""
        excess = len(self._stored) - MAX_ROWS
        if excess <= 0:
            return
        first = len(self._stored) - excess
        self.beginRemoveRows(QModelIndex(), first, first + excess - 1)
        del self._stored[first:]
        self.has_newer = True
        self.endRemoveRows()

    async def _pull_older(self, room: str, generation: int) -> None:
        count = 0
        try:
            if generation == self._generation and self._stored:  # (the task runs later: another room, or none, may be shown)
                count = await self._bridge.pull_older(room, self._stored[0].seq or 0)
        except (ConnectionLost, HubRefused, BadReply, SessionClosed) as error:
            log.info("older messages of %s not read from the hub: %s", room, error)
        finally:
            if generation == self._generation:
                self._asking_hub, self._hub_older = False, count > 0

    def load_newer(self) -> bool:
        """Read the page after the loaded window; False when there is none or one is on its way."""
        if self._loading or self._loading_older or not self.has_newer or self.room is None or not self._stored:
            return False
        self._loading_older = True  # one page load at a time, either way
        self._bridge.tasks.spawn("newer history", self._load_newer(self.room, self._generation))
        return True

    async def _load_newer(self, room: str, generation: int) -> None:
        try:
            messages = await self._read_page(generation, LocalStore.messages_after, room, self.newest_seq, PAGE_SIZE)
        finally:
            if generation == self._generation:
                self._loading_older = False
        if generation != self._generation:
            return
        self.has_newer = len(messages) == PAGE_SIZE
        my_id = self._bridge.agent_id
        entries = [TimelineEntry.from_message(m, my_id) for m in messages if m.seq > self.newest_seq]
        if entries:
            at = len(self._stored)
            self.beginInsertRows(QModelIndex(), at, at + len(entries) - 1)
            self._stored.extend(entries)
            self._end_insert_rows(at)
            self._trim_oldest(len(self._stored) - MAX_ROWS)  # (on the way down: as _trim_newest on the way up)
        self.newerLoaded.emit(len(entries))

    async def _read_page(self, generation: int, read: Callable[..., Any], *args: Any) -> Any:
        """``read(store, *args)`` beside the store's writes (``StoreWorker.read``): it may hold a
        message announced as stored meanwhile, or not, so those wait (``_flush_incoming``) and go
        in after the page, each where its seq belongs, once."""
        self._paging = True
        try:
            return await self._bridge.store.read(read, *args)
        finally:
            if generation == self._generation:
                self._paging = False
                if self._incoming:
                    self._pacer.request_later()  # (once the caller has put the page in)

    async def load_back_to_id(self, message_id: str) -> int | None:
        """Page back until the message ``message_id`` is loaded; its row, or None if never found."""
        generation = self._generation
        while generation == self._generation and self.row_of_id(message_id) is None and self._offset > 0:
            if not self.load_older() or self._older_task is None:
                return None
            await asyncio.shield(self._older_task)
        return self.row_of_id(message_id) if generation == self._generation else None

    # -- live changes -----------------------------------------------------------------------
    def _cursor_changed(self, room: str, cursor: int) -> None:
        if room == self.room and cursor > self.cursor:
            self.cursor = cursor
            self.readUpTo.emit()

    @property
    def all_read(self) -> bool:
        """Nothing from others is left unread: no newer page waits and the cursor has reached
        the newest loaded message that is not the human's own."""
        if self.has_newer:
            return False
        newest_from_others = next((entry.seq or 0 for entry in reversed(self._stored) if not entry.mine), 0)
        return newest_from_others <= self.cursor

    def _session_changed(self) -> None:
        self._expanded.clear()
        self._open_cards.clear()
        self.open_room(None)

    def _messages_arrived(self, room: str, messages: Sequence[Any]) -> None:
        """Pushed messages not stored yet: shown at once (acks wait for the store, see
        ``client/arrivals.py``); their ``messagesStored`` then adds nothing."""
        if room == self.room:
            self._shown_early.update(m.seq for m in messages)
            self._take(messages)

    def _messages_stored(self, room: str, messages: Sequence[Any], live: bool) -> None:
        if room != self.room:
            return
        fresh = [m for m in messages if m.seq not in self._shown_early]
        self._shown_early.difference_update(m.seq for m in messages)
        if fresh:
            self._take(fresh)

    def _take(self, messages: Sequence[Any]) -> None:
        self._incoming.add(messages)
        if not (self._loading or self._paging):
            self._pacer.request()

    def _flush_incoming(self, rows: int, deadline: float) -> tuple[int, bool]:
        """Append up to ``rows`` of the oldest waiting messages, none begun past ``deadline`` but
        the first (see ``append_pacer``); while the window holds the newest messages, each one for
        the bottom is prepared for its view (``prepare_row``) before any goes in. Newer ones go to the bottom
        (or, past a window opened further up, are only counted); gap fills (a lost push fetched
        later, our own post stored after a newer push) where their seq belongs. Returns how many
        were taken, and whether more wait. (A gap fill above the loaded rows goes nowhere: prepared,
        its body stayed in the layout cache, issue 42.)"""
        if self._loading or self._paging:
            return 0, False  # the page being read comes first; it asks again once it is in
        my_id = self._bridge.agent_id
        entries: list[TimelineEntry] = []
        newest = self.newest_seq
        while len(entries) < rows and self._incoming and (not entries or time.perf_counter() < deadline):
            entry = TimelineEntry.from_message(self._incoming.take(1)[0], my_id)
            if not self.has_newer and (entry.seq or 0) > newest:  # (a gap fill may go nowhere: its body would stay laid out)
                self.prepare_row(entry)
            entries.append(entry)
        self._append(entries)
        return len(entries), bool(self._incoming)

    def _append(self, entries: list[TimelineEntry]) -> None:
        ids = {e.message_id for e in entries}
        for row in reversed(range(len(self._outbox))):
            if self._outbox[row].message_id in ids:
                self._remove_outbox_row(row)
        self._place(entries)

    def _place(self, entries: list[TimelineEntry]) -> None:
        """Numbered entries where their seqs belong: older ones fill gaps, newer ones go to the
        bottom (or wait, past a window opened further up), and a window following it is trimmed."""
        newest = self.newest_seq
        for entry in entries:
            if (entry.seq or 0) <= newest:
                self._fill_gap(entry)
        later = [e for e in entries if (e.seq or 0) > newest]
        if not later:
            return
        if not self.following and len(self._stored) + len(later) > MAX_ROWS:
            self.has_newer = True  # (the newest rows are read again from the store)
        if self.has_newer:  # past the loaded window: read in when the reader gets there
            self.appended.emit(sum(1 for e in later if not e.mine))
            return
        first = len(self._stored)
        self.beginInsertRows(QModelIndex(), first, first + len(later) - 1)
        self._stored.extend(later)
        self._end_insert_rows(first)
        self.appended.emit(sum(1 for e in later if not e.mine))
        self._trim_if_following()

    def _fill_gap(self, entry: TimelineEntry) -> None:
        seq = entry.seq or 0
        row = bisect.bisect_left(self._stored, seq, key=lambda e: e.seq or 0)
        if row < len(self._stored) and self._stored[row].seq == seq:
            if self._stored[row].message is None:  # the human's post, shown from the outbox until now
                self._stored[row] = entry
                self.dataChanged.emit(self.index(row), self.index(row))
            return
        if row == 0 and self._offset > 0:
            self._offset += 1  # it belongs before the loaded window: one more row to page back to
            return
        self.beginInsertRows(QModelIndex(), row, row)
        self._stored.insert(row, entry)
        self._end_insert_rows(row)

    def _trim_if_following(self) -> None:
        excess = len(self._stored) - FOLLOW_WINDOW
        if self.following and excess >= TRIM_ROWS:
            self._trim_oldest(excess)

    def _trim_oldest(self, excess: int) -> None:
        """The ``excess`` oldest rows go (read again from the store on the way up)."""
        if excess <= 0:
            return
        self.beginRemoveRows(QModelIndex(), 0, excess - 1)
        del self._stored[:excess]
        self._offset += excess
        self.endRemoveRows()

    def _outbox_changed(self, item: OutboxItem) -> None:
        if item.room != self.room:
            return
        if self._loading:
            self._outbox_during_load[item.client_id] = item
            return
        row = next((i for i, e in enumerate(self._outbox) if e.outbox and e.outbox.client_id == item.client_id), None)
        stored_already = item.message_id is not None and any(e.message_id == item.message_id for e in self._stored[-50:])
        if item.status is OutboxStatus.DISCARDED or stored_already:
            if row is not None:
                self._remove_outbox_row(row)
            return
        entry = TimelineEntry.from_outbox(item, self._bridge.agent_id, self._bridge.name)
        if item.seq is not None:
            if row is not None:
                self._remove_outbox_row(row)
            self._place([entry])  # a post the hub has numbered: where its seq belongs
            return
        if row is None:
            at = self.rowCount()
            self.beginInsertRows(QModelIndex(), at, at)
            self._outbox.append(entry)
            self._end_insert_rows(at)
        else:
            self._outbox[row] = entry
            index = self.index(len(self._stored) + row)
            self.dataChanged.emit(index, index)

    def _remove_outbox_row(self, row: int) -> None:
        at = len(self._stored) + row
        self.beginRemoveRows(QModelIndex(), at, at)
        del self._outbox[row]
        self.endRemoveRows()
