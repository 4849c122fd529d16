"""Journey: a pushed message is on screen before the local store has written it, and is marked
read only once it is stored (design.md §3: never ack a seq that is not in the local store)."""

from __future__ import annotations

import threading

import pytest
from support.desktop_fixtures import activate, click_room, hub_cursor, join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(60)


def test_a_push_is_shown_while_the_store_is_busy_and_marked_read_once_it_is_stored(qtbot, qloop, hub, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, model = desktop.window, desktop.window.timeline_model
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    first = post_as(qtbot, qloop, peer, team, "before")["seq"]
    qtbot.waitUntil(lambda: window.rooms.summary(team).cursor == first, timeout=10_000)  # on screen: read

    release = threading.Event()  # the store's one thread is held, as by a slow disk
    busy = qloop.create_task(desktop.bridge.store.call(lambda _store: release.wait(30)))
    try:
        held = post_as(qtbot, qloop, peer, team, "arrives while the store is busy")["seq"]
        qtbot.waitUntil(lambda: window.timeline.seen_seq == held, timeout=5000)  # on screen at once
        qtbot.waitUntil(lambda: not window.read_tracker.may_read(), timeout=5000)  # and asked to be marked read
        # Not acked yet: with the store held nothing can be (the rule that an ack waits for the
        # store is test_client_session's test_an_ack_never_passes_the_sync_mark).
        assert hub_cursor(qtbot, qloop, desktop, hub.url, team) == first
    finally:
        release.set()
    qtbot.waitUntil(busy.done, timeout=5000)
    qtbot.waitUntil(lambda: window.rooms.summary(team).cursor == held, timeout=15_000)  # stored: now read
    assert hub_cursor(qtbot, qloop, desktop, hub.url, team) == held
    assert [model.entry(row).seq for row in range(model.rowCount())] == [first, held]  # shown once
