"""Journeys: how the window lays itself out for the human (issue 46): the members panel in a narrow
window, the search window giving way to the message it opened, the "New messages" line in
view, a room list that holds still under the pointer, and the panels' widths kept."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import click_room, join_room, open_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(60)

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def view_action(window, text: str):
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    return next(a for a in view_menu.actions() if a.text() == text)


def test_show_members_shows_them_in_a_narrow_window(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    window.resize(800, 600)
    members = window.roster_panel
    qtbot.waitUntil(lambda: not members.isVisible(), timeout=5000)  # narrow: the timeline comes first
    show = view_action(window, "Show members")
    assert not show.isChecked()  # the check mark says what is on screen
    QTest.keyClick(window, Qt.Key.Key_M, CTRL_SHIFT)
    qtbot.waitUntil(lambda: members.isVisible() and members.width() > 0, timeout=5000)
    assert show.isChecked() and members.width() >= 150 and window.timeline.width() >= 300
    assert members.geometry().right() <= window.width()
    show.trigger()  # View → Show members again hides them
    qtbot.waitUntil(lambda: not members.isVisible(), timeout=5000)
    assert not show.isChecked()
    show.trigger()
    qtbot.waitUntil(lambda: members.isVisible() and members.width() >= 150, timeout=5000)


def test_opening_a_search_result_puts_the_search_away_and_shows_the_message(qtbot, qloop, desktop, peer):
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    wanted = post_as(qtbot, qloop, peer, ops, "the billing deploy failed")
    for n in range(60):
        post_as(qtbot, qloop, peer, ops, f"noise {n}")
    window = desktop.window
    qtbot.waitUntil(lambda: (window.rooms.summary(ops) or 0) and window.rooms.summary(ops).unread == 61, timeout=10_000)
    QTest.keyClick(window, Qt.Key.Key_F, CTRL_SHIFT)
    dialog = desktop.search.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.keyClicks(dialog.query, "billing")
    qtbot.waitUntil(lambda: dialog.results.model().rowCount() == 1, timeout=5000)
    QTest.keyClick(dialog.query, Qt.Key.Key_Return)
    timeline = window.timeline

    def message_on_screen() -> bool:
        entry = window.timeline_model.entry(timeline.currentIndex().row())
        if entry is None or entry.seq != wanted["seq"]:
            return False
        return timeline.viewport().rect().contains(timeline.visualRect(timeline.currentIndex()))

    qtbot.waitUntil(message_on_screen, timeout=10_000)
    assert not dialog.isVisible()  # nothing covers the message it opened
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_F, CTRL_SHIFT)  # it comes back as it was…
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    assert dialog.query.text() == "billing"
    QTest.keyClick(dialog.query, Qt.Key.Key_Escape)  # …and Esc closes it
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)
