"""Journeys: the keyboard, the layout, mentions and Connect… in the real window on a real hub."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QPushButton, QToolTip
from support.cli_runner import run_cli
from support.desktop_fixtures import click_room, join_room, listed_rooms, post_as, unread
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_journey_rendering import post_as_newcomer

from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog
from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog
from parler_desktop.ui.panel_layout import MIN_TIMELINE_PX

pytestmark = pytest.mark.timeout(60)


def test_typing_anywhere_goes_to_the_composer_and_escape_clears_the_filter(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    window = desktop.window
    composer = window.composer.edit
    click_room(qtbot, desktop, team)
    qtbot.waitUntil(composer.hasFocus, timeout=5000)  # after switching rooms, type at once
    window.timeline.setFocus()
    qtbot.keyClicks(window.timeline, "on")  # typed while reading…
    window.room_panel.view.setFocus()
    qtbot.keyClicks(window.room_panel.view, "!")  # …or in the room list
    assert composer.toPlainText() == "on!" and composer.hasFocus()
    qtbot.keyClicks(window.room_panel.filter, "op")
    assert listed_rooms(desktop) == [ops]
    qtbot.keyClick(window.room_panel.filter, Qt.Key.Key_Escape)
    assert window.room_panel.filter.text() == "" and sorted(listed_rooms(desktop)) == sorted([team, ops])
    post_as(qtbot, qloop, peer, ops, "needs you")
    qtbot.waitUntil(lambda: unread(desktop, ops) == 1, timeout=5000)
    window.timeline.setFocus()
    qtbot.keyClick(window.timeline, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.timeline_model.room == ops, timeout=5000)
    assert composer.hasFocus()
    assert ":focus" in window.styleSheet()  # the focus is outlined


def test_tab_moves_between_the_fields_of_the_hand_off_dialog(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    qtbot.mouseClick(window.findChild(QPushButton, "handoffButton"), Qt.MouseButton.LeftButton)
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, HandoffDialog) and w.isVisible())
    dialog.next.setFocus()
    qtbot.keyClicks(dialog.next, "review the PR")
    qtbot.keyClick(dialog.next, Qt.Key.Key_Tab)
    assert dialog.focusWidget() is dialog.summary and dialog.next.toPlainText() == "review the PR"
    dialog.reject()


def test_the_window_fits_the_screen_and_a_narrow_one_keeps_the_timeline_readable(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    free = window.screen().availableGeometry()
    assert window.frameGeometry().width() <= free.width() and window.frameGeometry().height() <= free.height()
    click_room(qtbot, desktop, team)
    qtbot.waitUntil(lambda: window.roster.rowCount() == 2, timeout=10_000)
    assert "2 members" in window.room_title.text().split("  ·  ")  # as many as the members panel lists
    window.resize(900, 600)
    qtbot.waitUntil(lambda: not window.roster_panel.isVisible(), timeout=5000)
    assert window.timeline.width() >= MIN_TIMELINE_PX
    window.resize(1250, 700)
    qtbot.waitUntil(lambda: window.roster_panel.isVisible() and window.roster_panel.width() > 100, timeout=5000)


def test_an_at_name_in_the_text_badges_highlights_and_notifies(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    window = desktop.window
    click_room(qtbot, desktop, team)
    alerts = []
    desktop.attention.notifiers[window.shown_hub].alert.connect(alerts.append)
    post_as(qtbot, qloop, peer, ops, "hey @boss, can you approve the deploy?")  # no `mentions` member
    qtbot.waitUntil(lambda: window.rooms.summary(ops) is not None and window.rooms.summary(ops).mentions_unread == 1, timeout=5000)
    qtbot.waitUntil(lambda: [(a.title, a.body) for a in alerts] == [("alice in ops", "hey @boss, can you approve the deploy?")], timeout=5000)
    click_room(qtbot, desktop, ops)
    assert window.timeline.row_layout(window.timeline_model.index(0)).mentions_me  # highlighted by the same rule


def test_after_connect_the_highlighted_room_is_open(qtbot, qloop, desktop, peer, hub):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    connect = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text().replace("&", "") == "Connect…")
    connect.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, ConnectDialog) and w.isVisible())
    assert dialog.width() >= 520 and dialog.name.text() == "boss"
    url = dialog.findChild(QLineEdit, "hubUrl")
    url.clear()
    qtbot.keyClicks(url, hub.url)
    qtbot.keyClick(url, Qt.Key.Key_Return)
    first = desktop.bridge.session
    qtbot.waitUntil(lambda: desktop.bridge.session is not first and desktop.bridge.is_live, timeout=15_000)
    qtbot.waitUntil(lambda: window.timeline_model.room == team, timeout=10_000)
    assert window.room_panel.current_room() == team and window.composer.isEnabled()
    assert window.room_title.text().startswith("team")


def test_a_members_tooltip_shows_the_whole_activity(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    activity = "migrating the orders table to the new schema, then re-running the nightly import with the fixed parser"
    run_coroutine(qtbot, qloop, peer.ok({"op": "presence", "status": "working", "activity": activity}, "presence_ok"))
    click_room(qtbot, desktop, team)
    run_coroutine(qtbot, qloop, desktop.bridge.refresh_roster(team))
    view = window.roster_panel.view
    qtbot.waitUntil(lambda: any(window.roster.index(r).data() == "alice" for r in range(window.roster.rowCount())), timeout=5000)
    row = next(r for r in range(window.roster.rowCount()) if window.roster.index(r).data() == "alice")
    point = view.visualRect(window.roster.index(row)).center()
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)))
    tip = QToolTip.text()
    QToolTip.hideText()
    assert "re-running the nightly import with the fixed parser" in tip and "working" in tip
    assert peer.id not in tip  # the agent id says nothing to a person


def test_an_agent_that_joins_and_speaks_is_listed_among_the_members_at_once(qtbot, qloop, desktop, peer, hub):
    """The hub pushes no membership, and rosters are polled every 45 s: a message from someone
    the members panel does not list refreshes it at once (and the title's member count)."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    qtbot.waitUntil(lambda: sorted(window.roster.names()) == ["alice", "boss"], timeout=10_000)
    post_as_newcomer(qtbot, qloop, hub, peer, team, "carol", "reviewer", "hello, I review the release")
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: sorted(window.roster.names()) == ["alice", "boss", "carol"], timeout=5000)
    assert "3 members" in window.room_title.text().split("  ·  ")


def test_a_post_sent_from_a_script_on_the_window_s_home_shows_at_once(qtbot, qloop, desktop, peer, hub, desktop_home):
    """``parler-desktop send`` on the window's home posts as the human; the hub pushes no author
    their own message, so the window showed it only at its next full reconciliation (20 s)."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    sent = run_coroutine(qtbot, qloop, run_cli(desktop_home, "send", "--hub", hub.url, "--room", team, "from a script"), timeout=30)
    assert sent.status == 0, sent.stderr
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    entry = window.timeline_model.entry(0)
    assert entry.text == "from a script" and entry.mine


def test_choosing_from_the_switcher_leaves_the_whole_room_list_and_a_joined_room_shows_in_it(qtbot, qloop, desktop, peer):
    """Issue 32.2, its steps: Ctrl+K, a name and Enter open the room and leave every room listed,
    including one joined next through Hub → Join with a code…"""
    from test_journey_quitting import visible

    join_room(qtbot, qloop, desktop, peer, "other")
    big = join_room(qtbot, qloop, desktop, peer, "big")
    window = desktop.window
    panel = window.room_panel
    qtbot.keyClick(window.timeline, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(panel.filter, "big")
    assert listed_rooms(desktop) == [big]
    qtbot.keyClick(panel.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == big, timeout=5000)
    assert panel.filter.text() == "" and sorted(listed_rooms(desktop)) == ["big", "other"] and panel.current_room() == big

    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "fresh"}, "invited"))
    qtbot.keyClicks(panel.filter, "big")  # a filter typed by hand is still there when a room is joined…
    dialog = window.room_actions.join_with_code()
    qtbot.keyClicks(dialog.focusWidget(), invited["code"])
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == invited["room"], timeout=10_000)  # …and the room opens in the list
    assert panel.filter.text() == "" and sorted(listed_rooms(desktop)) == ["big", "fresh", "other"] and panel.current_room() == invited["room"]
    qtbot.waitUntil(lambda: visible(window, QMessageBox, "roomActionMessage") is not None, timeout=5000)
    visible(window, QMessageBox, "roomActionMessage").accept()
