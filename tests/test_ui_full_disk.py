"""The window on a real full disk (a small tmpfs as its home): what the human typed is never lost,
the window starts and says what is wrong, and "disk full" is said in those words."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPushButton
from support.desktop_fixtures import join_room, open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def desktop_home(small_disk):
    return small_disk.path / "home"


def test_a_message_typed_on_a_full_disk_stays_in_the_composer_until_it_is_saved(qtbot, qloop, small_disk, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    composer = desktop.window.composer
    problem = composer.findChild(QLabel, "composerProblem")
    small_disk.fill()
    qtbot.keyClicks(composer.edit, "deploy now")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(problem.isVisible, timeout=5000)
    assert problem.text() == "Not sent: the disk is full — free some space, then press Send again."
    assert composer.edit.toPlainText() == "deploy now"
    pulled = run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))
    assert pulled["messages"] == []

    small_disk.free()
    QTest.mouseClick(composer.findChild(QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0] == {"kind": "text", "text": "deploy now"}
    qtbot.waitUntil(lambda: composer.edit.toPlainText() == "" and not problem.isVisible(), timeout=5000)
    pulled = run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))
    assert [m["seq"] for m in pulled["messages"]] == [delivered["seq"]]
