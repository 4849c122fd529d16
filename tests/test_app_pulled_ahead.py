"""The room list counts what the pulls brought before the store writes it (app/room_list/
pulled_ahead.py), over a real store: only others' messages above the cursor count, a message is
never counted twice once stored, and what a session that lost its line or its disk never stored
stops counting at the next reload."""

from __future__ import annotations

from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ALICE, ME, add_messages, bridge, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.client.events import ConnectionState, MessagesPulled, PullsOver, StateChanged
from parler_desktop.store import LocalStore


def unread(model: RoomListModel, room: str) -> int:
    summary = model.summary(room)
    return -1 if summary is None else summary.unread


def state(session, what: ConnectionState) -> StateChanged:
    return StateChanged(what, session.hub_url, session.agent_id)


def test_pulled_messages_from_others_above_the_cursor_count_until_the_store_holds_them(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in (1, 2, 3)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", 2)
    model = RoomListModel(bridge)
    model.reload()
    qtbot.waitUntil(lambda: unread(model, "team") == 1, timeout=5000)
    session.emit(state(session, ConnectionState.CATCHING_UP))
    pulled = (message(4, "team"), message(5, "team", "mine", ME), message(6, "team", "the newest"))
    session.emit(MessagesPulled("team", pulled))
    assert unread(model, "team") == 1  # shown every half second while the pulls go on...
    session.emit(PullsOver())  # ...and at once when they are over
    assert unread(model, "team") == 3  # 3 stored above the cursor, and 4 and 6 (5 is the human's own)
    assert model.summary("team").last_preview == "the newest" and model.summary("team").last_sender == ALICE.name
    assert model.total_unread == 3

    add_messages(qtbot, qloop, session, pulled[:2])  # the first page's part is stored
    qtbot.waitUntil(lambda: model.summary("team").max_seq == 5, timeout=5000)
    assert unread(model, "team") == 3 and model.summary("team").last_preview == "the newest"
    add_messages(qtbot, qloop, session, pulled[2:])
    qtbot.waitUntil(lambda: model.summary("team").max_seq == 6, timeout=5000)
    assert unread(model, "team") == 3


def test_what_a_session_never_stored_stops_counting_once_it_leaves_its_catch_up(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(1, "team")])
    model = RoomListModel(bridge)
    model.reload()
    qtbot.waitUntil(lambda: unread(model, "team") == 1, timeout=5000)
    session.emit(state(session, ConnectionState.CATCHING_UP))
    with qtbot.waitSignal(model.reloaded, timeout=5000):
        session.emit(MessagesPulled("team", (message(2, "team"), message(3, "team"))))
    assert unread(model, "team") == 3
    with qtbot.waitSignal(model.reloaded, timeout=5000):  # its writes were refused (a full disk): offline
        session.emit(state(session, ConnectionState.OFFLINE))
    assert unread(model, "team") == 1
