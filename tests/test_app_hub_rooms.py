"""The sidebar's all-hubs model and its order over real local stores: each hub's heading, then
its rooms newest activity first (then by label), kept in order as the rows change.

The order comes from sort keys each model makes again only after its rows change
(``room_list_model.py``): these tests move rows every way a row can move and check the order
the proxy shows against the one the rows call for.
"""

from __future__ import annotations

import dataclasses

import pytest
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import ME, StoreBackedSession, add_messages, message, store_call

from parler_desktop.app import roles
from parler_desktop.app.hubs.hub_list import HubList
from parler_desktop.app.room_list.hub_rooms_model import HubRoomsModel
from parler_desktop.app.room_list.room_list_model import RoomSortFilterProxy
from parler_desktop.client.events import ConnectionState, RosterChanged, StateChanged
from parler_desktop.protocol.values import RoomInfo, RosterEntry
from parler_desktop.store import LocalStore, StoreWorker


class DmSession(StoreBackedSession):
    """The room list asks the session for a DM's roster when none is stored: answered here by
    the ``RosterChanged`` a test emits."""

    async def refresh_roster(self, room: str) -> None:
        pass


@pytest.fixture
def sessions(qtbot, qloop, tmp_path):
    """Two hubs' stand-in sessions, each over a store of its own."""
    made = []
    for name in ("first", "second"):
        store = StoreWorker(tmp_path / f"{name}.sqlite3")
        run_coroutine(qtbot, qloop, store.open())
        made.append(DmSession(store))
    yield made
    for session in made:
        run_coroutine(qtbot, qloop, session.store.close())


def sidebar_of_hubs() -> tuple[HubList, HubRoomsModel, RoomSortFilterProxy]:
    """No hub yet, and the sidebar's model and proxy over them, headings shown."""
    hubs = HubList()
    model = HubRoomsModel(hubs)
    proxy = RoomSortFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_show_headings(True)
    return hubs, model, proxy


def shown(proxy: RoomSortFilterProxy) -> list[str]:
    """The sidebar as listed: "#N" for hub N's heading, then room names."""
    rows = []
    for row in range(proxy.rowCount()):
        index = proxy.index(row, 0)
        rows.append(f"#{index.data(roles.HUB_ORDER)}" if index.data(roles.HUB_HEADER) else index.data(roles.ROOM_NAME))
    return rows


def test_each_hub_lists_its_rooms_newest_first_under_its_heading_as_rows_change(qtbot, qloop, sessions, qtmodeltester):
    first, second = sessions
    for session, rooms in ((first, ("alpha", "beta", "dm.xyz")), (second, ("gamma", "delta"))):
        store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, [RoomInfo(r, "dm" if r.startswith("dm.") else "channel", 2, 0) for r in rooms])
    add_messages(qtbot, qloop, first, [message(1, "alpha"), message(2, "beta"), message(3, "dm.xyz")])
    add_messages(qtbot, qloop, second, [message(4, "gamma"), message(5, "delta")])
    hubs, model, proxy = sidebar_of_hubs()
    qtmodeltester.check(model)
    qtmodeltester.check(proxy)
    for url, session in (("ws://first", first), ("ws://second", second)):
        hubs.add(url).bridge.attach(session)
    expected = ["#0", "dm.xyz", "beta", "alpha", "#1", "delta", "gamma"]
    qtbot.waitUntil(lambda: shown(proxy) == expected, timeout=5000)

    # Newer activity moves a room to the top of its own hub's rooms, and only there.
    add_messages(qtbot, qloop, first, [message(6, "alpha")])
    add_messages(qtbot, qloop, second, [message(7, "gamma")])
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "alpha", "dm.xyz", "beta", "#1", "gamma", "delta"], timeout=5000)

    # Two rooms with the same activity go by label: a DM's label (its other member) changes it.
    add_messages(qtbot, qloop, first, [message(8, "beta"), dataclasses.replace(message(8_000_000, "dm.xyz"), ts=message(8, "beta").ts)])
    qtbot.waitUntil(lambda: shown(proxy)[1:3] == ["beta", "dm.xyz"], timeout=5000)  # "beta" < "dm.xyz"
    members = (RosterEntry(ME.id, ME.name, "idle", 0), RosterEntry("UAARON", "aaron", "working", 0))
    first.emit(RosterChanged("dm.xyz", members))  # now labelled "aaron"
    qtbot.waitUntil(lambda: shown(proxy)[1:3] == ["dm.xyz", "beta"], timeout=5000)

    # A room the hub no longer lists goes; a new one comes in its place by its activity.
    store_call(qtbot, qloop, first.store, LocalStore.replace_rooms, [RoomInfo(r, "channel", 2, 0) for r in ("alpha", "beta", "omega")])
    add_messages(qtbot, qloop, first, [message(9_000_000, "omega")])
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "omega", "beta", "alpha", "#1", "gamma", "delta"], timeout=5000)

    # A hub removed takes its heading and rooms; the others keep their order.
    hubs.remove(hubs.entries[0])
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "gamma", "delta"], timeout=5000)


def two_hubs_shown(qtbot, qloop, sessions, qtmodeltester=None) -> tuple[HubList, HubRoomsModel, RoomSortFilterProxy]:
    """Two hubs, alpha and beta on the first, gamma and delta on the second, each room with a
    message, shown under headings newest first (the proxy checked by ``qtmodeltester``, if given)."""
    first, second = sessions
    for session, rooms in ((first, ("alpha", "beta")), (second, ("gamma", "delta"))):
        store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, [RoomInfo(r, "channel", 2, 0) for r in rooms])
    add_messages(qtbot, qloop, first, [message(1, "alpha"), message(2, "beta")])
    add_messages(qtbot, qloop, second, [message(3, "gamma"), message(4, "delta")])
    hubs, model, proxy = sidebar_of_hubs()
    if qtmodeltester is not None:
        qtmodeltester.check(proxy)
    for url, session in (("ws://first", first), ("ws://second", second)):
        hubs.add(url).bridge.attach(session)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "beta", "alpha", "#1", "delta", "gamma"], timeout=5000)
    return hubs, model, proxy


def test_a_held_order_keeps_every_room_in_place_and_letting_go_sorts_them(qtbot, qloop, sessions, qtmodeltester):
    """While held (the pointer over the list), newer activity moves nothing and a room new
    meanwhile goes at the end of its hub; let go, the rows take their order again."""
    first, second = sessions
    hubs, model, proxy = two_hubs_shown(qtbot, qloop, sessions, qtmodeltester)

    model.hold_order(True)
    add_messages(qtbot, qloop, first, [message(5, "alpha")])
    store_call(qtbot, qloop, second.store, LocalStore.replace_rooms, [RoomInfo(r, "channel", 2, 0) for r in ("gamma", "delta", "omega")])
    add_messages(qtbot, qloop, second, [message(6, "omega"), message(7, "gamma")])
    qtbot.waitUntil(lambda: hubs.entries[1].rooms.summary("omega") is not None and hubs.entries[0].rooms.summary("alpha").max_seq == 5, timeout=5000)
    qtbot.waitUntil(lambda: hubs.entries[1].rooms.summary("gamma").max_seq == 7, timeout=5000)
    assert shown(proxy) == ["#0", "beta", "alpha", "#1", "delta", "gamma", "omega"]

    model.hold_order(False)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "alpha", "beta", "#1", "gamma", "omega", "delta"], timeout=5000)


def test_letting_go_sorts_one_hub_a_turn_and_a_hold_meanwhile_keeps_the_others_in_place(qtbot, qloop, sessions, qtmodeltester):
    """The pointer leaving the list sorted every hub's rooms again in one go (30-60 ms of the
    window's thread under traffic, issue 42): one hub a turn now, the first at once. The pointer
    back before the others' turn keeps them where they are on screen; let go, they sort too."""
    first, second = sessions
    hubs, model, proxy = two_hubs_shown(qtbot, qloop, sessions, qtmodeltester)
    model.hold_order(True)
    add_messages(qtbot, qloop, first, [message(5, "alpha")])
    add_messages(qtbot, qloop, second, [message(6, "gamma")])
    qtbot.waitUntil(
        lambda: hubs.entries[0].rooms.summary("alpha").max_seq == 5 and hubs.entries[1].rooms.summary("gamma").max_seq == 6, timeout=5000,
    )
    assert shown(proxy) == ["#0", "beta", "alpha", "#1", "delta", "gamma"]  # (held)

    model.hold_order(False)
    assert shown(proxy) == ["#0", "alpha", "beta", "#1", "delta", "gamma"]  # the first hub at once, the second not yet
    model.hold_order(True)  # the pointer is back before the second hub's turn
    add_messages(qtbot, qloop, first, [message(7, "beta")])
    add_messages(qtbot, qloop, second, [message(8, "delta")])
    qtbot.waitUntil(  # (turns of the loop: a release due came meanwhile)
        lambda: hubs.entries[0].rooms.summary("beta").max_seq == 7 and hubs.entries[1].rooms.summary("delta").max_seq == 8, timeout=5000,
    )
    assert shown(proxy) == ["#0", "alpha", "beta", "#1", "delta", "gamma"]  # both hubs held where they were on screen

    model.hold_order(False)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "beta", "alpha", "#1", "delta", "gamma"], timeout=5000)
    add_messages(qtbot, qloop, second, [message(9, "gamma")])  # (and sorted as ever once let go)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "beta", "alpha", "#1", "gamma", "delta"], timeout=5000)


def test_while_the_order_is_held_a_change_of_one_hub_s_rooms_makes_only_its_keys_again(qtbot, qloop, sessions):
    """Held (the pointer over the list, or its focus: after a click, most of the time), every
    signal of a tick's changes made every hub's rows' keys again for the proxy's sort."""
    first, _second = sessions
    hubs, model, proxy = two_hubs_shown(qtbot, qloop, sessions)
    model.hold_order(True)
    before = model.sort_keys()
    add_messages(qtbot, qloop, first, [message(5, "alpha")])
    qtbot.waitUntil(lambda: hubs.entries[0].rooms.summary("alpha").max_seq == 5, timeout=5000)
    after = model.sort_keys()
    assert after is not before and after[:3] != before[:3]  # the first hub's keys are new…
    assert all(new is old for new, old in zip(after[4:], before[4:]))  # …the second's rooms' are the same ones
    assert shown(proxy) == ["#0", "beta", "alpha", "#1", "delta", "gamma"]  # (held)


def one_hub_shown(qtbot, qloop, session, names: list[str], proxy: RoomSortFilterProxy) -> tuple[HubList, HubRoomsModel]:
    """``names`` listed on one hub, a message in each (the last one's newest), shown through
    ``proxy`` newest first."""
    store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, [RoomInfo(name, "channel", 2, 0) for name in names])
    add_messages(qtbot, qloop, session, [message(n + 1, name) for n, name in enumerate(names)])
    hubs = HubList()
    model = HubRoomsModel(hubs)
    proxy.setSourceModel(model)
    hubs.add("ws://first").bridge.attach(session)
    qtbot.waitUntil(lambda: shown(proxy) == list(reversed(names)), timeout=5000)
    return hubs, model


def test_letting_go_of_the_held_order_shows_rooms_changed_meanwhile_newest_first(qtbot, qloop, sessions):
    """Rooms changed far apart while held take their places together when let go: each run of
    them announced in turn was placed among the others' keys, already changed too, and the
    sidebar kept them out of order (and the next hold moved them under the pointer)."""
    first, _second = sessions
    rooms = [f"r{n:02d}" for n in range(40)]
    proxy = RoomSortFilterProxy()
    hubs, model = one_hub_shown(qtbot, qloop, first, rooms, proxy)
    model.hold_order(True)
    changed = ["r02", "r31", "r09", "r17", "r05", "r38", "r00", "r24"]
    for seq, room in enumerate(changed, start=100):  # a reload each
        add_messages(qtbot, qloop, first, [message(seq, room)])
        qtbot.waitUntil(lambda seq=seq, room=room: hubs.entries[0].rooms.summary(room).max_seq == seq, timeout=5000)
    assert shown(proxy) == list(reversed(rooms))  # (held)
    model.hold_order(False)
    assert shown(proxy) == list(reversed(changed)) + [r for r in reversed(rooms) if r not in changed]


class CountingProxy(RoomSortFilterProxy):
    """The sidebar's proxy, counting the rows it filters again (each a Python call, as the window's)."""

    def __init__(self) -> None:
        super().__init__()
        self.filtered = 0

    def filterAcceptsRow(self, source_row, source_parent) -> bool:
        self.filtered += 1
        return super().filterAcceptsRow(source_row, source_parent)


def test_a_reload_that_changes_two_rooms_far_apart_has_the_proxy_look_at_those_two_only(qtbot, qloop, sessions):
    """At 60 msg/s a hub's reload changes a few rooms scattered over its list; the proxy filtered
    and re-sorted every row between them (issue 42 item 3). The order stays right."""
    first, _second = sessions
    names = [f"room-{n:03d}" for n in range(100)]
    proxy = CountingProxy()
    one_hub_shown(qtbot, qloop, first, names, proxy)
    proxy.filtered = 0
    add_messages(qtbot, qloop, first, [message(500, "room-010"), message(501, "room-090")])
    qtbot.waitUntil(lambda: shown(proxy)[:2] == ["room-090", "room-010"], timeout=5000)
    assert proxy.filtered == 3  # the two changed rows and the heading (its unread total), not the 81 from one to the other
    assert shown(proxy)[2:] == [name for name in reversed(names) if name not in ("room-010", "room-090")]


class AskedRooms(HubRoomsModel):
    """The all-hubs model, counting what is asked of it through Qt (``data``)."""

    def __init__(self, hubs: HubList) -> None:
        super().__init__(hubs)
        self.asked = 0

    def data(self, index, role=0):
        self.asked += 1
        return super().data(index, role)


def test_letting_go_of_the_held_order_sorts_without_asking_each_row_through_qt(qtbot, qloop, sessions):
    """The pointer leaving the sidebar sorted every row again (issue 42 item 3), filtering each
    through Qt (four calls a row, ~25 ms for five hubs' 500 rooms); only the rooms that changed
    while held can have moved. Folded hubs and the order stay right."""
    hubs = HubList()
    model = AskedRooms(hubs)
    proxy = CountingProxy()
    proxy.setSourceModel(model)
    proxy.set_show_headings(True)
    for session, prefix in zip(sessions, ("a", "b")):
        names = [f"{prefix}{n:02d}" for n in range(40)]
        store_call(qtbot, qloop, session.store, LocalStore.replace_rooms, [RoomInfo(name, "channel", 2, 0) for name in names])
        add_messages(qtbot, qloop, session, [message(n + 1 + (0 if prefix == "a" else 100), name) for n, name in enumerate(names)])
    for url, session in (("ws://first", sessions[0]), ("ws://second", sessions[1])):
        hubs.add(url).bridge.attach(session)
    qtbot.waitUntil(lambda: len(shown(proxy)) == 82, timeout=5000)
    model.set_collapsed("ws://second", True)
    proxy.refilter()
    assert shown(proxy)[:2] == ["#0", "a39"] and shown(proxy)[-1] == "#1"
    model.hold_order(True)
    add_messages(qtbot, qloop, sessions[0], [message(1000, "a05")])
    qtbot.waitUntil(lambda: hubs.entries[0].rooms.summary("a05").max_seq == 1000, timeout=5000)
    assert shown(proxy)[1] == "a39"  # held
    model.asked = proxy.filtered = 0
    model.hold_order(False)
    assert model.asked < 41  # (242 before: each row through Qt)
    assert proxy.filtered == 1  # only the room that changed while held is sorted again (every row before: 82)
    assert shown(proxy)[:3] == ["#0", "a05", "a39"] and shown(proxy)[-1] == "#1"  # sorted; the second hub still folded


def test_a_hub_going_live_has_its_room_list_read_again(qtbot, qloop, sessions):
    """What is decided once a hub is live (a room it no longer lists, a link to a room the human
    is not in) is decided on a ``reloaded``: a hub whose list was read before it went live, and
    that lists no rooms, read none after, and a link waited for ever (test_journey_hubs'
    message-link journey, failing so in parallel runs)."""
    first, _second = sessions
    hubs = HubList()
    entry = hubs.add("ws://first")
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        entry.bridge.attach(first)
    assert not entry.bridge.is_live
    with qtbot.waitSignal(entry.rooms.reloaded, timeout=5000):
        first.emit(StateChanged(ConnectionState.LIVE, first.hub_url, first.agent_id))
    assert entry.rooms.room_names() == []


def test_a_hub_s_session_attached_to_its_empty_list_rebuilds_no_other_hub_s_rows(qtbot, qloop, sessions, qtmodeltester):
    """Each hub's session attaches as the window launches, its list still empty: a reset of its
    list rebuilt every hub's rows in the sidebar (~45 ms a hub for five hubs' 500 rooms, a stall
    of the launch); a hub switch, whose list has rows, still resets it."""
    first, second = sessions
    store_call(qtbot, qloop, first.store, LocalStore.replace_rooms, [RoomInfo("alpha", "channel", 2, 0)])
    store_call(qtbot, qloop, second.store, LocalStore.replace_rooms, [RoomInfo("gamma", "channel", 2, 0)])
    hubs, model, proxy = sidebar_of_hubs()
    qtmodeltester.check(proxy)
    hubs.add("ws://first").bridge.attach(first)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "alpha"], timeout=5000)
    resets: list[int] = []
    proxy.modelReset.connect(lambda: resets.append(1))
    entry = hubs.add("ws://second")
    entry.bridge.attach(second)
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "alpha", "#1", "gamma"], timeout=5000)
    assert resets == []

    entry.bridge.attach(first)  # another session on a list with rows: rebuilt from its store
    assert resets == [1] and shown(proxy) == ["#0", "alpha", "#1"]
    qtbot.waitUntil(lambda: shown(proxy) == ["#0", "alpha", "#1", "alpha"], timeout=5000)
