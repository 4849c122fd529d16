"""Notifications on macOS and Windows, checked here: the payload each service gets (one
identifier per room of a hub, so the service replaces a room's earlier alert; plain, bounded text;
the Open button), and NativeNotifications against desktop-notifier's API (support/
notification_centre.py): Open and a click come back as ``opened`` on the window's loop, a refusal
reaches the tray. The Linux implementation's contract: tests/test_app_notifications.py."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from support.notification_centre import DummyNotificationCenter, notification_centre  # noqa: F401 - fixture
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.app.attention.attention_notifier import Alert
from parler_desktop.app.attention.desktop_notifications import DesktopNotifications
from parler_desktop.app.attention.native_notifications import NativeNotifications
from parler_desktop.app.attention.platform_notifications import platform_notifications
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.platform.notifications.payload import BODY_LIMIT, payload_for, room_identifier

HUB = "ws://127.0.0.1:7070/ws"


def test_one_identifier_per_room_of_a_hub_that_never_shows_the_rooms_name():
    first, second = payload_for(HUB, "ops", "alice in ops", "deploy?", platform="darwin"), payload_for(HUB, "ops", "ops", "alice and bob: 2 new")
    assert first.identifier == second.identifier == first.thread == room_identifier(HUB, "ops")  # replaces
    assert "ops" not in first.identifier
    assert len({room_identifier(HUB, "ops"), room_identifier(HUB, "dev"), room_identifier("wss://other/ws", "ops")}) == 3
    assert first.actions == (("open", "Open"),) and (first.title, first.body) == ("alice in ops", "deploy?")


def test_only_macos_groups_a_rooms_alerts_by_thread_windows_would_show_it_as_a_header():
    """desktop-notifier turns ``thread`` into a toast <header> whose id and title are both the
    thread, and Windows shows that title above the toast (Toast XML schema, element header): it
    would read 'parler-room-3fa9…'. The toast's tag (the identifier) still replaces."""
    mac, windows = payload_for(HUB, "ops", "t", "b", platform="darwin"), payload_for(HUB, "ops", "t", "b", platform="win32")
    assert mac.thread == room_identifier(HUB, "ops") and windows.thread is None
    assert mac.identifier == windows.identifier == room_identifier(HUB, "ops")


def test_the_text_is_bounded_and_kept_as_plain_text():
    payload = payload_for(HUB, "r", "<b>t</b>", "x" * 5000)
    assert payload.title == "<b>t</b>" and len(payload.body) == BODY_LIMIT and payload.body.endswith("…")


def test_each_os_gets_its_implementation(qtbot):
    tasks = TaskSupervisor("test")
    assert isinstance(platform_notifications(tasks, platform="linux"), DesktopNotifications)
    assert isinstance(platform_notifications(tasks, platform="darwin"), NativeNotifications)
    assert isinstance(platform_notifications(tasks, platform="win32"), NativeNotifications)


@pytest.mark.skipif(importlib.util.find_spec("desktop_notifier") is not None, reason="desktop-notifier is installed here")
def test_without_desktop_notifier_the_tray_serves(qtbot, qloop):
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start()) is False and not notifications.available


def test_a_rooms_alerts_replace_each_other_and_open_comes_back_on_the_loop(qtbot, qloop, notification_centre):
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start()) and notifications.available
    notifications.show(Alert("ops", 3, "alice in ops", "deploy?", HUB))
    qtbot.waitUntil(lambda: notification_centre.sent == 1)
    notifications.show(Alert("ops", 7, "ops", "alice and bob: 2 new", HUB))
    notifications.show(Alert("dev", 9, "bob in dev", "done", HUB))
    qtbot.waitUntil(lambda: notification_centre.sent == 3)
    assert sorted(n.title for n in notification_centre.shown.values()) == ["bob in dev", "ops"]  # one per room
    ops = room_identifier(HUB, "ops")
    assert [(b.title, b.identifier) for b in notification_centre.shown[ops].buttons] == [("Open", "open")]
    with qtbot.waitSignal(notifications.opened, timeout=5000) as opened:
        notification_centre.press(ops, "open")
    assert opened.args == ["ops", 7, HUB]
    with qtbot.waitSignal(notifications.opened, timeout=5000) as clicked:
        notification_centre.press(room_identifier(HUB, "dev"))
    assert clicked.args == ["dev", 9, HUB]


def test_a_needs_you_items_alert_has_its_own_slot_and_a_reply_that_comes_back(qtbot, qloop, notification_centre):
    """An item's alert (slot, reply) stands beside its room's and offers Reply, as on Linux."""
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start())
    notifications.show(Alert("ops", 3, "alice in ops", "deploy?", HUB))
    notifications.show(Alert("ops", 5, "alice asks you", "which db?", HUB, slot="item-5", reply=True))
    qtbot.waitUntil(lambda: notification_centre.sent == 2)
    assert len(notification_centre.shown) == 2  # neither replaced the other
    item = payload_for(HUB, "ops", "", "", "item-5", True, platform="darwin")
    assert item.thread == room_identifier(HUB, "ops") and item.identifier != item.thread
    assert [(b.title, b.identifier) for b in notification_centre.shown[item.identifier].buttons] == [("Open", "open"), ("Reply", "reply")]
    with qtbot.waitSignal(notifications.replyRequested, timeout=5000) as replied:
        notification_centre.press(item.identifier, "reply")
    assert replied.args == ["ops", 5, HUB]


def test_an_alert_the_centre_refuses_goes_to_the_tray(qtbot, qloop, notification_centre):
    notification_centre.allowed = False  # the human said no to Parler's notifications
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start())
    alert = Alert("ops", 3, "alice in ops", "deploy?", HUB)
    with qtbot.waitSignal(notifications.undelivered, timeout=5000) as undelivered:
        notifications.show(alert)
    assert undelivered.args == [alert] and notification_centre.sent == 0


def test_an_alert_the_service_fails_to_take_goes_to_the_tray(qtbot, qloop, notification_centre):
    """desktop-notifier's send_notification logs a backend's failure and returns as if sent (its
    docs: 'does not raise an exception when scheduling the notification fails'); only
    on_dispatched tells that the service took it."""
    notification_centre.failing = True
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start())
    alert = Alert("ops", 3, "alice in ops", "deploy?", HUB)
    with qtbot.waitSignal(notifications.undelivered, timeout=5000) as undelivered:
        notifications.show(alert)
    assert undelivered.args == [alert] and notification_centre.shown == {}


def test_outside_an_app_bundle_on_macos_the_tray_serves(qtbot, qloop, notification_centre):
    notification_centre.backend = DummyNotificationCenter  # desktop-notifier's stand-in: shows nothing
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start()) is False and not notifications.available


@pytest.mark.skipif(sys.platform != "win32", reason="toasts are Windows'")
def test_the_real_toast_service_starts(qtbot, qloop):
    notifications = NativeNotifications(TaskSupervisor("test"))
    assert run_coroutine(qtbot, qloop, notifications.start())
