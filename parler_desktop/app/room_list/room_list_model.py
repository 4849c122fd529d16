"""The room list: one row per room from the local store, kept in step with session events.

Rows come from ``LocalStore.room_summaries`` (unread = others' stored seq above the cursor, mention
count, last activity), with what the pulls brought that is not stored yet counted in
(``pulled_ahead.py``). Events only schedule a reload; reloads are coalesced so a burst of
thousands of messages costs a handful of store queries. The proxy orders by recency (or A–Z, as
the human chose for the hub: ``set_by_name``) and filters.

The proxy sorts with a Python ``lessThan``, called O(n log n) times per sort: reading each side's
roles through ``data`` there held the window for 20-80 ms per reload of 500 rows (bench_hubs'
wake). So each model keeps its rows' sort keys (``sort_keys``), made again only after its rows
change, and ``lessThan`` compares two of them.

Rows show a label (``room_labels``): a DM is named after its other member, taken from the stored
roster, or fetched once from the hub when none is stored yet; until then it shows the room name.
"""

from __future__ import annotations

import asyncio
import time
from operator import attrgetter
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)

from parler_desktop.app import roles
from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.room_list.busiest_rooms import SHOWN_ROOMS_MAX, busiest_rooms, ranked_rooms
from parler_desktop.app.room_list.pulled_ahead import PulledAhead
from parler_desktop.app.room_list.room_labels import dm_partner, room_label
from parler_desktop.app.room_list.room_search import FOUND_ROOMS_MAX, rooms_matching
from parler_desktop.app.room_list.row_reading import room_reading
from parler_desktop.app.room_list.sidebar_ticks import SidebarFrames, due_in, runs
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.client.events import ConnectionState
from parler_desktop.store import LocalStore

RELOAD_DELAY_MS = 120  # live, reloads are due on ticks this far apart, the same for every hub (``sidebar_ticks``)
CATCH_UP_RELOAD_DELAY_MS = 1000  # while a session catches up (on ticks this far apart, every hub's the same): each reload re-sorts and repaints the
# list on the UI thread, which the stored pages compete with (bench/bench_hubs.py's wake: 8.3 s at
# 120 ms, 6.6 s at 1 s)
PULLED_SHOW_DELAY_MS = 500  # while the pulls go on, what they brought is shown this often (every hub's on the same ticks: one paint), and at once when they
# are over (each showing re-sorts and repaints the list: every 100 ms, that took 0.2 s of CPU from the pulls of
# bench_hubs.py's wake)

Index = QModelIndex | QPersistentModelIndex

ROWS_AT_ONCE = 32  # rows announced inserted or changed in one signal: the proxy filters and places each (Python lessThan calls)
ROWS_SECS_PER_TURN = 0.008  # rows inserted or changed after this long in one turn wait for the next (the window answers
# meanwhile): all 100 rows of a hub changed at once when its catch-up's pulls were over held the window 64 ms, its
# 100 rows inserted from the cache at launch 37 ms (bench_hubs.py's wake)

# What of a room's summary its row shows, sorts by or tells (``row_data``): a change of the rest
# alone (the hub's unread count, refreshed with its room list; the cursor) is not announced.
_shown = attrgetter("name", "kind", "members", "last_ts", "unread", "mentions_unread", "last_preview", "last_sender")


class RoomRow(NamedTuple):
    """All a room's row paints, asked for once a row (``roles.ROOM_ROW``): the sidebar repaints
    every row on screen at each change, and each role asked for was a call through the proxy and
    the all-hubs model (nine a row with the agents' dot)."""

    hub: str  # the hub as the settings name it (set by the all-hubs model; "" here)
    name: str  # the hub's room name
    label: str  # what the row is called (``DisplayRole``)
    kind: str
    unread: int
    mentions: int
    preview: str  # "sender: preview" (``ROOM_PREVIEW``)


class RoomListModel(QAbstractListModel):
    totalUnreadChanged = Signal(int)
    reloaded = Signal()

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None, frames: SidebarFrames | None = None) -> None:
        """``frames``: where the sidebar's changes wait for the end of their frame, shared by every
        hub's list of one window (``sidebar_ticks``); a list of its own by default."""
        super().__init__(parent)
        self._bridge = bridge
        self._frames = frames if frames is not None else SidebarFrames(self)
        self._rooms: list[Any] = []  # RoomSummary, as shown
        self._stored: list[Any] = []  # RoomSummary, as last read from the store
        self.loaded = False  # the store was read for the session attached (an empty list is then known empty)
        self._pulled = PulledAhead()
        self._pulled_stale = False  # the session dropped its line: reloads from now on count the store alone
        self._was_live = False  # the line was live at the last state change (``_state_changed``)
        self._partners: dict[str, str] = {}  # DM room -> the other member's display name
        self._rosters_asked: set[str] = set()  # DMs whose roster was requested from the hub
        self._total_unread = 0
        self.hidden = 0  # rooms the hub lists that the list leaves out (``busiest_rooms``)
        self._open_room: str | None = None  # listed whatever the others do (``keep_listed``)
        self._search = ""  # the filter box's text (``find``)
        self._found: set[str] = set()  # rooms matching it, listed whatever the others do
        self.found_more = False  # more rooms match than are found
        self._finding = False
        self._every: list[Any] = []  # the rooms last shown from (``_show``)…
        self._ranked: list[Any] = []  # …and their busiest, ranked once for every search of them
        self._counted: list[Any] | None = None  # the rooms last counted…
        self._counted_unread = 0  # …and their unread total (100,000 rooms: tens of ms on the Qt thread a turn)
        self._to_rank: list[Any] | None = None  # rooms waiting to be ranked on a worker thread
        self._search_when_shown = False
        self._more_rows_due = False  # rows left for the next turn (``ROWS_SECS_PER_TURN``)
        self._ranking = False
        self._keys: list[tuple] | None = None  # each row's sort key (None: rows changed since)
        self.by_name = False  # rooms A–Z instead of newest activity first
        self._reload_running = False
        self._reload_again = False
        self._timer = QTimer(self, singleShot=True, interval=RELOAD_DELAY_MS)
        self._timer.timeout.connect(self.reload)
        self._pulled_timer = QTimer(self, singleShot=True, timerType=Qt.TimerType.PreciseTimer)  # every hub's on one instant
        self._pulled_timer.timeout.connect(self._show_again)
        bridge.sessionChanged.connect(self._session_changed)
        # Bound methods (not lambdas): Qt drops the connections when this model is destroyed.
        bridge.messagesPulled.connect(self._messages_pulled)
        bridge.pullsOver.connect(self._pulls_over)
        bridge.messagesStored.connect(self.schedule_reload)
        bridge.roomsChanged.connect(self.schedule_reload)
        bridge.cursorChanged.connect(self.schedule_reload)
        bridge.rosterChanged.connect(self._roster_changed)
        bridge.stateChanged.connect(self._state_changed)

    # -- Qt model ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rooms)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self.row_data(index.row(), role) if index.isValid() else None

    def row_data(self, row: int, role: int) -> Any:
        """``data`` of ``row`` without an index (the all-hubs model asks for its rooms' rows so)."""
        if not 0 <= row < len(self._rooms):
            return None
        room = self._rooms[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._label(room)
        if role == roles.ROOM_NAME:
            return room.name
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return room_reading(self._label(room), room.kind, int(room.unread), int(room.mentions_unread))
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(self.description(room.name))
        if role == roles.ROOM_KIND:
            return room.kind
        if role == roles.ROOM_UNREAD:
            return int(room.unread)
        if role == roles.ROOM_MENTIONS:
            return int(room.mentions_unread)
        if role == roles.ROOM_LAST_TS:
            return int(room.last_ts or 0)
        if role in (roles.ROOM_PREVIEW, Qt.ItemDataRole.AccessibleDescriptionRole):
            return self._preview(room)
        if role == roles.ROOM_ROW:
            return RoomRow("", room.name, self._label(room), room.kind, int(room.unread), int(room.mentions_unread), self._preview(room))
        return None

    @staticmethod
    def _preview(room: Any) -> str:
        sender = display_text(room.last_sender or "")
        preview = room.last_preview or ""  # (readable already: ``store/codec.preview_text``)
        return f"{sender}: {preview}" if sender else preview

    @staticmethod
    def row_place(_row: int) -> tuple[str | None, bool]:
        """(the row's hub, whether it is a hub's heading), as ``HubRoomsModel.row_place``: one
        hub's list has no headings."""
        return None, False

    def sort_keys(self) -> list[tuple]:
        """Each row's key for the proxy's order: newest activity first, then by label (or by
        label alone, ``by_name``). A reload makes again only the changed rows' keys, in a new
        list (the all-hubs model knows a hub's keys changed by the list's identity)."""
        if self._keys is None:
            self._keys = [self._sort_key(room) for room in self._rooms]
        return self._keys

    def _sort_key(self, room: Any) -> tuple:
        return (self._label(room).casefold(), room.name) if self.by_name else (-int(room.last_ts or 0), self._label(room))

    def keep_listed(self, room: str | None) -> None:
        """``room`` is open: it stays listed however many busier rooms the hub lists."""
        if room != self._open_room:
            self._open_room = room
            self.schedule_reload()

    def find(self, text: str) -> None:
        """The filter box's text: the rooms matching it among all the hub listed are listed too
        (``room_search``, on a worker thread), however many busier rooms there are; with no text,
        the busiest again."""
        self._search = text
        if not text or not self.hidden:  # (every room is listed: the filter finds them)
            if self._found or self.found_more:
                self._found, self.found_more = set(), False
                self._show_found()
        elif not self._finding:
            self._finding = True
            self._bridge.tasks.spawn("find rooms", self._find())

    async def _find(self) -> None:
        """Search until the text searched for is still the filter's (typing goes on meanwhile)."""
        try:
            while True:
                text, store = self._search, self._bridge.store
                found, more = await asyncio.to_thread(rooms_matching, self._stored, dict(self._partners), text)
                if text == self._search:
                    break
                if not self._search:
                    return
        finally:
            self._finding = False
        if store is self._bridge.store and (set(found), more) != (self._found, self.found_more):
            self._found, self.found_more = set(found), more
            self._show_found()

    def _show_found(self) -> None:
        """The rows again, of the rooms last shown (ranked already), for other rooms found."""
        if self.loaded:
            self._show_rows()

    def set_by_name(self, by_name: bool) -> None:
        """Order the rooms A–Z (else by activity); the proxy sorts again on the rows' change."""
        if by_name != self.by_name:
            self.by_name = by_name
            self._keys = None
            if self._rooms:
                self.dataChanged.emit(self.index(0), self.index(len(self._rooms) - 1))

    # -- state ------------------------------------------------------------------------------
    @property
    def total_unread(self) -> int:
        return self._total_unread

    @property
    def total_mentions(self) -> int:
        """Unread mentions in every room (a heading shows it: read from the rows it is painted from)."""
        return sum(int(room.mentions_unread) for room in self._rooms)

    def room_names(self) -> list[str]:
        return [room.name for room in self._rooms]

    def summary(self, name: str) -> Any | None:
        return next((room for room in self._rooms if room.name == name), None)

    def label(self, name: str) -> str:
        """What the room is called on screen (the name itself for a room not listed)."""
        room = self.summary(name)
        return self._label(room) if room is not None else display_text(name)

    def description(self, name: str, members: int | None = None) -> str:
        """The label with the hub's room name, kind and size: for tooltips and the header.
        ``members`` (the roster the window shows) counts instead of the room list's number."""
        room = self.summary(name)
        if room is None:
            return display_text(name)
        label = self._label(room)
        real = f"{display_text(room.name)}  ·  " if label != display_text(room.name) else ""
        count = room.members if members is None else members
        members_text = f"{count} member{'' if count == 1 else 's'}"
        return f"{label}  ·  {real}{display_text(room.kind)}  ·  {members_text}"

    def _label(self, room: Any) -> str:
        """What the room is called on screen: its name from the hub is never shown as it came."""
        return display_text(room_label(room.name, room.kind, self._partners.get(room.name)))

    def schedule_reload(self, *_event: Any) -> None:
        if not self._timer.isActive():
            catching_up = self._rooms and not self._bridge.is_live  # (an empty list is read at once)
            self._timer.start(due_in(CATCH_UP_RELOAD_DELAY_MS if catching_up else RELOAD_DELAY_MS))

    def _state_changed(self, event: Any) -> None:
        """Caught up: the list is read again now (the reload the catch-up put off, for up to a
        second, or a new one), so the rows show the last pages stored as soon as the session is
        live, and every ``reloaded`` from then on is of a live hub's list: what is decided once
        the hub is live (a room it no longer lists, a link to a room it does not hold) is never
        left waiting on a list read before (a hub listing no rooms reads none after). Disconnected:
        what was pulled is stored before the state changes (``sync.py``), or never (it is pulled
        again): the next reload counts the store alone."""
        live, was_live, self._was_live = self._bridge.is_live, self._was_live, self._bridge.is_live
        if live and (self._timer.isActive() or not was_live):
            self._timer.start(0)
        if self._pulled and event.state not in (ConnectionState.CATCHING_UP, ConnectionState.LIVE):
            self._pulled_stale = True  # forgotten by the next reload, which shows what was stored of it
            self.reload()

    def _messages_pulled(self, room: str, messages: Any) -> None:
        self._pulled.add(room, messages, self._bridge.agent_id)
        if not self._pulled_timer.isActive():
            self._pulled_timer.start(due_in(PULLED_SHOW_DELAY_MS))

    def _pulls_over(self) -> None:
        if self._pulled_timer.isActive():
            self._pulled_timer.stop()
            self._show_again()

    def _show_again(self) -> None:
        """The rows again, of the summaries last read (what was pulled since counted in)."""
        if self.loaded:  # (else the first reload shows them)
            self._show([self._pulled.shown(summary) for summary in self._stored])

    def reload(self) -> None:
        """Read the summaries again (one store query; overlapping requests collapse into one)."""
        if self._reload_running:
            self._reload_again = True
            return
        if self._bridge.store is None:
            return
        self._reload_running = True
        self._frames.reading(self)
        self._bridge.tasks.spawn("room list", self._reload())

    async def _reload(self) -> None:
        store = self._bridge.store  # (None: the session went since the reload was asked for)
        summaries: list[Any] | None = None
        forget_pulled, self._pulled_stale = self._pulled_stale, False
        try:
            if store is not None:
                read = await store.call(LocalStore.room_summaries, self._bridge.agent_id)
                for room in read:
                    if room.kind == "dm" and room.name not in self._partners:
                        await self._learn_partner(store, room.name)
                summaries = list(read)
        finally:
            self._reload_running = False
            if summaries is None:
                self._pulled_stale |= forget_pulled  # (the next reload, then)
            current = summaries is not None and store is self._bridge.store
            self._frames.done(self, (lambda: self._apply_read(store, summaries, forget_pulled)) if current else None)
        if self._reload_again:
            self._reload_again = False
            self.reload()

    def _apply_read(self, store: Any, summaries: list[Any], forget_pulled: bool) -> None:
        """A reload's summaries, with the other hubs' of its tick (``sidebar_ticks``)."""
        if store is not self._bridge.store:
            return  # another session took over meanwhile
        if forget_pulled:
            self._pulled.clear()
        self._apply(summaries)

    def _apply(self, summaries: list[Any]) -> None:
        self._stored, self.loaded = summaries, True
        self._pulled.prune(summaries)
        self._search_when_shown = bool(self._search and not self._found)  # typed before the rooms it looks for were listed
        self._show([self._pulled.shown(summary) for summary in summaries])

    def _show(self, every: list[Any]) -> None:
        """Show ``every`` room (those listed of them): more than ``SHOWN_ROOMS_MAX`` are ranked
        on a worker thread first (0.1-0.7 s for 100,000 on the Qt thread: the window froze)."""
        if every is not self._every and len(every) > SHOWN_ROOMS_MAX:
            self._to_rank = every
            if not self._ranking:
                self._ranking = True
                self._bridge.tasks.spawn("rank rooms", self._rank())
            return
        self._show_ranked(every, self._ranked if every is self._every else [])

    async def _rank(self) -> None:
        """Rank the rooms last asked for (they may change while a ranking runs), then show them."""
        try:
            while (every := self._to_rank) is not None:
                ranked = await asyncio.to_thread(ranked_rooms, every, SHOWN_ROOMS_MAX + FOUND_ROOMS_MAX + 1)
                if self._to_rank is every:
                    break
            else:
                return  # another session's, or a short list shown meanwhile
        finally:
            self._ranking = False
        self._show_ranked(every, ranked)

    def _show_ranked(self, every: list[Any], ranked: list[Any]) -> None:
        """The rows of ``every`` (``ranked``: its busiest, or [] when all are listed); then the
        filter's text, typed before the rooms it looks for were listed, is searched now that they
        are (how many are not listed is known once they are shown)."""
        self._every, self._ranked, self._to_rank = every, ranked, None
        self._show_rows()
        if self._search_when_shown:
            self._search_when_shown = False
            self.find(self._search)

    def _show_rows(self) -> None:
        every = self._every
        rows = busiest_rooms(every, {self._open_room, *self._found}, ranked=self._ranked)
        self.hidden = len(every) - len(rows)
        fresh = {room.name: room for room in rows}
        for row in reversed(range(len(self._rooms))):
            if self._rooms[row].name not in fresh:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rooms[row]
                if self._keys is not None:
                    self._keys = self._keys[:row] + self._keys[row + 1 :]
                self.endRemoveRows()
        changed = {}
        for row, old in enumerate(self._rooms):
            new = fresh.pop(old.name)
            if new != old:
                if _shown(new) == _shown(old):
                    self._rooms[row] = new  # only what no row shows (the hub's count, the cursor): nothing to sort or paint
                else:
                    changed[row] = new
        turn_ends, announced = time.perf_counter() + ROWS_SECS_PER_TURN, 0

        def turn_over() -> bool:
            if announced >= ROWS_AT_ONCE and time.perf_counter() > turn_ends:
                self._more_rows_next_turn()  # the rest keep their old rows, or wait to be added, until then
                return True
            return False

        for first, last in runs(list(changed)):
            for start in range(first, last + 1, ROWS_AT_ONCE):
                if turn_over():
                    break
                end = min(last, start + ROWS_AT_ONCE - 1)
                self._change_rows(start, end, changed)
                announced += end - start + 1
        adding = list(fresh.values())
        if len(adding) > ROWS_AT_ONCE:  # the first added first
            adding = self._first_to_add(adding)
        for start in range(0, len(adding), ROWS_AT_ONCE):
            if turn_over():
                break
            chunk = adding[start:start + ROWS_AT_ONCE]
            self._add_rows(chunk)
            announced += len(chunk)
        if self._counted is not every:  # (the rows of one list shown over several turns: counted once)
            self._counted, self._counted_unread = every, sum(int(room.unread) for room in every)
        total = self._counted_unread
        if total != self._total_unread:
            self._total_unread = total
            self.totalUnreadChanged.emit(total)
        self.reloaded.emit()

    def _change_rows(self, first: int, last: int, changed: dict[int, Any]) -> None:
        """Rows ``first`` to ``last`` take their ``changed`` summaries, and are announced, before
        any other row changes: the proxy places the rows announced among the others by their
        sort keys, and a key already changed of a row announced later misplaced them (the
        sidebar showed rooms changed in one reload out of order, and held under the pointer,
        a row jumped to where it belonged at its next change)."""
        keys = None if self._keys is None else list(self._keys)
        for row in range(first, last + 1):
            self._rooms[row] = changed[row]
            if keys is not None:
                keys[row] = self._sort_key(changed[row])
        self._keys = keys
        self.dataChanged.emit(self.index(first), self.index(last))

    def _add_rows(self, adding: list[Any]) -> None:
        first = len(self._rooms)
        self.beginInsertRows(QModelIndex(), first, first + len(adding) - 1)
        self._rooms.extend(adding)
        if self._keys is not None:
            self._keys = self._keys + [self._sort_key(room) for room in adding]
        self.endInsertRows()

    def _first_to_add(self, rooms: list[Any]) -> list[Any]:
        """The open room and those the filter found first, then the busiest."""
        wanted = {self._open_room, *self._found}
        rank = {id(room): n for n, room in enumerate(self._ranked)}
        return sorted(rooms, key=lambda room: (room.name not in wanted, rank.get(id(room), len(rank))))

    def _more_rows_next_turn(self) -> None:
        if not self._more_rows_due:
            self._more_rows_due = True
            QTimer.singleShot(0, self._more_rows)

    def _more_rows(self) -> None:
        self._more_rows_due = False
        if self.loaded:
            self._show_rows()

    async def _learn_partner(self, store: Any, room: str) -> None:
        """The DM's other member from the stored roster; with none stored, ask the hub once."""
        partner = dm_partner(await store.call(LocalStore.roster, room), self._bridge.agent_id)
        if store is not self._bridge.store:
            return  # another session took over meanwhile
        if partner is not None:
            self._partners[room] = partner
        elif room not in self._rosters_asked:
            self._rosters_asked.add(room)
            self._bridge.tasks.spawn("dm roster", self._fetch_roster(room))

    async def _fetch_roster(self, room: str) -> None:
        """The answer arrives as a rosterChanged; a failure is quiet and a later reload asks again."""
        try:
            await self._bridge.refresh_roster(room)
        except (HubRefused, ConnectionLost, BadReply, SessionClosed):
            self._rosters_asked.discard(room)

    def _roster_changed(self, room: str, entries: Any) -> None:
        row = next((row for row, summary in enumerate(self._rooms) if summary.name == room), None)
        is_dm = room in self._rosters_asked if row is None else self._rooms[row].kind == "dm"
        partner = dm_partner(entries, self._bridge.agent_id) if is_dm else None
        if partner is None or partner == self._partners.get(room):
            return
        self._partners[room] = partner
        if row is not None:
            self._keys = None  # the label changed
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def _session_changed(self) -> None:
        self._frames.discard(self)
        self._partners.clear()
        self._rosters_asked.clear()
        self._pulled.clear()
        had_rows = bool(self._rooms)
        if had_rows:  # a reset rebuilds every hub's rows in the sidebar (~45 ms for five hubs'): not for an empty list
            self.beginResetModel()
        self._rooms, self._stored, self.loaded, self.hidden = [], [], False, 0
        self._found, self.found_more, self._every, self._ranked, self._to_rank = set(), False, [], [], None
        self._counted = None
        self._keys = None
        if had_rows:
            self.endResetModel()
        if self._total_unread:
            self._total_unread = 0
            self.totalUnreadChanged.emit(0)
        self.schedule_reload()


class RoomSortFilterProxy(QSortFilterProxyModel):
    """Rooms grouped by hub in the sidebar's order, each hub's heading first (shown only while
    there are several hubs); within a hub most recent activity first (then by label). The
    filter box matches what a row shows (a DM's member name, a service's name) and the hub's
    room name, in every hub (folded or not), each hub's heading above the rooms found on it and
    no heading without any; without a filter, a collapsed hub shows its heading only."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setSortRole(roles.ROOM_LAST_TS)
        self.setDynamicSortFilter(True)
        self.sort(0, Qt.SortOrder.AscendingOrder)
        self.show_headings = False
        self._source_keys: Any = None  # the source model's ``sort_keys`` (see the module docstring)

    def setSourceModel(self, model: Any) -> None:
        self._source_keys = model.sort_keys
        super().setSourceModel(model)

    def set_show_headings(self, show: bool) -> None:
        if show != self.show_headings:
            self.show_headings = show
            self.refilter()

    def refilter(self) -> None:
        """Filter the rows again (a hub folded or unfolded, headings shown or hidden); Qt 6.10
        replaced ``invalidateRowsFilter`` with a begin/end pair (older Qt, which we allow, has
        only the former)."""
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        # Asked for every row a change spans and for all of them when the held order is let go:
        # the row's place is read in Python (``row_place``), not through indexes and ``data``
        # (four calls through Qt a row, ~25 ms for five hubs' 500 rooms).
        model = self.sourceModel()
        hub, heading = model.row_place(source_row)
        filtering = bool(self.filterRegularExpression().pattern())
        if heading:  # while filtering, a heading names the hub of the rooms found under it
            if not self.show_headings:
                return False
            return not filtering or any(self._matches(room) for room in model.room_indexes(hub))
        if filtering:  # a switcher finds every room, folded away or not
            return self._matches(model.index(source_row, 0, source_parent))
        return not self.show_headings or hub not in model.collapsed

    def _matches(self, index: Index) -> bool:
        pattern = self.filterRegularExpression()
        return any(pattern.match(str(index.data(role) or "")).hasMatch() for role in (Qt.ItemDataRole.DisplayRole, roles.ROOM_NAME))

    def lessThan(self, left: Index, right: Index) -> bool:
        # "Less" sorts first: the hubs in order, a heading before its rooms, newer activity
        # first, ties by label (the source's ``sort_keys``).
        keys = self._source_keys()
        return keys[left.row()] < keys[right.row()]

    def next_unread_row(self, after_row: int) -> int | None:
        """The next room row below ``after_row`` (wrapping, across hubs) with unread messages."""
        count = self.rowCount()
        for step in range(1, count + 1):
            row = (after_row + step) % count
            index = self.index(row, 0)
            if not index.data(roles.HUB_HEADER) and (index.data(roles.ROOM_UNREAD) or 0) > 0:
                return row
        return None
