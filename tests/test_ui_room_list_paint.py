"""What painting the sidebar asks of its model (issue 42 item 3): the sidebar repaints every row on
screen at each change of any hub's rooms, so a row's paint asks for all it shows in one call
(``RoomRow``), and laying the list out after a re-sort does not ask the delegate for each row's
size (they are all as tall). Over a real local store; what a row shows is read back from it."""

from __future__ import annotations

from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import add_messages, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app import roles
from parler_desktop.app.hubs.hub_list import HubList
from parler_desktop.app.room_list.hub_rooms_model import HubRoomsModel
from parler_desktop.app.room_list import room_list_model
from parler_desktop.app.room_list.room_list_model import RoomRow
from parler_desktop.client.events import RoomsChanged
from parler_desktop.protocol.values import RoomInfo
from parler_desktop.store import LocalStore
from parler_desktop.ui.room_list.room_list_view import RoomBadgeDelegate, RoomListPanel


class CountingRooms(HubRoomsModel):
    def __init__(self, hubs: HubList) -> None:
        super().__init__(hubs)
        self.asked: list[int] = []

    def data(self, index, role=0):
        self.asked.append(role)
        return super().data(index, role)


class CountingDelegate(RoomBadgeDelegate):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.sized = 0

    def sizeHint(self, option, index):
        self.sized += 1
        return super().sizeHint(option, index)


def sidebar_of(qtbot, qloop, session, rooms: int, *, texts: bool = False, delegate_class=None, model_class=None):
    """A shown sidebar of ``rooms`` rooms of one hub, each with a message stored (``hello N`` with
    ``texts``): the panel, the delegate and model put in it (if any) and the hub's entry."""
    infos = [RoomInfo(f"room-{n:02d}", "channel", 2, 0) for n in range(rooms)]
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, infos)
    add_messages(qtbot, qloop, session, [message(n + 1, room.name, f"hello {n}" if texts else "") for n, room in enumerate(infos)])
    hubs = HubList()
    panel = RoomListPanel(hubs)
    qtbot.addWidget(panel)
    delegate = model = None
    if delegate_class is not None:
        delegate = delegate_class(panel.view)
        panel.view.setItemDelegate(delegate)
    if model_class is not None:
        model = model_class(hubs)
        panel.proxy.setSourceModel(model)
    panel.resize(300, 500)
    panel.show()
    entry = hubs.add("ws://one")
    entry.bridge.attach(session)
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == rooms, timeout=5000)  # (one hub: no heading shown)
    return panel, delegate, model, entry


def test_a_room_row_is_painted_from_one_call_with_what_the_store_holds(qtbot, qloop, session):
    panel, _, model, _ = sidebar_of(qtbot, qloop, session, 30, texts=True, model_class=CountingRooms)
    row = panel.proxy.index(0, 0).data(roles.ROOM_ROW)
    assert row == RoomRow("ws://one", "room-29", "room-29", "channel", 1, 0, "alice: hello 29")
    assert model.index(0).data(roles.ROOM_ROW) is None  # the heading
    panel.view.doItemsLayout()
    model.asked.clear()
    panel.view.viewport().repaint()
    painted = model.asked.count(roles.ROOM_ROW)
    assert painted >= 5  # the rows on screen
    assert len(model.asked) == painted  # one call a row (six, nine with the agents' dot, before)


def test_the_sidebar_lays_out_without_asking_each_row_for_its_size(qtbot, qloop, session):
    panel, delegate, _, _ = sidebar_of(qtbot, qloop, session, 60, delegate_class=CountingDelegate)
    delegate.sized = 0
    add_messages(qtbot, qloop, session, [message(500, "room-07")])  # re-sorted: room-07 to the top
    qtbot.waitUntil(lambda: panel.proxy.index(0, 0).data(roles.ROOM_NAME) == "room-07", timeout=5000)
    panel.view.doItemsLayout()
    assert delegate.sized <= 5  # a row's size serves them all (208 asked before)


class PaintingDelegate(RoomBadgeDelegate):
    """Counts the rooms painted afresh (not drawn from a row's pixmap, ``row_pixmaps``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.painted: list[str] = []

    def paint_room(self, painter, option, row) -> None:
        self.painted.append(row.name)
        super().paint_room(painter, option, row)


def test_a_room_row_is_painted_afresh_only_when_what_it_shows_changed(qtbot, qloop, session):
    panel, delegate, _, _ = sidebar_of(qtbot, qloop, session, 30, texts=True, delegate_class=PaintingDelegate)
    panel.view.doItemsLayout()
    panel.view.viewport().repaint()
    first = panel.view.viewport().grab().toImage()
    on_screen = set(delegate.painted)
    assert len(on_screen) >= 5
    delegate.painted.clear()
    panel.view.viewport().repaint()
    assert delegate.painted == []  # nothing changed: every row drawn as painted before
    assert panel.view.viewport().grab().toImage() == first  # and it looks the same
    add_messages(qtbot, qloop, session, [message(500, "room-07", "news")])  # room-07 to the top, the others move down
    qtbot.waitUntil(lambda: panel.proxy.index(0, 0).data(roles.ROOM_NAME) == "room-07", timeout=5000)
    panel.view.viewport().repaint()
    assert set(delegate.painted) == {"room-07"}  # its count and preview changed; the rows that moved did not
    assert panel.proxy.index(0, 0).data(roles.ROOM_ROW).preview == "alice: news"


def test_rooms_changed_in_one_reload_are_shown_newest_first(qtbot, qloop, session):
    panel, _, _, _ = sidebar_of(qtbot, qloop, session, 30)
    # Scattered rooms, newer in another order than their rows': one reload changes them all.
    add_messages(qtbot, qloop, session, [message(100 + n, name) for n, name in enumerate(["room-03", "room-21", "room-10", "room-27", "room-05"])])
    shown = lambda: [panel.proxy.index(row, 0).data(roles.ROOM_NAME) for row in range(panel.proxy.rowCount())]  # noqa: E731
    qtbot.waitUntil(lambda: "room-05" in shown()[:5], timeout=5000)
    newest_first = ["room-05", "room-27", "room-10", "room-21", "room-03"] + [f"room-{n:02d}" for n in reversed(range(30)) if n not in (3, 5, 10, 21, 27)]
    assert shown() == newest_first


def test_a_rooms_refresh_that_changes_nothing_shown_re_sorts_and_repaints_nothing(qtbot, qloop, session):
    """The hub's own unread counts (refreshed with its room list, a few times a minute at 60
    messages/s) are not shown: rows whose change is only those are not announced, and the sidebar
    re-sorts and repaints nothing for them (every row of every hub did, at each refresh)."""
    panel, _, _, entry = sidebar_of(qtbot, qloop, session, 30)
    rooms = [RoomInfo(f"room-{n:02d}", "channel", 2, 0) for n in range(30)]
    announced: list[tuple[int, int]] = []
    entry.rooms.dataChanged.connect(lambda top, bottom, _roles=(): announced.append((top.row(), bottom.row())))
    counted = [RoomInfo(room.name, "channel", 2, 7) for room in rooms]  # the hub counts 7 unread in each
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, counted)
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        session.emit(RoomsChanged(tuple(counted)))
    assert entry.rooms.summary("room-03").hub_unread == 7  # (kept, for what reads it)
    assert announced == []
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, [RoomInfo(room.name, "channel", 3, 7) for room in rooms])
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        session.emit(RoomsChanged(tuple(counted)))
    assert announced == [(0, 29)]  # a room's size is shown (its tooltip): announced


def test_a_hundred_rows_changed_at_once_are_announced_a_few_at_a_time_over_several_turns(qtbot, qloop, session, monkeypatch):
    """A hub's catch-up over changes every row of its list at once: announced all together, the
    proxy placed them all in one go (64 ms for 100 rows, bench_hubs.py's wake). Past
    ``ROWS_SECS_PER_TURN`` (here: none), the rest wait for the loop's next turns,
    ``ROWS_AT_ONCE`` at a time, and every row ends up right, in its place."""
    monkeypatch.setattr(room_list_model, "ROWS_SECS_PER_TURN", 0.0)
    panel, _, _, entry = sidebar_of(qtbot, qloop, session, 100)
    announced: list[tuple[int, int]] = []
    entry.rooms.dataChanged.connect(lambda top, bottom, _roles=(): announced.append((top.row(), bottom.row())))
    grown = [RoomInfo(f"room-{n:02d}", "channel", 3, 0) for n in range(100)]  # a room's size is shown (its tooltip)
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, grown)
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        session.emit(RoomsChanged(tuple(grown)))
    size = room_list_model.ROWS_AT_ONCE
    assert announced == [(0, size - 1)]  # the first few in this turn, the rest after it
    qtbot.waitUntil(lambda: len(announced) == 4, timeout=5000)
    assert announced == [(start, min(99, start + size - 1)) for start in range(0, 100, size)]
    assert all(entry.rooms.summary(room.name).members == 3 for room in grown)
    shown = [panel.proxy.index(row, 0).data(roles.ROOM_NAME) for row in range(panel.proxy.rowCount())]
    assert shown == [f"room-{n:02d}" for n in reversed(range(100))]  # newest first, as before


def test_a_hundred_rooms_listed_at_once_are_added_a_few_at_a_time_over_several_turns(qtbot, qloop, session, monkeypatch):
    """A hub's 100 rooms read from its cache at launch: added to the sidebar all together, the
    proxy placed them in one go (37 ms, bench_hubs.py's wake); past ``ROWS_SECS_PER_TURN`` (here:
    none) the rest are added on the next turns, ``ROWS_AT_ONCE`` at a time, all of them shown."""
    monkeypatch.setattr(room_list_model, "ROWS_SECS_PER_TURN", 0.0)
    infos = [RoomInfo(f"room-{n:02d}", "channel", 2, 0) for n in range(100)]
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, infos)
    add_messages(qtbot, qloop, session, [message(n + 1, room.name) for n, room in enumerate(infos)])
    hubs = HubList()
    panel = RoomListPanel(hubs)
    qtbot.addWidget(panel)
    panel.show()
    entry = hubs.add("ws://one")
    inserted: list[tuple[int, int]] = []
    entry.rooms.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        entry.bridge.attach(session)
    size = room_list_model.ROWS_AT_ONCE
    assert entry.rooms.rowCount() == size  # the first few in this turn, the rest after it
    qtbot.waitUntil(lambda: panel.proxy.rowCount() == 100, timeout=5000)
    assert inserted == [(start, min(99, start + size - 1)) for start in range(0, 100, size)]
    shown = [panel.proxy.index(row, 0).data(roles.ROOM_NAME) for row in range(panel.proxy.rowCount())]
    assert shown == [f"room-{n:02d}" for n in reversed(range(100))]  # newest first
