"""The window's models over a real local store: rows, unread, paging, outbox echoes, qtmodeltester.

The session is support.stored_session's stand-in: a real StoreWorker plus the typed events a
HubSession emits; the models never talk to the network, so nothing of the client is faked.
"""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import Qt
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ALICE, ME, StoreBackedSession, add_messages, bridge, message, store, store_call  # noqa: F401

from parler_desktop.app import roles
from parler_desktop.app.room_list import room_list_model
from parler_desktop.app.room_list.room_list_model import RoomListModel, RoomSortFilterProxy
from parler_desktop.app.members.roster_model import RosterModel
from parler_desktop.app.timeline.timeline_model import MAX_ROWS, PAGE_SIZE, TimelineModel
from parler_desktop.client.events import (
    ConnectionState, MessagesStored, OutboxChanged, OutboxItem, OutboxStatus, RosterChanged, StateChanged,
)
from parler_desktop.protocol.values import RoomInfo, RosterEntry
from parler_desktop.store import LocalStore, StoreWorker


class RosterAskingSession(StoreBackedSession):
    """The room list also asks the session for a DM's roster when none is stored; this stand-in
    only records the asks (the real fetch runs against a hub in test_ui_window)."""

    def __init__(self, store: StoreWorker) -> None:
        super().__init__(store)
        self.roster_requests: list[str] = []

    async def refresh_roster(self, room: str) -> None:
        self.roster_requests.append(room)


@pytest.fixture
def session(store: StoreWorker) -> RosterAskingSession:
    return RosterAskingSession(store)


def opened_timeline(qtbot, bridge, qtmodeltester, room: str = "team") -> TimelineModel:
    """A timeline model (checked by qtmodeltester) with ``room`` opened and loaded."""
    model = TimelineModel(bridge)
    qtmodeltester.check(model)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room(room)
    return model


def seed_rooms(qtbot, qloop, session):
    rooms = (RoomInfo("team", "channel", 3, 0), RoomInfo("dm.abc234", "dm", 2, 0), RoomInfo("svc.review", "service", 4, 0))
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, rooms)
    add_messages(qtbot, qloop, session, [message(1, "team"), message(2, "dm.abc234"), message(3, "svc.review"), message(4, "team")])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 1)
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "svc.review", 3)


def test_room_list_shows_kinds_unread_and_recency(qtbot, qloop, session, bridge, qtmodeltester):
    seed_rooms(qtbot, qloop, session)
    model = RoomListModel(bridge)
    proxy = RoomSortFilterProxy()
    proxy.setSourceModel(model)
    model.reload()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    qtmodeltester.check(model)
    qtmodeltester.check(proxy)
    assert [proxy.index(r, 0).data(roles.ROOM_NAME) for r in range(3)] == ["team", "svc.review", "dm.abc234"]
    # A DM shows its room name until its roster is known (then asked of the hub, once).
    assert [proxy.index(r, 0).data() for r in range(3)] == ["team", "review (service)", "dm.abc234"]
    qtbot.waitUntil(lambda: session.roster_requests == ["dm.abc234"], timeout=5000)
    unread = {proxy.index(r, 0).data(roles.ROOM_NAME): proxy.index(r, 0).data(roles.ROOM_UNREAD) for r in range(3)}
    assert unread == {"team": 1, "svc.review": 0, "dm.abc234": 1}
    assert model.total_unread == 2
    assert {proxy.index(r, 0).data(roles.ROOM_KIND) for r in range(3)} == {"channel", "dm", "service"}
    proxy.setFilterFixedString("REV")
    assert [proxy.index(r, 0).data(roles.ROOM_NAME) for r in range(proxy.rowCount())] == ["svc.review"]


def test_a_reload_asked_for_just_before_the_session_goes_ends_quietly(qtbot, qloop, session, bridge, caplog):
    """Quitting (or going to another hub) right after news asked for a reload: the reload runs
    a turn later, with no session; it reads nothing and fails nothing."""
    seed_rooms(qtbot, qloop, session)
    model = RoomListModel(bridge)
    model.reload()
    bridge.detach()
    qtbot.waitUntil(lambda: not bridge.tasks.tasks, timeout=5000)  # the reload has run
    assert model.rowCount() == 0 and not [r for r in caplog.records if r.levelname == "ERROR"]
    bridge.attach(session)  # a session again: reloads work as before
    model.reload()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)


def test_a_dm_row_takes_the_other_members_name_from_the_roster(qtbot, qloop, session, bridge, qtmodeltester):
    seed_rooms(qtbot, qloop, session)
    model = RoomListModel(bridge)
    qtmodeltester.check(model)
    model.reload()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    assert model.label("dm.abc234") == "dm.abc234"
    members = (RosterEntry(ME.id, ME.name, "idle", 0), RosterEntry(ALICE.id, ALICE.name, "working", 0))
    with qtbot.waitSignal(model.dataChanged, timeout=5000):
        session.emit(RosterChanged("dm.abc234", members))
    assert model.label("dm.abc234") == "alice" and model.label("team") == "team"
    assert model.description("dm.abc234") == "alice  ·  dm.abc234  ·  dm  ·  2 members"
    session.emit(RosterChanged("team", members))  # a channel keeps its name whoever is in it
    assert model.label("team") == "team"

    # Stored, the roster names the DM at once on the next launch, without asking the hub.
    store_call(qtbot, qloop, session.store, LocalStore.replace_roster, "dm.abc234", members)
    relaunched_session = RosterAskingSession(session.store)
    bridge.detach()
    bridge.attach(relaunched_session)
    qtbot.waitUntil(lambda: model.rowCount() == 3 and model.label("dm.abc234") == "alice", timeout=5000)
    assert relaunched_session.roster_requests == []


def test_room_list_follows_new_messages_mentions_and_cursor(qtbot, qloop, session, bridge, qtmodeltester):
    seed_rooms(qtbot, qloop, session)
    model = RoomListModel(bridge)
    qtmodeltester.check(model)
    proxy = RoomSortFilterProxy()
    proxy.setSourceModel(model)
    model.reload()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    add_messages(qtbot, qloop, session, [message(10, "svc.review", "hey @boss", mentions=("boss",))])
    qtbot.waitUntil(lambda: (model.summary("svc.review").unread, model.summary("svc.review").mentions_unread) == (1, 1), timeout=5000)
    assert proxy.index(0, 0).data(roles.ROOM_NAME) == "svc.review"
    assert proxy.next_unread_row(0) is not None
    with qtbot.waitSignal(model.totalUnreadChanged, timeout=5000) as changed:
        store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "svc.review", 10)
        bridge.cursorChanged.emit("svc.review", 10)
    assert changed.args == [2]


def test_the_reload_a_catch_up_put_off_comes_as_soon_as_the_session_is_live(qtbot, qloop, session, bridge, monkeypatch):
    """While a session catches up, reloads wait (pages are being stored); the one still waiting
    when the catch-up ends runs at once, not a coalescing delay later (the wake's last rows)."""
    monkeypatch.setattr(room_list_model, "CATCH_UP_RELOAD_DELAY_MS", 600_000)  # longer than any wait below
    seed_rooms(qtbot, qloop, session)
    model = RoomListModel(bridge)
    model.reload()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    session.emit(StateChanged(ConnectionState.CATCHING_UP, session.hub_url, ME.id))
    add_messages(qtbot, qloop, session, [message(10, "svc.review")], live=False)
    assert model.summary("svc.review").unread == 0  # put off while catching up
    session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, ME.id))
    qtbot.waitUntil(lambda: model.summary("svc.review").unread == 1, timeout=5000)


def test_timeline_opens_on_the_newest_page_and_pages_back(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 451)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 400)
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    assert model.rowCount() == PAGE_SIZE
    assert model.entry(0).seq == 451 - PAGE_SIZE and model.newest_seq == 450
    assert model.entry(model.first_unread_row()).seq == 401
    assert model.index(model.first_unread_row()).data(roles.FIRST_UNREAD) is True
    with qtbot.waitSignal(model.olderLoaded, timeout=5000):
        assert model.load_older()
    assert model.rowCount() == 2 * PAGE_SIZE and model.entry(0).seq == 451 - 2 * PAGE_SIZE
    assert model.entry(model.first_unread_row()).seq == 401  # the rows read in above moved it down
    while model.has_older:
        with qtbot.waitSignal(model.olderLoaded, timeout=5000):
            assert model.load_older()
    assert model.entry(0).seq == 1 and not model.load_older()
    assert model.rowCount() == MAX_ROWS and model.has_newer  # (the newest went past the bound: read again on the way down)


def test_the_new_messages_divider_goes_above_the_first_to_arrive_and_stays_there(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 6)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 5)  # all read
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    assert model.first_unread_row() is None
    for seq in (6, 7):
        add_messages(qtbot, qloop, session, [message(seq, "team")])
        qtbot.waitUntil(lambda: model.newest_seq == seq, timeout=5000)
        assert model.entry(model.first_unread_row()).seq == 6


def test_timeline_appends_live_messages_once_and_in_order(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(1, "team")])
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    add_messages(qtbot, qloop, session, [message(5, "team"), message(3, "other"), message(7, "team")])
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    session.emit(MessagesStored("team", (message(5, "team"),)))  # a repeat is ignored
    add_messages(qtbot, qloop, session, [message(9, "team")])
    qtbot.waitUntil(lambda: model.rowCount() == 4, timeout=5000)
    assert [model.entry(r).seq for r in range(4)] == [1, 5, 7, 9]


def test_outbox_rows_go_pending_failed_sent_then_become_the_stored_message(qtbot, qloop, session, bridge, qtmodeltester):
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    item = OutboxItem("c1", "team", ({"kind": "text", "text": "hello"},), 1_700_000_000.0)
    session.emit(OutboxChanged(item))
    assert model.rowCount() == 1 and model.entry(0).is_pending and model.entry(0).mine
    session.emit(OutboxChanged(OutboxItem("c1", "team", item.parts, item.created_at, OutboxStatus.FAILED, error="not a member")))
    assert model.rowCount() == 1 and model.entry(0).is_failed
    session.emit(OutboxChanged(OutboxItem("c1", "team", item.parts, item.created_at, OutboxStatus.SENT, message_id="m12", seq=12)))
    assert model.rowCount() == 1 and model.entry(0).outbox.seq == 12
    add_messages(qtbot, qloop, session, [message(12, "team", "hello", sender=ME)])
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).outbox is None, timeout=5000)
    assert model.entry(0).mine and model.entry(0).seq == 12
    session.emit(OutboxChanged(OutboxItem("c2", "team", item.parts, item.created_at)))
    session.emit(OutboxChanged(OutboxItem("c2", "team", item.parts, item.created_at, OutboxStatus.DISCARDED)))
    assert model.rowCount() == 1


def test_unsent_posts_come_back_when_the_room_is_reopened(qtbot, qloop, session, bridge):
    item = OutboxItem("c9", "team", ({"kind": "text", "text": "later"},), 1_700_000_000.0)
    store_call(qtbot, qloop, session.store, LocalStore.outbox_add, item)
    model = TimelineModel(bridge)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room("team")
    assert model.rowCount() == 1 and model.entry(0).is_pending


def test_roster_shows_members_busy_first(qtbot, qloop, session, bridge, qtmodeltester):
    entries = (
        RosterEntry("UALICE", "alice", "idle", 1, role="planner"),
        RosterEntry("UBOB", "bob", "working", 1, role="coder", activity="fixing the build"),
    )
    store_call(qtbot, qloop, session.store, LocalStore.replace_roster, "team", entries)
    model = RosterModel(bridge)
    qtmodeltester.check(model)
    model.set_room("team")
    assert session.watched == ["team"]
    qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=5000)
    assert model.index(0).data() == "bob" and model.index(0).data(roles.MEMBER_ACTIVITY) == "fixing the build"
    session.emit(RosterChanged("team", entries[:1]))
    assert model.rowCount() == 1 and model.names() == ["alice"]
    session.emit(RosterChanged("other", entries))
    assert model.rowCount() == 1
    session.emit(RosterChanged("team", (RosterEntry("UMAL", "\u202etoor", "idle", 1),)))  # would read "root"
    assert model.index(0).data() == "\ufffdtoor" and "\ufffdtoor — idle" in model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert model.names() == ["\u202etoor"]  # (for mentions: the name as the hub knows it)


def test_a_post_changing_while_the_room_loads_is_not_lost(qtbot, qloop, session, bridge):
    model = TimelineModel(bridge)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room("team")
        assert model.loading
        session.emit(OutboxChanged(OutboxItem("c5", "team", ({"kind": "text", "text": "quick"},), 1_700_000_000.0)))
    assert model.rowCount() == 1 and model.entry(0).is_pending


def test_a_late_gap_fill_lands_where_its_seq_belongs(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(2, 902, 2)])  # 450 rows
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 900)  # read: opens at the newest page
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    assert model.entry(0).seq == 902 - 2 * PAGE_SIZE and model.rowCount() == PAGE_SIZE
    model.following = False  # the reader is up in the history: the loaded rows stay (no trim)
    add_messages(qtbot, qloop, session, [message(901, "team"), message(899, "team")])  # a push, then the lost one
    qtbot.waitUntil(lambda: model.rowCount() == PAGE_SIZE + 2, timeout=5000)
    assert [model.entry(r).seq for r in range(PAGE_SIZE - 3, PAGE_SIZE + 2)] == [896, 898, 899, 900, 901]
    add_messages(qtbot, qloop, session, [message(3, "team")])  # older than the window: found when paging back
    while model.has_older:
        with qtbot.waitSignal(model.olderLoaded, timeout=5000):
            model.load_older()
    assert [model.entry(r).seq for r in range(3)] == [2, 3, 4] and model.rowCount() == MAX_ROWS  # (of 453)


def test_a_sent_post_takes_its_place_by_seq_before_newer_messages(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(10, "team")])
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    item = OutboxItem("c1", "team", ({"kind": "text", "text": "mine"},), 1_700_000_000.0)
    session.emit(OutboxChanged(item))
    add_messages(qtbot, qloop, session, [message(13, "team", "after mine")])  # pushed before our reply came
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=5000)
    assert [model.entry(r).seq for r in range(3)] == [10, 13, None]
    session.emit(OutboxChanged(OutboxItem("c1", "team", item.parts, item.created_at, OutboxStatus.SENT, message_id="m12", seq=12)))
    assert [model.entry(r).seq for r in range(3)] == [10, 12, 13] and model.entry(1).mine
    add_messages(qtbot, qloop, session, [message(12, "team", "mine", sender=ME)])
    qtbot.waitUntil(lambda: model.entry(1).message is not None, timeout=5000)
    assert [model.entry(r).seq for r in range(model.rowCount())] == [10, 12, 13]


def test_a_backlog_longer_than_a_page_opens_at_the_first_unread_and_pages_forward(qtbot, qloop, session, bridge, qtmodeltester):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 1001)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 300)  # 700 unread
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    assert model.rowCount() == PAGE_SIZE and model.has_newer and model.has_older  # one page read, not 700 rows
    assert model.entry(model.first_unread_row()).seq == 301 and model.entry(0).seq == 281  # a little context above
    arrived: list[int] = []
    model.appended.connect(arrived.append)
    prepared: list[str] = []
    model.prepare_row = lambda entry: prepared.append(entry.key)
    add_messages(qtbot, qloop, session, [message(1001, "team")])  # live, past the window: not appended yet
    qtbot.waitUntil(lambda: arrived == [1], timeout=5000)  # counted for the "new messages" pill
    assert model.newest_seq == 280 + PAGE_SIZE
    assert prepared == []  # nor laid out by a view: that waits until the reader gets there
    assert model.load_newer()
    qtbot.waitUntil(lambda: model.rowCount() == 2 * PAGE_SIZE, timeout=5000)
    assert model.newest_seq == 280 + 2 * PAGE_SIZE and model.has_newer
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.load_latest()
    assert model.newest_seq == 1001 and not model.has_newer and model.first_unread_outside


def test_arrivals_reach_a_model_while_it_lives_and_no_longer(qtbot, qloop, session, bridge):
    """Pushed messages not stored yet go to their handlers without a Qt signal: a handler whose
    object is gone (collected, or its Qt object deleted with its parent) is dropped, not called."""
    from PySide6.QtCore import QObject

    from parler_desktop.client.events import MessagesArrived

    class Listener(QObject):
        def __init__(self, heard: list[str], parent: QObject | None = None) -> None:
            super().__init__(parent)
            self.heard = heard

        def arrived(self, room: str, messages) -> None:  # noqa: ANN001
            self.heard.append(room)

    heard: list[str] = []
    alone = Listener(heard)
    owner = QObject()
    parented = Listener(heard, owner)
    bridge.on_arrival(alone.arrived)
    bridge.on_arrival(parented.arrived)
    session.emit(MessagesArrived("team", (message(1, "team"),)))
    assert heard == ["team", "team"]
    del alone
    owner.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(parented), timeout=5000)
    session.emit(MessagesArrived("ops", (message(2, "ops"),)))
    assert heard == ["team", "team"]


def test_a_reader_up_in_the_history_holds_at_most_max_rows_and_reads_the_newer_on_the_way_down(
    qtbot, qloop, session, bridge, qtmodeltester, monkeypatch
):
    """Issue 42: a window left scrolled up appended every message that came, for as long as it stayed."""
    from parler_desktop.app.timeline import timeline_model

    monkeypatch.setattr(timeline_model, "MAX_ROWS", 150)
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 11)])
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    model.following = False  # the reader is up in the history
    arrived: list[int] = []
    model.appended.connect(arrived.append)
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(11, 411)])
    qtbot.waitUntil(lambda: sum(arrived) == 400, timeout=10_000)
    assert model.rowCount() <= 150 and model.has_newer
    while model.has_newer:
        newest = model.newest_seq
        assert model.load_newer()
        qtbot.waitUntil(lambda: model.newest_seq > newest or not model.has_newer, timeout=5000)
        assert model.rowCount() <= 150  # the oldest go on the way down
    seqs = [model.entry(r).seq for r in range(model.rowCount())]
    assert seqs == list(range(411 - len(seqs), 411))


def test_scrolling_back_to_a_long_rooms_start_holds_at_most_max_rows_and_reads_the_newer_on_the_way_down(
    qtbot, qloop, session, bridge, qtmodeltester, monkeypatch
):
    """Issue 42: each older page read on the way up was kept with every newer row: a room of
    10,000 messages scrolled back to its start held 10,000 rows (and the view their laid-out
    bodies: 154.6 -> 434.9 MB in bench_memory.py --room-messages 10000)."""
    from parler_desktop.app.timeline import timeline_model

    monkeypatch.setattr(timeline_model, "MAX_ROWS", 150)
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 401)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 400)
    model = opened_timeline(qtbot, bridge, qtmodeltester)
    model.following = False  # the reader scrolls up
    most = 0
    while model.has_older:
        first = model.entry(0).seq
        assert model.load_older()
        qtbot.waitUntil(lambda: model.entry(0).seq < first, timeout=5000)
        most = max(most, model.rowCount())
    assert model.entry(0).seq == 1 and most <= 150 and model.has_newer
    while model.has_newer:
        newest = model.newest_seq
        assert model.load_newer()
        qtbot.waitUntil(lambda: model.newest_seq > newest or not model.has_newer, timeout=5000)
    assert model.newest_seq == 400
