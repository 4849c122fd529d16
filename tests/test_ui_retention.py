"""The window's cache kept within its hub's retention (issue 42, item 2): pruned in the background
by the session, unread counts unchanged, and history past what is kept read from the hub."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
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

    QTest.keyClick(desktop.window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = desktop.search.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.keyClicks(dialog.query, "old")
    qtbot.waitUntil(lambda: dialog.status.text().startswith("1 message (newest first). Older messages (up to "), timeout=5000)
    assert dialog.status.text().endswith(") are not on this computer: scroll back in their room to read them from the hub.")


@pytest.mark.parametrize("hub_layout", ["second of two hubs"], indirect=True)  # (one hub shows no heading)
def test_keep_messages_on_the_hub_heading_sets_the_hubs_retention(qtbot, qloop, hub, desktop):
    from PySide6.QtWidgets import QDialogButtonBox

    from parler_desktop.settings import load_settings
    from support.desktop_fixtures import click_action, row_menu

    click_action(qtbot, row_menu(qtbot, desktop, None, hub.url), "Keep messages…")
    qtbot.waitUntil(lambda: desktop.hub_retention.dialog is not None and desktop.hub_retention.dialog.isVisible(), timeout=5000)
    dialog = desktop.hub_retention.dialog
    assert dialog.policy() == RetentionPolicy()  # the default: 90 days, 2 GB
    qtbot.mouseClick(dialog.by_age, Qt.MouseButton.LeftButton)  # no bound by age
    dialog.megabytes.selectAll()
    qtbot.keyClicks(dialog.megabytes, "200")
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)

    chosen = RetentionPolicy(days=None, max_bytes=200 * 1024**2)
    qtbot.waitUntil(lambda: desktop.hubs.entry(hub.url).bridge.session.cache_keeper.policy == chosen, timeout=5000)
    assert load_settings(desktop.home.settings_file).settings.hub_retention == {hub.url: ",200"}
