"""Journeys: a draft belongs to its room — kept across room switches and restarts, with the
message it replies to — and switching rooms never carries text along."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from support.desktop_fixtures import click_room, click_row, join_room, post_as, start_desktop, stop_desktop
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(60)


def reply_with_the_menu(qtbot, view, row: int) -> None:
    """Right-click the row and choose Reply, as a person does."""
    def choose() -> None:
        menu = QApplication.activePopupWidget()
        QTest.keyClick(menu, Qt.Key.Key_Down)
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(100, choose)
    point = view.visualRect(view.model().index(row)).topLeft() + QPoint(20, 10)
    view.customContextMenuRequested.emit(point)  # the menu a right-click opens (offscreen has no real pointer)


def test_drafts_stay_in_their_room_across_switches_and_a_restart(qtbot, qloop, tmp_path: Path, hub, peer):
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    try:
        team = join_room(qtbot, qloop, desktop, peer, "team")
        ops = join_room(qtbot, qloop, desktop, peer, "ops")
        question = post_as(qtbot, qloop, peer, team, "which database?")
        window = desktop.window
        click_room(qtbot, desktop, team)
        qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
        reply_with_the_menu(qtbot, window.timeline, 0)
        qtbot.waitUntil(lambda: window.composer.reply_to == question["id"], timeout=5000)
        qtbot.keyClicks(window.composer.edit, "postgres, for the team only")
        click_room(qtbot, desktop, ops)
        assert window.composer.edit.toPlainText() == "" and window.composer.reply_to is None  # nothing carried along
        qtbot.keyClicks(window.composer.edit, "ops note")
        click_room(qtbot, desktop, team)
        qtbot.waitUntil(lambda: window.composer.edit.toPlainText() == "postgres, for the team only", timeout=5000)
        assert window.composer.reply_to == question["id"] and "which database?" in window.composer.reply_label
        click_room(qtbot, desktop, ops)
        qtbot.waitUntil(lambda: window.composer.edit.toPlainText() == "ops note", timeout=5000)
    finally:
        stop_desktop(qtbot, qloop, desktop)

    again = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)  # the same home: a restart
    try:
        qtbot.waitUntil(lambda: team in again.window.rooms.room_names(), timeout=10_000)
        click_room(qtbot, again, team)
        composer = again.window.composer
        qtbot.waitUntil(lambda: composer.edit.toPlainText() == "postgres, for the team only", timeout=5000)
        assert composer.reply_to == question["id"]
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
        delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
        assert delivered["room"] == team and delivered["replyTo"] == question["id"]
        assert delivered["parts"][0]["text"] == "postgres, for the team only"
        click_room(qtbot, again, ops)
        qtbot.waitUntil(lambda: composer.edit.toPlainText() == "ops note", timeout=5000)
        click_room(qtbot, again, team)
        assert composer.edit.toPlainText() == "" and composer.reply_to is None  # sent: the draft is gone
    finally:
        stop_desktop(qtbot, qloop, again)


def test_escape_cancels_a_reply(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    post_as(qtbot, qloop, peer, team, "a question")
    window = desktop.window
    click_room(qtbot, desktop, team)
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    reply_with_the_menu(qtbot, window.timeline, 0)
    qtbot.waitUntil(lambda: window.composer.reply_to is not None, timeout=5000)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)
    assert window.composer.reply_to is None


def test_switching_rooms_while_a_post_is_saved_keeps_the_other_rooms_draft(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    composer = desktop.window.composer
    click_room(qtbot, desktop, ops)
    qtbot.keyClicks(composer.edit, "ops note")
    click_room(qtbot, desktop, team)
    qtbot.keyClicks(composer.edit, "for the team")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)  # saved to the outbox in the background…
    click_room(qtbot, desktop, ops)  # …while the human already moved on
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["room"] == team and delivered["parts"][0]["text"] == "for the team"
    qtbot.waitUntil(lambda: composer.edit.toPlainText() == "ops note" and not composer.saving, timeout=5000)
    click_room(qtbot, desktop, team)
    assert composer.edit.toPlainText() == "" and composer.reply_to is None  # sent: nothing left behind


def test_a_room_of_another_hub_opens_at_once_while_the_drafts_hub_is_busy_and_the_draft_is_kept(qtbot, qloop, tmp_path: Path, hub, hub_factory, peer):
    """The human types in a room of one hub and clicks a room of another while the first hub's
    store is busy (a catch-up's pages being written): the other room shows at once, and the
    draft, handed to the first hub's store, is there after a restart, quit right after. The
    switch waited for the draft's write, queued behind everything before it on that store."""
    other = hub_factory()
    home = tmp_path / "home"
    desktop = start_desktop(qtbot, qloop, home, hub.url, beside=other.url)
    window = desktop.window
    try:
        team = join_room(qtbot, qloop, desktop, peer, "team")
        click_room(qtbot, desktop, team)
        store = desktop.hubs.entry(hub.url).bridge.store
        started = threading.Event()
        busy = qloop.create_task(store.call(lambda _store: (started.set(), time.sleep(1.0))))
        qtbot.waitUntil(started.is_set, timeout=5000)
        qtbot.keyClicks(window.composer.edit, "half a thought")
        click_row(desktop, "elsewhere", other.url)
        assert window.shown_hub is desktop.hubs.entry(other.url) and window.timeline_model.room == "elsewhere"
        assert not busy.done() and window.composer.edit.toPlainText() == ""
    finally:
        stop_desktop(qtbot, qloop, desktop)  # quit at once
    assert busy.done()

    again = start_desktop(qtbot, qloop, home, hub.url)
    try:
        qtbot.waitUntil(lambda: team in again.window.rooms.room_names(), timeout=10_000)
        click_room(qtbot, again, team)
        qtbot.waitUntil(lambda: again.window.composer.edit.toPlainText() == "half a thought", timeout=5000)
    finally:
        stop_desktop(qtbot, qloop, again)
