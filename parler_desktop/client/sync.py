"""Catch-up and reconciliation: the local store ends up holding every message, once.

Rules (design.md §3): pushes are doorbells that may be dropped; the record is read with ``since``
pulls, which never move the hub cursor. Per room we keep a *sync mark*: every message with seq at
or below it is stored (persisted in the store, so it survives restarts). A pull pages
forward from the mark until a page comes back short of the page size (the hub had nothing more at
that moment; anything later is pushed to us because we subscribed before pulling, or found by the
next reconciliation), or until a bound (``FIRST_SYNC_MESSAGES``, ``CATCH_UP_MESSAGES``): past it,
the room is read from its newest page and what lies between is left on the hub, read as the human
scrolls up (``history_window.py``), so a hub claiming endless history cannot fill the disk. Pushes
for rooms the hub has not listed are ignored. The pulls do not wait for the pages' writes: ``page_writer.py`` stores them
behind the pulls, several rooms per transaction, each page moving its room's mark as it is
stored; a room's pull is settled (below) once its pages are stored. Pushed messages are stored
at once for speed but do not move the mark, so a push the hub dropped between two stored ones is
still fetched by the next pull. A push is made
searchable just after its write, by the reconciliation loop (store/search.py says why).

Which rooms need a pull, without pulling hundreds of rooms every minute: one ``rooms`` call gives
every room's hub-side unread count. A room is pulled when its unread count differs from the count
seen just before its last complete pull (a new message or a cursor move), when pushes were stored
since its last pull (a burst may have lost some), when someone asked (our own post, a wake), or
when its last complete pull is not known. A pass pulls ``ROOMS_PER_PASS`` of them at most, the
busiest first, and the next pass follows at once: a hub listing 100,000 rooms is live in seconds.

That last knowledge survives restarts, so reopening a store costs a ``rooms`` call instead of a
pull per room: after a complete pull the count is persisted as the room's *settled unread* when
the store agrees with it (stored unread equals it, nothing stored above the mark). The store drops
it whenever the room's messages, cursor, mark or kind change, and the session drops it before
sending an ack (a crash could lose the hub's answer); a restart trusts only what is left.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused
from parler_desktop.client.events import CursorChanged, MessagesPulled, MessagesStored, Notice, PullsOver, RoomsChanged, SessionEvent
from parler_desktop.client.fault_log import FaultLog
from parler_desktop.client.history_window import GAP_KEY, Gap, gaps_from, gaps_text, newest_page, page_below
from parler_desktop.client.inbox import DEFAULT_CAPACITY
from parler_desktop.client.page_writer import PageWriter, PulledChunk, RoomPulled, write_turn
from parler_desktop.client.room_holds import RoomHolds
from parler_desktop.protocol import errors as codes
from parler_desktop.protocol.frames import HubFrame, Pull, Pulled, RoomList, Rooms
from parler_desktop.protocol.values import RoomInfo, StoredMessage
from parler_desktop.store import LocalStore, StoreError, StoreWorker

Emit = Callable[[SessionEvent], None]
log = logging.getLogger(__name__)

T = TypeVar("T")
ROOMS_ON_THE_LOOP_MAX = 2000  # a pass over more rooms sorts them on a worker thread
DEFAULT_PAGE_SIZE = 500  # the hub caps a page at 1000
HELD_PUSHES_MAX = DEFAULT_CAPACITY  # pushes held during a catch-up, as many as the inbox holds
UNLISTED_REFRESH_SECS = 10.0  # pushes for rooms the hub has not listed ask for a ``rooms`` call this often at most
# A catch-up reads a room forward this many messages at most (whole pages), then from its newest page
# (``history_window.py``); what lies between is read as the human scrolls up. A room this store never
# synced keeps its newest page then, not its oldest. A hub claiming endless history filled disk and memory.
FIRST_SYNC_MESSAGES = 1000  # a room this store has never synced: two pages of 500
CATCH_UP_MESSAGES = 10_000  # a room synced before: 20 pages (what the hub's retention keeps at least)
ROOMS_PER_PASS = 100  # rooms a catch-up or reconciliation pulls, the busiest first; the rest in the passes
# that follow at once. A hub listing 100,000 rooms held the window "Catching up…" for the ~3.5 h their pulls take
# within the hub's budget (600 a minute). A room new to the store costs up to 3 requests (its pull, a check
# and its cursor): 100 of them fit in the session's budget (``pacing``), so a catch-up of fewer is not slowed.
PIPELINED_PAGES = 16  # full pages' worth of rooms whose first pages are asked for at once (``first_pages_group``):
# one pull at a time left the hub idle while the reply travelled and was read (bench_hubs.py's wake: 0.95 s -> 0.76 s,
# 8 rooms at once 0.8 s); 16 rooms at a time, a night's short pages still made seven round trips a hub
PIPELINED_ROOMS_MAX = 64  # and at most this many rooms


def first_page_limit(limit: int, unread: int | None) -> int:
    """How many messages a room's first page asks for, pulled ``limit`` a page: its unread
    count (the hub's; None: not listed) and one more, so the page comes back short when that
    is all the room has, and asks the pulled messages' budget (``page_writer.PULLED_MAX``) for
    no more room than it takes (a night's short pages of a hub's rooms go out at once); a full
    page (the room had more: the human's own messages, read ones above the sync mark or, in a
    room never synced, below the cursor) is followed by full-sized ones. A room with none
    counted: ``limit``."""
    return min(limit, unread + 1) if unread else limit


def first_pages_group(limits: Sequence[int], room_for: int, free: int) -> int:
    """How many rooms, whose first pages ask for ``limits`` messages, have them asked for at
    once: as many as ``room_for`` messages hold (``PIPELINED_PAGES`` full pages, or what the
    pulled messages' budget has left), at most ``PIPELINED_ROOMS_MAX`` and ``free`` (the
    requests the request budget lets go now), at least one."""
    count = 0
    for limit in limits:
        room_for -= limit
        if count and (room_for < 0 or count >= min(PIPELINED_ROOMS_MAX, free)):
            break
        count += 1
    return count


def group_by_room(messages: Sequence[StoredMessage]) -> dict[str, list[StoredMessage]]:
    """Messages per room, keeping their (ascending) order."""
    rooms: dict[str, list[StoredMessage]] = {}
    for message in messages:
        rooms.setdefault(message.room, []).append(message)
    return rooms


def check_advancing(room: str, since: int, messages: Sequence[StoredMessage]) -> None:
    """A page pulled ``since`` a seq holds only later seqs, ascending; raises BadReply for one
    that does not advance (pulled again and again, it never ended: ``room_holds.py``)."""
    previous = since
    for message in messages:
        if message.seq <= previous:
            raise BadReply(f"the hub's page of room {room!r} does not advance (#{message.seq} after #{previous})")
        previous = message.seq


def _adopt_rooms(store: LocalStore, rooms: Sequence[RoomInfo]) -> tuple[dict[str, int], dict[str, int | None]]:
    """On the store's thread: the hub's room list stored, then the settled counts (a room whose
    kind changed is unsettled by it) and every listed room's sync mark. One call, not three: each
    call waits its turn on the store's thread, and the window's thread decoding other hubs' pages
    kept it from the interpreter for milliseconds at every turn, while the first pulls waited for
    these (bench_hubs.py's wake: 108 ms from the room list to the first pulls in one run)."""
    store.replace_rooms(rooms)
    return store.settled_unread(), store.sync_marks([room.name for room in rooms])


async def off_the_loop(work: Callable[[], T], rooms: int) -> T:
    """``work()``, on a worker thread when it goes over ``ROOMS_ON_THE_LOOP_MAX`` rooms: a hub
    that lists 100,000 rooms made each pass's filtering and sorting stop the window for 0.3-0.5 s
    (on a thread, the interpreter hands the loop its turn every few milliseconds)."""
    return await asyncio.to_thread(work) if rooms > ROOMS_ON_THE_LOOP_MAX else work()


class RoomSync:
    def __init__(
        self,
        store: StoreWorker,
        commit: Committer,
        emit: Emit,
        clock: Clock,
        *,
        mentions_me: Callable[[StoredMessage], bool],
        show_early: Callable[[Sequence[StoredMessage]], list[StoredMessage]],
        faults: FaultLog,
        page_size: int = DEFAULT_PAGE_SIZE,
        first_sync_messages: int = FIRST_SYNC_MESSAGES,
        catch_up_messages: int = CATCH_UP_MESSAGES,
        on_marked: Callable[[str], None] = lambda room: None,
    ) -> None:
        self._store = store
        self._commit = commit
        self._emit = emit
        self._clock = clock
        self._mentions_me = mentions_me
        self._show_early = show_early  # announces pushes before they are stored (``Arrivals``)
        self._on_marked = on_marked
        self._faults = faults
        self._forward_messages = (first_sync_messages, catch_up_messages)  # read forward at most, then from the newest page
        self.page_size = page_size
        self.rooms: tuple[RoomInfo, ...] = ()
        self._listed_by_name: dict[str, RoomInfo] = {}  # ``rooms`` by name: made once per list, off the loop (a hub may list 100,000)
        self.live = False  # stored messages are flagged live (the session is LIVE)
        self._marks: dict[str, int | None] = {}  # room -> sync mark as stored (None: none yet)
        self._cursor_unknown: set[str] = set()
        self._settled_unread: dict[str, int] = {}
        self._pushed: set[str] = set()
        self._dirty: set[str] = set()
        self._sent: list[tuple[str, int]] = []  # posts another process got accepted, to fetch and store
        self._restored = False  # the settled counts and marks stored by earlier processes were read
        self._holding: dict[str, list[StoredMessage]] | None = None  # pushes held during catch-up
        self._held = 0  # pushes held in this catch-up: at most ``HELD_PUSHES_MAX``
        self._held_over: set[str] = set()  # rooms of pushes not held for it: pulled after the catch-up
        self._hold_all = False  # hold every room's pushes (the room list is not known yet)
        self._full_wanted = False
        self._more_wanted = False  # a pass left rooms to pull (``ROOMS_PER_PASS``): the next takes them, at once
        self._last_push = float("-inf")
        self._page_limits: dict[str, int] = {}  # room -> messages a pull asks for, after a page did not fit
        self._unreadable: set[str] = set()  # not pulled again: a message alone did not fit, or history without end
        self._unlisted_refresh = float("-inf")  # when pushes for an unlisted room last asked for ``rooms``
        self._reader_waits: dict[str, float] = {}  # room -> when the human first waited for its pull
        self._unindexed = False  # pushes or pulled pages were stored for ``index_pending`` to index
        self._holds = RoomHolds(clock)  # rooms whose pull failed on the hub's fault, for a while
        self._kick = asyncio.Event()

    # ---- requests from outside -----------------------------------------------------------

    def mark_dirty(self, room: str) -> None:
        """Pull ``room`` soon (after the pushes to it fall quiet)."""
        self._dirty.add(room)
        self._kick.set()

    def pull_for_reader(self, room: str) -> None:
        """The human has read ``room`` past its sync mark, so the ack waits for a pull: pull it
        ``reader_secs`` from the first such request, even while pushes to it never fall quiet
        (waiting for quiet, a busy room's unread count grew for up to ``interval`` as it was read)."""
        self._reader_waits.setdefault(room, self._clock.monotonic())
        self.mark_dirty(room)

    def fetch_sent(self, room: str, seq: int) -> None:
        """A post another process on the home got accepted as ``seq``: store it now, so it shows
        in seq order among the others even while a busy room never falls quiet (a ``since`` read
        of that one seq)."""
        self._sent.append((room, seq))
        self._kick.set()

    async def store_sent(self, message: StoredMessage) -> None:
        """Our own post as the hub keeps it (the outbox pulled it to confirm it): stored now, or,
        while a catch-up holds its room's pushes, right after that room's pulled pages."""
        if self._holding is not None and (self._hold_all or message.room in self._holding):
            self._holding.setdefault(message.room, []).append(message)
            return
        await self.store_messages([message])

    def request_full(self) -> None:
        """Refresh rooms and reconcile now (after a wake, or a push for an unknown room)."""
        self._full_wanted = True
        self._kick.set()

    # ---- the record ----------------------------------------------------------------------

    async def store_messages(self, messages: Sequence[StoredMessage], *, index_now: bool = True) -> list[StoredMessage]:
        """Insert; emit MessagesStored for the rows that were new (per room, ascending)."""
        if not messages:
            return []
        return await self._commit(
            LocalStore.insert_messages, messages, self._mentions_me, index_now=index_now, announce=self._announce_messages
        )

    async def _write_pulled(self, chunks: list[PulledChunk]) -> set[str]:
        """Pulled chunks of several rooms in one transaction, each chunk moving its room's mark in
        it, so a refused mark (a full disk) refuses the chunk too and the event follows both
        (``listen`` trusts the mark to say what is stored for good). Indexed for search by ``run``
        later, in small batches (a wake stores tens of thousands: FTS was a third of the cost).
        The rooms that got new rows."""
        marks = [(chunk.room, chunk.mark) for chunk in chunks]
        stored = await self._commit(
            LocalStore.insert_messages, [m for chunk in chunks for m in chunk.messages], self._mentions_me,
            room_marks=marks, index_now=False, announce=self._announce_messages,
        )
        for room, seq in marks:
            self._marked(room, seq)
        if stored:
            self._unindexed = True
            self._kick.set()
        return {message.room for message in stored}

    async def _rooms_pulled(self, rooms: list[tuple[RoomPulled, bool]], quiet: list[RoomPulled]) -> None:
        """Rooms whose pull is stored: the ones that got new rows are settled (one store call),
        the others go to ``quiet``, checked against the hub's count after the pass
        (``_check_quiet``); then the pushes held for them during a catch-up are stored (after
        the pages, so each room's messages come out in seq order)."""
        settled = []
        for room, stored_new in rooms:
            if room.hub_unread is None:
                continue
            if not stored_new:
                quiet.append(room)
                continue
            self._settled_unread[room.room] = room.hub_unread
            if room.room not in self._cursor_unknown:  # else once the cursor is learned (_pull_rooms)
                settled.append((room.room, room.hub_unread, await self.mark(room.room)))
        if settled:
            await self._store.call(LocalStore.settle, settled)
        if self._holding is not None:
            for room, _stored_new in rooms:
                await self._release(self._holding.pop(room.room, []))

    def _announce_messages(self, new: list[StoredMessage]) -> list[MessagesStored]:
        return [MessagesStored(room, tuple(rows), live=self.live) for room, rows in group_by_room(new).items()]

    def _listed(self, messages: Iterable[StoredMessage]) -> list[StoredMessage]:
        """``messages`` of the rooms the hub has listed. A push for another room is ignored (said
        once, then counted): a hub could make up thousands of rooms so. A room joined since the
        last ``rooms`` call (someone opened a DM with us) is asked for at most every
        ``UNLISTED_REFRESH_SECS``, and its pull brings what the ignored push carried."""
        known = self._listed_by_name
        messages = list(messages)
        listed = [message for message in messages if message.room in known]
        if len(listed) < len(messages):
            unlisted = next(message.room for message in messages if message.room not in known)
            self._faults.report("unlisted room", f"ignored messages the hub pushed for a room it has not listed: {unlisted!r}")
            if self._clock.monotonic() - self._unlisted_refresh >= UNLISTED_REFRESH_SECS:
                self._unlisted_refresh = self._clock.monotonic()
                self.request_full()
        return listed

    async def accept_pushes(self, messages: Sequence[StoredMessage], dropped: Iterable[str] = ()) -> None:
        """Deliveries from the inbox: stored at once, or held while their room is catching up
        (while the room list is not known, every push is held); pushes for rooms the hub has not
        listed are dropped (``_listed``). ``dropped``: rooms of pushes the inbox dropped, pulled
        once the pushes fall quiet, as a push stored would have them."""
        self._last_push = self._clock.monotonic()
        known = self._listed_by_name
        self._pushed.update(room for room in dropped if room in known)
        ready: list[StoredMessage] = []
        for message in messages:
            if self._holding is not None and (self._hold_all or message.room in self._holding):
                if self._held < HELD_PUSHES_MAX:
                    self._holding.setdefault(message.room, []).append(message)
                    self._held += 1
                else:  # a flood during a long catch-up: the room is pulled afterwards instead
                    self._held_over.add(message.room)
                continue
            ready.append(message)
        ready = self._listed(ready)
        self._pushed.update(message.room for message in ready)
        await self.store_messages(self._show_early(ready), index_now=False)
        self._unindexed = True
        self._kick.set()  # ``run`` indexes them, once ``listen`` has printed them

    async def _index_pushes(self) -> None:
        """Make the stored pushes (and pulled pages) searchable, a batch at a time behind any
        catch-up's page writes in the process (``page_writer.write_turn``: indexing costs more
        than storing, and a hub caught up first indexed while the others still stored their
        pages); the store keeps what it cannot index now."""
        self._unindexed = False
        try:
            await self._store.index_all_pending(write_turn())
        except StoreError as error:
            log.info("pushes are not indexed for search for now: %s", error)

    async def _mark(self, room: str) -> int | None:
        if room not in self._marks:
            self._marks[room] = await self._store.call(LocalStore.sync_mark, room)
        return self._marks[room]

    async def _know_marks(self, rooms: Iterable[str]) -> None:
        """Read the sync marks of ``rooms`` not known yet in one store call: one read per room,
        each waiting behind the page writes on the store's thread, held the pulls back."""
        missing = [room for room in rooms if room not in self._marks]
        if missing:
            self._marks.update(await self._store.call(LocalStore.sync_marks, missing))

    async def mark(self, room: str) -> int:
        """Every message of ``room`` with seq at or below this is stored (0: nothing known)."""
        return await self._mark(room) or 0

    def _marked(self, room: str, seq: int) -> None:
        self._marks[room] = seq
        self._on_marked(room)

    async def learn_cursor(self, request: Requester, room: str) -> int:
        """Read the hub cursor without moving it (``limit: 0, ack: 0``)."""
        reply = await request(Pull(room=room, limit=0, ack=0), Pulled)
        assert isinstance(reply, Pulled)
        self._cursor_unknown.discard(room)
        return await self._commit(
            LocalStore.set_cursor, room, reply.cursor, announce=lambda cursor: [CursorChanged(room, cursor)]
        )

    def _limit(self, room: str) -> int:
        """How many messages a pull of ``room`` asks for: the page size, or fewer after a page did
        not fit in the largest message the connection reads (``page_did_not_fit``)."""
        return self._page_limits.get(room, self.page_size)

    def page_did_not_fit(self, room: str, asked: int | None) -> None:
        """A page of ``room``, ``asked`` messages, was larger than the connection reads (it closed
        on it): its next pulls, on the next connection, ask for half as many (a first page asks
        for fewer than the room's page size: ``first_page_limit``); a single message too large
        leaves the room unread for this session (said once), as nothing can skip it."""
        limit = min(self._limit(room), asked or self.page_size)
        if limit > 1:
            self._page_limits[room] = limit // 2
            return
        self._unreadable.add(room)
        self._emit(Notice(f"Could not read room {room}: the hub sends a message larger than this app reads", room=room))

    def _begin_pull(self, room: str) -> None:
        """Unsettled until this pull is stored: if it fails, the next reconciliation retries it;
        pushes landing from now on flag the room again."""
        self._settled_unread.pop(room, None)
        self._pushed.discard(room)
        self._dirty.discard(room)
        self._reader_waits.pop(room, None)

    async def pull_room(
        self, request: Requester, room: str, hub_unread: int | None, writer: PageWriter, first: HubFrame | HubRefused | BadReply
    ) -> None:
        """Page forward from the room's sync mark until a short page, each page queued for
        ``writer`` and announced (``MessagesPulled``); then the room is queued as pulled
        (``_rooms_pulled`` once it is stored). ``first``: the answer to the first page's pull,
        asked for with other rooms' (``_pull_rooms``, after ``_begin_pull``)."""
        mark = await self._mark(room)
        if mark is None:  # first time this store sees the room: learn where the human is, later
            self._cursor_unknown.add(room)
        bound = self._forward_messages[mark is not None]
        since = read_to = mark or 0
        limit = self._limit(room)
        reply, asked, read = first, first_page_limit(limit, hub_unread), 0
        held: list[tuple[Pulled, int]] = []  # a first sync's pages (and their marks), kept until its history ends within the bound
        while True:
            if isinstance(reply, Exception):
                raise reply
            assert isinstance(reply, Pulled)
            try:
                check_advancing(room, read_to, reply.messages)
            except BadReply:
                if held:  # a first sync's pages before the one that did not advance are kept
                    await self._queue_pages(writer, room, held, new_room=mark is None)
                raise
            read += len(reply.messages)
            read_to = max([read_to, *(message.seq for message in reply.messages)])
            held.append((reply, read_to))
            full, asked = len(reply.messages) >= asked, limit
            if not full or mark is not None:
                since = await self._queue_pages(writer, room, held, new_room=mark is None)
            if not full:
                break
            if read >= bound:
                await writer.reserve([(room, 2 * limit)])  # (its probes: one page, and the next read)
                newest = await self._newest_page(request, room, read_to, limit)
                if newest is None:
                    self._unreadable.add(room)
                    self._emit(Notice(f"The hub's history of room {room} does not end: it is not read further", room=room))
                    break
                if newest[0] > read_to:  # a first sync keeps its newest page, not its oldest
                    held.clear()
                    await self._leave_gap(room, (since, newest[0]))  # read as the human scrolls up (``fill_gap``)
                    self._emit(Notice(f"Room {room}: its newest messages were read; scroll up for older ones", room=room))
                read_to, reply = newest
                continue
            await writer.reserve([(room, limit)])
            reply = await request(Pull(room=room, since=read_to, limit=limit), Pulled)
            writer.release(room, limit - len(reply.messages))  # (a short page: what it did not bring)
        self._holds.release(room)
        writer.put(RoomPulled(room, hub_unread))

    async def _queue_pages(self, writer: PageWriter, room: str, pages: list[tuple[Pulled, int]], *, new_room: bool) -> int:
        """Queue ``pages`` (each with its room's mark once stored) for ``writer``, announce them,
        and empty the list; the last mark."""
        mark = pages[-1][1]
        for page, mark in pages:
            if page.messages or new_room:  # (a new room's mark is stored even with nothing in it)
                writer.put(PulledChunk(room, page.messages, mark))
            if page.messages:
                self._emit(MessagesPulled(room, tuple(page.messages)))
        pages.clear()
        return mark

    @staticmethod
    async def _newest_page(request: Requester, room: str, after: int, limit: int) -> tuple[int, Pulled] | None:
        """``history_window.newest_page``; None also when the hub refuses a probe or answers it badly."""
        try:
            return await newest_page(request, room, after, limit)
        except (HubRefused, BadReply):
            return None

    async def _gaps(self, room: str) -> list[Gap]:
        return gaps_from(await self._store.call(LocalStore.get_meta, GAP_KEY + room))

    async def _leave_gap(self, room: str, gap: Gap) -> None:
        """The messages in ``gap`` are left on the hub, for ``fill_gap_below`` to read."""
        await self._store.call(LocalStore.set_meta, GAP_KEY + room, gaps_text([*await self._gaps(room), gap]))

    async def gap_below(self, room: str, before: int) -> Gap | None:
        """The gap a catch-up left in ``room`` just below the stored message ``before``, if any."""
        below = [gap for gap in await self._gaps(room) if gap[1] < before]
        return max(below, key=lambda gap: gap[1]) if below else None

    async def fill_gap(self, request: Requester, room: str, gap: Gap) -> int:
        """Store (and announce) the page of ``gap`` just below its top: the human scrolled up to
        it. How many messages that was."""
        left, messages = await page_below(request, room, gap, self._limit(room))
        await self.store_messages(messages)
        gaps = [each for each in await self._gaps(room) if each != gap]
        await self._store.call(LocalStore.set_meta, GAP_KEY + room, gaps_text([*gaps, left]))
        return len(messages)

    async def _check_quiet(self, request: Requester, room: RoomPulled) -> None:
        """A room whose pull stored nothing new: its stored unread must equal the hub's; if not,
        the cursor moved elsewhere."""
        assert room.hub_unread is not None
        self._settled_unread[room.room] = room.hub_unread
        cursor = await self._store.call(LocalStore.cursor, room.room)
        if await self._store.call(LocalStore.count_after, room.room, cursor) != room.hub_unread:
            await self.learn_cursor(request, room.room)
        if room.room not in self._cursor_unknown:  # else once the cursor is learned (_pull_rooms)
            await self._store.call(LocalStore.settle, [(room.room, room.hub_unread, await self.mark(room.room))])

    async def refresh_rooms(self, request: Requester) -> tuple[RoomInfo, ...]:
        reply = await request(Rooms(), RoomList)
        assert isinstance(reply, RoomList)
        rooms = reply.rooms
        if self._restored:
            await self._store.call(LocalStore.replace_rooms, rooms)
        else:  # the session's first list: what earlier processes stored of each room, in the same call
            settled, marks = await self._store.call(_adopt_rooms, rooms)
            self._restored = True
            self._settled_unread = {**settled, **self._settled_unread}  # (what this session knows wins)
            self._marks = {**marks, **self._marks}

        def compared() -> tuple[dict[str, RoomInfo], list[list[str]], bool]:
            by_name = {room.name: room for room in rooms}
            gone = [[name for name in list(state) if name not in by_name] for state in (self._settled_unread, self._marks)]
            return by_name, gone, rooms != self.rooms

        by_name, gone, changed = await off_the_loop(compared, len(rooms))
        for state, names in zip((self._settled_unread, self._marks), gone):
            for name in names:
                state.pop(name, None)
        if changed:
            self.rooms, self._listed_by_name = rooms, by_name
            self._emit(RoomsChanged(rooms))
        return rooms

    # ---- catch-up and reconciliation -------------------------------------------------------

    def _needs_pull(self, room: RoomInfo) -> bool:
        return (
            room.name not in self._settled_unread
            or self._settled_unread[room.name] != room.unread
            or room.name in self._pushed
            or room.name in self._dirty
        )

    async def _pull_rooms(self, request: Requester, rooms: Iterable[RoomInfo], unlisted: Iterable[str] = ()) -> None:
        """Pull busy rooms first (what the human most likely waits for), ``ROOMS_PER_PASS`` of them
        at most, then ``unlisted`` ones
        (not in the room list yet: no count to settle), several at a time (``first_pages_group``):
        their first pages are asked for at once (most rooms need no second page), the rest room by
        room; check the rooms whose pull stored nothing new; then learn the cursors of rooms
        seen for the first time (meanwhile the hub's unread counts stand in for them). A line
        that drops midway leaves what was pulled stored."""
        rooms, unlisted = list(rooms), list(unlisted)
        held, unreadable = self._holds.held_now(), frozenset(self._unreadable)
        for name in held.intersection(room.name for room in rooms).union(held.intersection(unlisted)) if held else ():
            self._begin_pull(name)  # not now: left unsettled, a reconciliation after the hold pulls it
        skipped = held | unreadable

        def kept() -> tuple[list[RoomInfo], list[str], list[str]]:
            rest = [room for room in rooms if room.name not in skipped]
            rest_unlisted = [name for name in unlisted if name not in skipped]
            return rest, rest_unlisted, [n for n in (*(room.name for room in rest), *rest_unlisted) if n not in self._marks]

        def busiest_first(rest: list[RoomInfo]) -> list[RoomInfo]:
            # Most unread first, of them the rooms synced before (a hub can claim unread rooms by the thousand)
            return sorted(rest, key=lambda r: (-r.unread, self._marks.get(r.name) is None, r.name))

        rooms, unlisted, unmarked = await off_the_loop(kept, len(rooms))
        if unmarked:
            await self._know_marks(unmarked)
        rooms = await off_the_loop(lambda: busiest_first(rooms), len(rooms))
        if len(rooms) > ROOMS_PER_PASS:  # the rest stay unsettled: the next pass, at once, takes the next busiest
            rooms, self._more_wanted = rooms[:ROOMS_PER_PASS], True
            self._kick.set()
        quiet: list[RoomPulled] = []
        writer = PageWriter(self._write_pulled, lambda done: self._rooms_pulled(done, quiet))
        try:
            try:
                wanted = [(room.name, room.unread) for room in rooms] + [(name, None) for name in unlisted]
                start = 0
                while start < len(wanted):
                    ahead = wanted[start:start + PIPELINED_ROOMS_MAX]
                    limits = [first_page_limit(self._limit(name), unread) for name, unread in ahead]
                    room_for = min(PIPELINED_PAGES * self.page_size, writer.free())
                    count = first_pages_group(limits, room_for, request.free_now())
                    group, limits = ahead[:count], limits[:count]
                    start += count
                    await writer.reserve((name, limit) for (name, _unread), limit in zip(group, limits))
                    for name, _unread in group:
                        self._begin_pull(name)
                    pulls = [Pull(room=name, since=self._marks.get(name) or 0, limit=limit) for (name, _unread), limit in zip(group, limits)]
                    firsts = await request.each(pulls, Pulled)
                    for (name, _unread), limit, first in zip(group, limits, firsts):
                        writer.release(name, limit - len(first.messages) if isinstance(first, Pulled) else limit)
                    for (name, unread), first in zip(group, firsts):
                        try:
                            await self._pull_guarded(request, name, unread, writer, first)
                        finally:
                            writer.release(name)  # what its pages were asked for and did not bring
                        await asyncio.sleep(0)  # the loop's turn between rooms: 64 pages read in one held the window 0.1-0.25 s
            except ConnectionLost:
                await writer.flush()  # what came before the line dropped is as good: stored, not pulled again
                raise
            self._emit(PullsOver())
            await writer.flush()
        finally:
            await writer.close()
        for room in quiet:
            await self._guarded(room.room, self._check_quiet(request, room))
        listed = self._listed_by_name
        for room in sorted(self._cursor_unknown & listed.keys()):
            try:
                await self.learn_cursor(request, room)
            except HubRefused:
                self._cursor_unknown.discard(room)  # not a member any more: rooms drops it
                continue
            if room in self._settled_unread:  # its pull completed (and no new one started)
                await self._store.call(LocalStore.settle, [(room, self._settled_unread[room], await self.mark(room))])

    async def _pull_guarded(
        self, request: Requester, room: str, hub_unread: int | None, writer: PageWriter, first: HubFrame | HubRefused | BadReply,
    ) -> None:
        """Pull one room; a refusal or bad reply for it is reported, and the others still sync.

        The room is then not settled, so the next full reconciliation tries it again.
        """
        await self._guarded(room, self.pull_room(request, room, hub_unread, writer, first))

    async def _guarded(self, room: str, work: Awaitable[None]) -> None:
        """``work`` on ``room``; a refusal or bad reply is reported as a notice about the room."""
        try:
            await work
        except HubRefused as error:
            if error.code != codes.NOT_MEMBER:  # not a member: deleted or left; rooms drops it
                self._emit(Notice(f"Could not read room {room}: {error.message}", room=room))
        except BadReply as error:
            hold = self._holds.hold(room)
            self._emit(Notice(f"Could not read room {room}: {error}; trying again in {hold:g} s", room=room))

    async def catch_up(self, request: Requester) -> None:
        """After (re)connecting and subscribing: bring every room that may lag up to date.

        Pushes are held from the start (while the room list is fetched, too), and each room's
        are stored right after its pulled pages are, so a room's messages come out in seq order.
        """
        self._holding, self._held, self._more_wanted = {}, 0, False
        self._hold_all = True
        try:
            rooms = await self.refresh_rooms(request)
            stale = await self._stale(rooms)
            holding = await off_the_loop(lambda: {room.name: [] for room in stale}, len(stale))
            held, self._holding = self._holding, holding
            self._hold_all = False
            for room, messages in held.items():
                if room in self._holding:
                    self._holding[room].extend(messages)
                else:
                    await self._release(messages)
            await self._pull_rooms(request, stale)
        finally:
            held, self._holding, self._hold_all = self._holding or {}, None, False
            await self._release([m for messages in held.values() for m in messages])
            listed = self._listed_by_name
            self._pushed.update(room for room in self._held_over if room in listed)
            self._held_over.clear()

    async def _stale(self, rooms: Sequence[RoomInfo]) -> list[RoomInfo]:
        """The rooms that may lag (``_needs_pull``)."""
        return await off_the_loop(lambda: [room for room in rooms if self._needs_pull(room)], len(rooms))

    async def _release(self, held: list[StoredMessage]) -> None:
        """Store held pushes (of listed rooms); their rooms get a pull later, since the mark did
        not cover them."""
        held = self._listed(held)
        self._pushed.update(m.room for m in held)
        await self.store_messages(held)

    async def reconcile(self, request: Requester, *, full: bool) -> None:
        """``full``: refresh rooms and pull every room that may lag; else the next batch of those
        a pass left (``ROOMS_PER_PASS``), or just pushed/asked ones."""
        if full:
            self._full_wanted = self._more_wanted = False
            rooms = await self.refresh_rooms(request)
            await self._pull_rooms(request, await self._stale(rooms))
            return
        if self._more_wanted:  # the next batch of the last list (asked for again, 100,000 rooms cost seconds)
            self._more_wanted = False
            await self._pull_rooms(request, await self._stale(self.rooms))
            return
        wanted = self._pushed | self._dirty
        by_name = self._listed_by_name
        await self._pull_rooms(request, [by_name[name] for name in wanted if name in by_name], sorted(wanted - by_name.keys()))

    async def _store_sent(self, request: Requester) -> None:
        while self._sent:
            room, seq = self._sent.pop(0)
            try:
                reply = await request(Pull(room=room, since=seq - 1, limit=1), Pulled)
            except (HubRefused, BadReply):
                self.mark_dirty(room)  # the room's next pull brings it
                continue
            assert isinstance(reply, Pulled)
            await self.store_messages(reply.messages)

    async def run(self, request: Requester, *, interval: float, quiet_secs: float, reader_secs: float) -> None:
        """Reconcile every ``interval`` seconds, ``quiet_secs`` after a burst of pushes ends, and
        ``reader_secs`` after the human waits for a room's pull (``pull_for_reader``)."""
        next_full = self._clock.monotonic() + interval
        while True:
            now = self._clock.monotonic()
            deadline = next_full
            if self._pushed or self._dirty:
                deadline = min(deadline, self._last_push + quiet_secs)
            if self._reader_waits:
                deadline = min(deadline, min(self._reader_waits.values()) + reader_secs)
            self._kick.clear()
            if self._unindexed:
                await self._index_pushes()
            await self._store_sent(request)
            if deadline > now and not (self._full_wanted or self._more_wanted):
                await wait_or_timeout(self._kick, self._clock, deadline - now)
                continue  # re-evaluate: a kick may have changed what is due
            if self._full_wanted or now >= next_full:
                await self.reconcile(request, full=True)
                next_full = self._clock.monotonic() + interval
            else:
                await self.reconcile(request, full=False)
