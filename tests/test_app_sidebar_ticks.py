"""Every hub's room list changes on the same ticks and in one frame (``sidebar_ticks``): the
sidebar is re-sorted, laid out and painted once for all of them, not once per hub (issue 42 item 3).
Over real local stores (support.stored_session's stand-in sessions)."""

from __future__ import annotations

import pytest
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import StoreBackedSession, message, store_call

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.room_list import sidebar_ticks
from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.app.room_list.sidebar_ticks import SidebarFrames, due_in
from parler_desktop.client.events import MessagesStored
from parler_desktop.protocol.values import RoomInfo
from parler_desktop.store import LocalStore, StoreWorker


def test_every_caller_is_due_at_the_same_instants():
    assert due_in(120, now=12.000) == 120
    assert due_in(120, now=12.001) == 119
    assert due_in(120, now=12.119) == 1
    # Asked 50 ms apart within one period, two callers are due at the same instant.
    assert 12.010 + due_in(120, now=12.010) / 1000 == pytest.approx(12.060 + due_in(120, now=12.060) / 1000)


def test_changes_wait_for_every_read_begun_and_only_the_latest_of_each_owner_is_applied(qtbot):
    frames = SidebarFrames()
    applied: list[str] = []
    for owner in ("first", "second", "gone"):
        frames.reading(owner)
    frames.done("first", lambda: applied.append("first, stale"))
    frames.reading("first")
    frames.done("first", lambda: applied.append("first"))
    frames.discard("gone")
    assert applied == []  # "second" is still reading
    frames.done("second", lambda: applied.append("second"))
    assert sorted(applied) == ["first", "second"]  # in one go; the stale change never
    frames.reading("slow")
    frames.done("quick", lambda: applied.append("quick"))
    qtbot.waitUntil(lambda: "quick" in applied, timeout=1000)  # a slow read holds the others only a while


class CountingFrames(SidebarFrames):
    """The window's frames, counting the flushes that applied something and what each applied."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes: list[int] = []

    def flush(self) -> None:
        waiting = len(self._pending)
        super().flush()
        if waiting:
            self.flushes.append(waiting)


@pytest.fixture
def sessions(qtbot, qloop, tmp_path):
    made = []
    for name in ("first", "second", "third"):
        store = StoreWorker(tmp_path / f"{name}.sqlite3")
        run_coroutine(qtbot, qloop, store.open())
        store_call(qtbot, qloop, store, LocalStore.replace_rooms, [RoomInfo(f"{name}-{n}", "channel", 2, 0) for n in range(20)])
        made.append(StoreBackedSession(store))
    yield made
    for session in made:
        run_coroutine(qtbot, qloop, session.store.close())


def test_three_hubs_told_of_messages_change_their_rows_together(qtbot, qloop, sessions, monkeypatch):
    """Messages stored in three hubs: each list reloads on the same tick, and the three reads,
    answered by three store threads, are applied by one flush, each list showing every message
    (rows and counts exact)."""
    monkeypatch.setattr(sidebar_ticks, "WAIT_MS", 10_000)  # longer than any store read here: one flush, however loaded the machine
    frames = CountingFrames()
    models = []
    for session in sessions:
        bridge = SessionBridge()
        bridge.attach(session)
        models.append(RoomListModel(bridge, frames=frames))
    for model in models:
        model.reload()
    qtbot.waitUntil(lambda: all(model.rowCount() == 20 for model in models), timeout=5000)
    frames.flushes.clear()
    stored = []
    for seq, (session, name) in enumerate(zip(sessions, ("first", "second", "third")), start=101):
        batch = [message(seq, f"{name}-7"), message(seq + 50, f"{name}-3")]
        stored.append(store_call(qtbot, qloop, session.store, LocalStore.insert_messages, batch))
    for session, messages in zip(sessions, stored):  # announced as a session does: a room at a time
        for one in messages:
            session.emit(MessagesStored(one.room, (one,), True))
    qtbot.waitUntil(
        lambda: all(model.summary(f"{name}-3").max_seq > 100 for model, name in zip(models, ("first", "second", "third"))),
        timeout=5000,
    )
    assert frames.flushes == [3]  # one flush for the three hubs
    for model, name, first in zip(models, ("first", "second", "third"), (101, 102, 103)):
        assert model.summary(f"{name}-7").max_seq == first and model.summary(f"{name}-7").unread == 1
        assert model.summary(f"{name}-3").max_seq == first + 50 and model.summary(f"{name}-3").unread == 1
