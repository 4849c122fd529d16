"""The Agents view's flags say what the Needs you queue says (issues 43 and 45, design.md §4b):
"waiting on you" is an item of the agent's in the queue, "silent on your work" (the Stuck filter)
is the queue's silence on the human's request; a quiet worker on someone else's task is neither,
and snoozing or dismissing the item in the queue clears the flag."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.desktop_fixtures import activate, join_room
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_agents import open_agents_view, shown

from parler_desktop.app.needs_you.needs_rules import NeedKind

pytestmark = pytest.mark.timeout(90)


def flags(view) -> dict[str, str]:
    return {name: cells["Flags"] for name, cells in shown(view).items()}


def open_queue(qtbot, desktop) -> object:
    """Ctrl+I in the window: the queue, its list focused."""
    activate(qtbot, desktop)
    QTest.keyClick(desktop.window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    view = desktop.window.needs_you.view
    qtbot.waitUntil(view.list.hasFocus, timeout=5000)
    return view


def test_the_agents_flags_are_the_queues_items_and_clear_with_them(qtbot, qloop, desktop, hub, peer):
    needs, model = desktop.window.needs, desktop.agents.model
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob", role="coder"))
    try:
        work = join_room(qtbot, qloop, desktop, peer, "work")  # alice's room with the human
        other = join_room(qtbot, qloop, desktop, bob, "other")
        task_on(qtbot, qloop, bob, other, "someone-elses-request", "working")  # not the human's work
        asked = human_request(qtbot, qloop, desktop.bridge, peer, work, "please migrate the db")
        task_on(qtbot, qloop, peer, work, asked, "awaiting", "which db?")  # a question to the human
        qtbot.waitUntil(lambda: [f.item.kind for f in needs.items()] == [NeedKind.QUESTION], timeout=10_000)
        view = open_agents_view(qtbot, desktop)
        qtbot.waitUntil(lambda: flags(view) == {"alice": "waiting on you", "bob": ""}, timeout=10_000)

        queue = open_queue(qtbot, desktop)  # snoozed for an hour in the queue: the flag goes with it
        QTest.keyClick(queue.list, Qt.Key.Key_S)
        menu = desktop.window.needs_you.snooze_menu
        qtbot.waitUntil(menu.isVisible, timeout=2000)
        QTest.keyClick(menu, Qt.Key.Key_1)
        qtbot.waitUntil(lambda: not needs.items(), timeout=5000)
        qtbot.waitUntil(lambda: flags(view) == {"alice": "", "bob": ""}, timeout=5000)

        indexing = human_request(qtbot, qloop, desktop.bridge, peer, work, "please index everything")
        task_on(qtbot, qloop, peer, work, indexing, "working")
        later = time.time() + 16 * 60  # sixteen minutes on: alice silent on the human's request, bob on someone else's
        needs.clock = model.clock = lambda: later
        needs.refresh()
        qtbot.waitUntil(lambda: [(f.item.kind, f.item.agent_name) for f in needs.items()] == [(NeedKind.SILENT, "alice")], timeout=5000)
        qtbot.waitUntil(lambda: flags(view) == {"alice": "silent on your work", "bob": ""}, timeout=5000)
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # Show: stuck
        for _ in range(3):
            qtbot.keyClick(view.filter, Qt.Key.Key_Down)
        assert view.filter.currentText() == "Stuck"
        qtbot.waitUntil(lambda: set(shown(view)) == {"alice"}, timeout=5000)

        queue = open_queue(qtbot, desktop)  # acknowledged in the queue (D): not stuck any more
        QTest.keyClick(queue.list, Qt.Key.Key_D)
        qtbot.waitUntil(lambda: not needs.items(), timeout=5000)
        qtbot.waitUntil(lambda: set(shown(view)) == set(), timeout=5000)
    finally:
        run_coroutine(qtbot, qloop, bob.close())
