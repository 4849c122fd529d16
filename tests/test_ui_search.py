"""Searching from the real window: Ctrl+Shift+F over every room, Ctrl+F over the open one,
filters, and a result opening its room at the message; the index of older messages is built in
the background with progress."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import join_room, open_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.store_versions import store_before_search
from support.stored_session import StoreBackedSession, message

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.search import search_model
from parler_desktop.app.search.search_model import SearchIndexer
from parler_desktop.client.page_writer import write_turn
from parler_desktop.store import LocalStore, StoreWorker
from parler_desktop.store.search import PENDING_BATCH, SNIPPET_END, SNIPPET_START, BacklogProgress
from parler_desktop.app.search.search_model import snippet_runs

pytestmark = pytest.mark.timeout(60)


def results(dialog) -> list[tuple[str, str]]:
    hits = [dialog.results.model().hit(row) for row in range(dialog.results.model().rowCount())]
    return [(hit.room, "".join(text for text, _ in snippet_runs(hit.snippet))) for hit in hits]


def test_search_all_rooms_then_one_room_and_open_the_message(qtbot, qloop, desktop, peer):
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)  # ops is not on screen: all that comes to it stays unread
    wanted = post_as(qtbot, qloop, peer, ops, "Deploy of the **billing** service failed")
    for n in range(150):  # more than a page after it: opening must load back to it
        post_as(qtbot, qloop, peer, ops, f"noise {n}")
    post_as(qtbot, qloop, peer, team, "billing deploy looks fine here")
    window = desktop.window
    qtbot.waitUntil(
        lambda: (window.rooms.summary(ops) or 0) and window.rooms.summary(ops).unread == 151, timeout=10_000
    )
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = desktop.search.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.keyClicks(dialog.query, "bill depl")
    qtbot.waitUntil(lambda: len(results(dialog)) == 2, timeout=5000)
    assert results(dialog) == [(team, "billing deploy looks fine here"), (ops, "Deploy of the billing service failed")]
    assert dialog.status.text() == "2 messages (newest first)"
    qtbot.keyClicks(dialog.author, "nobody")
    qtbot.waitUntil(lambda: dialog.status.text() == "No messages found", timeout=5000)
    dialog.author.clear()
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)  # this room only
    qtbot.waitUntil(
        lambda: dialog.isVisible() and results(dialog) == [(team, "billing deploy looks fine here")], timeout=5000
    )
    dialog.room.setCurrentIndex(dialog.room.findData(ops))
    qtbot.waitUntil(lambda: results(dialog) == [(ops, "Deploy of the billing service failed")], timeout=5000)
    QTest.keyClick(dialog.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == ops, timeout=5000)

    def at_message() -> bool:
        entry = window.timeline_model.entry(window.timeline.currentIndex().row())
        return entry is not None and entry.seq == wanted["seq"]

    qtbot.waitUntil(at_message, timeout=10_000)


def test_snippet_runs_mark_the_matches():
    assert snippet_runs(f"a  {SNIPPET_START}deploy{SNIPPET_END} of\nit") == [
        ("a ", False),
        ("deploy", True),
        (" of it", False),
    ]


def test_older_messages_are_indexed_in_the_background_with_progress(qtbot, qloop, tmp_path):
    path = tmp_path / "store.sqlite3"
    store_before_search(path, [message(seq, "team", f"older message {seq}") for seq in range(1, 5001)])
    worker = StoreWorker(path)
    run_coroutine(qtbot, qloop, worker.open())
    pushed = [message(6000, "team", "older push left unindexed by a killed process")]
    run_coroutine(qtbot, qloop, worker.call(LocalStore.insert_messages, pushed, index_now=False))
    try:
        bridge = SessionBridge()
        indexer = SearchIndexer(bridge)
        seen = []
        indexer.progress.connect(lambda progress: seen.append((progress.indexed, progress.total)))
        bridge.attach(StoreBackedSession(worker))
        qtbot.waitUntil(lambda: bool(seen) and seen[-1][0] == 5001, timeout=10_000)
        assert seen == [(2001, 5001), (4001, 5001), (5001, 5001)]
        hits = run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "older", None, None, None, 10_000))
        assert len(hits) == 5001
    finally:
        run_coroutine(qtbot, qloop, bridge.tasks.cancel_all())
        run_coroutine(qtbot, qloop, worker.close())


def test_more_pushes_left_unindexed_than_one_call_takes_are_all_indexed(qtbot, qloop, tmp_path):
    """A killed process left more pushes unindexed than ``index_pending`` takes per call
    (``PENDING_BATCH``, kept small so the store's thread never holds the GIL long): the indexer
    calls it again until none is left."""
    worker = StoreWorker(tmp_path / "store.sqlite3")
    run_coroutine(qtbot, qloop, worker.open())
    pushed = [message(seq, "team", f"push left unindexed {seq}") for seq in range(1, 2 * PENDING_BATCH + 12)]
    run_coroutine(qtbot, qloop, worker.call(LocalStore.insert_messages, pushed, index_now=False))
    try:
        bridge = SessionBridge()
        indexer = SearchIndexer(bridge)
        bridge.attach(StoreBackedSession(worker))
        qtbot.waitUntil(lambda: indexer.latest is not None and indexer.latest.done, timeout=10_000)
        hits = run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "unindexed", None, None, None, 10_000))
        assert sorted(hit.seq for hit in hits) == [m.seq for m in pushed]
    finally:
        run_coroutine(qtbot, qloop, bridge.tasks.cancel_all())
        run_coroutine(qtbot, qloop, worker.close())


def test_the_indexer_takes_what_a_killed_process_left_not_what_the_catch_up_stores_beside_it(qtbot, qloop, tmp_path, monkeypatch):
    """At a launch the indexer indexes the pushes a killed process left, behind the process's
    page writes (``write_turn``), and no more: the pages the catch-up stores meanwhile wait for
    the session's sync to index them after it (indexing them beside it slowed the wake)."""
    monkeypatch.setattr(search_model, "PROGRESS_POLL_SECS", 0.05)  # (the progress is read a second apart)
    worker = StoreWorker(tmp_path / "store.sqlite3")
    run_coroutine(qtbot, qloop, worker.open())
    left = [message(seq, "team", f"left unindexed {seq}") for seq in range(1, 11)]
    pulled = [message(seq, "team", f"pulled meanwhile {seq}") for seq in range(100, 106)]
    run_coroutine(qtbot, qloop, worker.call(LocalStore.insert_messages, left, index_now=False))

    async def take_the_turn() -> asyncio.Lock:
        turn = write_turn()
        await turn.acquire()  # a page write in progress
        return turn

    turn = run_coroutine(qtbot, qloop, take_the_turn())
    bridge = SessionBridge()
    try:
        indexer = SearchIndexer(bridge)
        bridge.attach(StoreBackedSession(worker))
        # the indexer's task was scheduled first: its look at what waits reaches the store's
        # thread before these pages, which the catch-up stores while the indexer waits its turn
        run_coroutine(qtbot, qloop, worker.call(LocalStore.insert_messages, pulled, index_now=False))
        assert run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "unindexed", None, None, None, 100)) == []
        turn.release()
        qtbot.waitUntil(lambda: indexer.latest is not None, timeout=10_000)
        assert (indexer.latest.indexed, indexer.latest.total, indexer.latest.older) == (10, 16, 0)
        found = run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "unindexed", None, None, None, 100))
        assert sorted(hit.seq for hit in found) == [m.seq for m in left]
        assert run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "pulled", None, None, None, 100)) == []
        assert run_coroutine(qtbot, qloop, worker.call(LocalStore.newest_pending)) == 105  # the sync's to index
        run_coroutine(qtbot, qloop, worker.index_all_pending())  # as the sync does after its catch-up
        qtbot.waitUntil(lambda: indexer.latest.done, timeout=5000)  # the progress follows (the dialog's line goes)
        assert indexer.latest == BacklogProgress(16, 16, 0)
        qtbot.waitUntil(lambda: not bridge.tasks.tasks, timeout=5000)  # and the indexer is done
    finally:
        if turn.locked():
            turn.release()
        run_coroutine(qtbot, qloop, bridge.tasks.cancel_all())
        run_coroutine(qtbot, qloop, worker.close())


def test_on_a_full_disk_indexing_stops_quietly_and_search_still_answers(qtbot, qloop, small_disk):
    path = small_disk.path / "store.sqlite3"
    store_before_search(path, [message(seq, "team", f"older message {seq}") for seq in range(1, 3001)])
    worker = StoreWorker(path)
    run_coroutine(qtbot, qloop, worker.open())
    small_disk.fill()  # not a byte left: the index cannot grow
    bridge = SessionBridge()
    failures = []
    bridge.notice.connect(lambda text, _room: failures.append(text))
    try:
        indexer = SearchIndexer(bridge)
        bridge.attach(StoreBackedSession(worker))
        qtbot.waitUntil(lambda: not bridge.tasks.tasks, timeout=10_000)
        assert failures == [] and indexer.latest is None  # stopped without a word to the human
        assert run_coroutine(qtbot, qloop, worker.call(LocalStore.search, "older", None, None, None, 10)) == []
    finally:
        small_disk.free()
        run_coroutine(qtbot, qloop, bridge.tasks.cancel_all())
        run_coroutine(qtbot, qloop, worker.close())
