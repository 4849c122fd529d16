"""The window's cache kept within its hub's retention (issue 42, item 2): pruned in the background
by the session, unread counts unchanged, and history past what is kept read from the hub."""

from __future__ import annotations

from support.desktop_fixtures import activate, click_room, hub_cursor, join_room, post_as, unread
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.store import LocalStore
from parler_desktop.store.retention import RetentionPolicy


def _texts(desktop) -> list[str]:
    model = desktop.window.timeline_model
    return [model.entry(row).parts[0]["text"] for row in range(model.rowCount()) if model.entry(row).seq]


def _stored(qtbot, qloop, desktop, room: str) -> int:
    return run_coroutine(qtbot, qloop, desktop.bridge.store.call(LocalStore.message_count, room))


def test_scrolling_back_past_the_pruned_reads_the_hub_without_moving_the_cursor(qtbot, qloop, hub, desktop, peer):
    history = join_room(qtbot, qloop, desktop, peer, "history")
    other = join_room(qtbot, qloop, desktop, peer, "other")
    sent = [post_as(qtbot, qloop, peer, history, f"old {n}") for n in range(1, 131)]
    activate(qtbot, desktop)
    click_room(qtbot, desktop, history)
    qtbot.waitUntil(lambda: hub_cursor(qtbot, qloop, desktop, hub.url, history) == sent[-1]["seq"], timeout=20_000)
    for n in range(1, 6):
        post_as(qtbot, qloop, peer, other, f"unread {n}")
    qtbot.waitUntil(lambda: unread(desktop, other) == 5, timeout=10_000)

    desktop.bridge.session.set_retention(RetentionPolicy(days=None, max_bytes=1))  # keep what it must only

    qtbot.waitUntil(lambda: _stored(qtbot, qloop, desktop, history) == 1, timeout=20_000)  # its newest
    assert _stored(qtbot, qloop, desktop, other) == 5  # unread: never pruned
    assert unread(desktop, other) == 5 and unread(desktop, history) == 0
    cursor = hub_cursor(qtbot, qloop, desktop, hub.url, history)

    click_room(qtbot, desktop, other)
    click_room(qtbot, desktop, history)
    bar = desktop.window.timeline.verticalScrollBar()

    def scrolled_to_the_start() -> bool:
        bar.setValue(bar.minimum())  # the reader scrolls to the top, again and again
        return _texts(desktop) == [f"old {n}" for n in range(1, 131)]

    qtbot.waitUntil(scrolled_to_the_start, timeout=20_000)
    assert not desktop.window.timeline_model.has_older
    assert hub_cursor(qtbot, qloop, desktop, hub.url, history) == cursor  # a since read moves nothing
    assert _stored(qtbot, qloop, desktop, history) == 1  # shown, not stored again
    assert unread(desktop, other) == 5
