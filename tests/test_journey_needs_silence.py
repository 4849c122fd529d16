"""When a silent agent needs the human is theirs to set (design.md §4b: "longer than the room's
threshold, default 15 min"): Notifications → Notification settings… → "needs you when silent for"
moves the threshold of the queue, and so of the Agents view's "silent on your work" and the title's
count, which all read it. An item the threshold ends is not an answer (no time to unblock)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from support.desktop_fixtures import activate, join_room
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app.needs_you.needs_rules import NeedKind

pytestmark = pytest.mark.timeout(90)


def set_silent_minutes(qtbot, desktop, minutes: int) -> None:
    """Through the real dialog: the field typed, OK pressed."""
    activate(qtbot, desktop)
    dialog = desktop.attention.menu.open_settings()
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    field = dialog.silent_minutes
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, str(minutes))
    qtbot.keyClick(field, Qt.Key.Key_Tab)
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def test_the_silence_threshold_set_in_the_settings_moves_the_queue_and_the_title(qtbot, qloop, desktop, hub, peer):
    needs = desktop.window.needs
    work = join_room(qtbot, qloop, desktop, peer, "work")
    asked = human_request(qtbot, qloop, desktop.bridge, peer, work, "please index everything")
    task_on(qtbot, qloop, peer, work, asked, "working")
    later = time.time() + 6 * 60  # six minutes of silence: under the default 15
    needs.clock = lambda: later
    needs.refresh()
    assert not needs.items()

    set_silent_minutes(qtbot, desktop, 5)
    assert desktop.attention.preferences.current().silent_minutes == 5
    qtbot.waitUntil(lambda: [(f.item.kind, f.item.agent_name) for f in needs.items()] == [(NeedKind.SILENT, "alice")], timeout=5000)
    qtbot.waitUntil(lambda: desktop.window.windowTitle().startswith("Parler — 1 need you"), timeout=5000)

    set_silent_minutes(qtbot, desktop, 15)  # back: the item ends, and no answer is counted for it
    qtbot.waitUntil(lambda: not needs.items(), timeout=5000)
    qtbot.waitUntil(lambda: "need you" not in desktop.window.windowTitle(), timeout=5000)
    assert needs.today() == []
