"""The supervisor steering their attention in the real window: the room menu's levels and
mark-read, Do Not Disturb from the Notifications menu, the rules dialog, the tray and
close-to-tray. Notifications are counted on the fake server of test_app_notifications."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QSystemTrayIcon, QWidget
from support.desktop_fixtures import click_action, join_room, post_as, row_menu, unread
from support.private_bus import bus_address, needs_dbus, server, settled, watching  # noqa: F401 - fixtures
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.hub.config import HubLimits
from parler_desktop.app.attention.attention_settings import Level, load_attention
from parler_desktop.ui.attention.close_to_tray import HINT
from parler_desktop.ui.attention.tray import Tray

pytestmark = [needs_dbus, pytest.mark.timeout(60)]


@pytest.fixture
def hub(hub_factory):
    return hub_factory(limits=HubLimits().relaxed())


@pytest.fixture
def with_tray(monkeypatch):
    """A desktop with a system tray (the offscreen platform has none); balloons are recorded."""
    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    balloons: list[tuple[str, str]] = []
    monkeypatch.setattr(Tray, "showMessage", lambda self, title, body, *rest: balloons.append((title, body)))
    return balloons


def mention(qtbot, qloop, peer, room: str, text: str) -> dict:
    return post_as(qtbot, qloop, peer, room, f"@boss {text}", mentions=["boss"])


def test_muting_a_room_from_its_menu_silences_it_and_mark_read_clears_it(qtbot, qloop, server, watching, peer, hub):
    quiet = join_room(qtbot, qloop, watching, peer, "chatty")
    loud = join_room(qtbot, qloop, watching, peer, "important")
    menu = row_menu(qtbot, watching, quiet)
    notify = next(a for a in menu.actions() if a.text() == "Notify me about").menu()
    click_action(qtbot, menu, "Notify me about")
    qtbot.waitUntil(notify.isVisible, timeout=2000)
    click_action(qtbot, notify, "Nothing (mute)")
    qtbot.waitUntil(lambda: watching.attention.preferences.current().level(hub.url, quiet) is Level.NONE, timeout=2000)
    mention(qtbot, qloop, peer, quiet, "muted room")
    mention(qtbot, qloop, peer, loud, "loud room")
    qtbot.waitUntil(lambda: server.notify_calls == 1 and settled(watching), timeout=10_000)
    assert [shown.summary for shown in server.shown.values()] == [f"alice in {loud}"]
    home = watching.home
    qtbot.waitUntil(
        lambda: load_attention(home.config_dir / "attention.json").settings.level(hub.url, quiet) is Level.NONE, timeout=5000
    )
    assert unread(watching, quiet) == 1
    click_action(qtbot, row_menu(qtbot, watching, quiet), "Mark as read")
    qtbot.waitUntil(lambda: unread(watching, quiet) == 0, timeout=5000)
    click_action(qtbot, row_menu(qtbot, watching, quiet), "Copy room name")
    assert QGuiApplication.clipboard().text() == quiet


def test_do_not_disturb_holds_notifications_until_the_human_resumes(qtbot, qloop, server, watching, peer):
    room = join_room(qtbot, qloop, watching, peer, "ops")
    menu = watching.attention.menu
    click_action(qtbot, menu, "Do not disturb for 1 hour")
    assert menu.state.text().startswith("Do not disturb until")
    mention(qtbot, qloop, peer, room, "during do not disturb")
    qtbot.waitUntil(lambda: unread(watching, room) == 1 and settled(watching), timeout=10_000)
    click_action(qtbot, menu, "Notify me again")
    assert menu.state.text() == "Notifications on"
    mention(qtbot, qloop, peer, room, "after do not disturb")
    qtbot.waitUntil(lambda: server.notify_calls == 1 and settled(watching), timeout=10_000)
    assert [shown.body for shown in server.shown.values()] == ["@boss after do not disturb"]


def test_the_rules_dialog_refuses_a_bad_rule_with_a_reason_and_keeps_a_good_one(qtbot, qloop, server, watching, peer):
    dialog = watching.attention.menu.open_settings()
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    dialog.rules.selectAll()
    qtbot.keyClicks(dialog.rules, '[{"action": "keep", "when": {"auther": "alice"}}]')
    QTest.keyClick(dialog, Qt.Key.Key_Return)
    assert dialog.isVisible() and "Rule 1: unknown condition 'auther'" in dialog.error.text()
    assert '"auther"' in dialog.rules.toPlainText()  # what was typed is still there
    dialog.rules.selectAll()
    qtbot.keyClicks(dialog.rules, '[{"action": "keep", "when": {"text_prefix": "deploy"}}]')
    QTest.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)
    path = watching.home.config_dir / "attention.json"
    qtbot.waitUntil(
        lambda: path.exists()
        and json.loads(path.read_text())["rules"] == [{"action": "keep", "when": {"text_prefix": "deploy"}}],
        timeout=5000,
    )
    room = join_room(qtbot, qloop, watching, peer, "releases")
    mention(qtbot, qloop, peer, room, "a mention no rule keeps now")
    post_as(qtbot, qloop, peer, room, "Deploy finished")
    qtbot.waitUntil(lambda: server.notify_calls == 1 and settled(watching), timeout=10_000)
    assert [shown.summary for shown in server.shown.values()] == [room]  # a summary of both, kept for the deploy


def test_closing_hides_to_the_tray_once_with_a_hint_and_quit_really_quits(qtbot, qloop, with_tray, desktop):
    tray = desktop.attention.tray
    assert tray is not None and tray.isVisible()
    closed = []
    desktop.window.closing.connect(lambda: closed.append(True))
    desktop.window.close()
    assert not desktop.window.isVisible() and closed == []
    assert with_tray == [("Parler is still running", HINT)]
    desktop.window.show()
    desktop.window.close()
    assert len(with_tray) == 1  # the hint comes once
    qtbot.waitUntil(
        lambda: load_attention(desktop.home.config_dir / "attention.json").settings.tray_hint_shown, timeout=5000
    )
    click_action(qtbot, tray.menu, "Quit")
    assert closed == [True]


def test_the_tray_shows_health_and_unread_and_stands_in_for_missing_notifications(
    qtbot, qloop, with_tray, desktop, peer
):
    tray = desktop.attention.tray
    assert not desktop.attention.desktop.available  # no notification service on this desktop
    qtbot.waitUntil(lambda: "Connected" in tray.toolTip(), timeout=5000)
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    other = QWidget()  # another window takes the focus
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not desktop.window.isActiveWindow(), timeout=5000)
    sent = mention(qtbot, qloop, peer, room, "the build is red")
    qtbot.waitUntil(lambda: "1 unread" in tray.toolTip() and bool(with_tray), timeout=10_000)
    assert with_tray == [(f"alice in {room}", "@boss the build is red")]
    tray.messageClicked.emit()  # the human clicks the balloon
    qtbot.waitUntil(lambda: desktop.window.timeline_model.room == room, timeout=5000)
    qtbot.waitUntil(
        lambda: (entry := desktop.window.timeline_model.entry(desktop.window.timeline.currentIndex().row())) is not None
        and entry.seq == sent["seq"],
        timeout=5000,
    )
    click_action(qtbot, tray.menu, "Pause notifications")
    assert desktop.attention.preferences.current().paused and "Notifications paused" in tray.toolTip()
    assert desktop.attention.menu.pause.isChecked()


def test_a_stop_signal_and_ctrl_q_quit_instead_of_hiding_to_the_tray(qtbot, with_tray, desktop):
    closed = []
    desktop.window.closing.connect(lambda: closed.append(True))
    QTest.keyClick(desktop.window.composer.edit, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert closed == [True]
    desktop.window.show()
    desktop.quit()  # what SIGTERM and SIGINT do (cli/gui_command.py)
    assert closed == [True, True]
