"""The OS's word that the machine woke, on macOS and Windows: the Windows resume message read
from a native MSG (here, built in memory), the filter only looking; on their own hosted runners,
the real NSWorkspace notification and the real message loop."""

from __future__ import annotations

import ctypes
import sys

import pytest
from PySide6.QtCore import QByteArray
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import bridge, session, store  # noqa: F401 - fixtures

from parler_desktop.app.hubs.power_filter import PowerBroadcastFilter
from parler_desktop.app.hubs.sleep_watch import SleepWatch
from parler_desktop.platform.wake.power_broadcast import MSG, PBT_APMRESUMEAUTOMATIC, WM_POWERBROADCAST, is_resume_event
from parler_desktop.platform.wake.workspace import WorkspaceWake

PBT_APMSUSPEND = 0x0004


def native_msg(message: int, wparam: int) -> MSG:
    return MSG(hwnd=None, message=message, wParam=wparam, lParam=0, time=0)


def test_only_a_resume_broadcast_is_a_resume():
    resume, suspend, other = native_msg(WM_POWERBROADCAST, PBT_APMRESUMEAUTOMATIC), native_msg(WM_POWERBROADCAST, PBT_APMSUSPEND), native_msg(0x0010, PBT_APMRESUMEAUTOMATIC)
    assert is_resume_event(b"windows_generic_MSG", ctypes.addressof(resume))
    assert is_resume_event(b"windows_dispatcher_MSG", ctypes.addressof(resume))
    assert not is_resume_event(b"windows_generic_MSG", ctypes.addressof(suspend))
    assert not is_resume_event(b"windows_generic_MSG", ctypes.addressof(other))
    assert not is_resume_event(b"xcb_generic_event_t", ctypes.addressof(resume))  # another platform's event
    assert not is_resume_event(b"windows_generic_MSG", 0)


def test_the_power_filter_calls_on_wake_and_lets_every_event_through(qtbot):
    wakes: list[None] = []
    power = PowerBroadcastFilter(lambda: wakes.append(None))
    resume, suspend = native_msg(WM_POWERBROADCAST, PBT_APMRESUMEAUTOMATIC), native_msg(WM_POWERBROADCAST, PBT_APMSUSPEND)
    assert power.nativeEventFilter(QByteArray(b"windows_generic_MSG"), ctypes.addressof(suspend)) == (False, 0)
    assert power.nativeEventFilter(QByteArray(b"windows_generic_MSG"), ctypes.addressof(resume)) == (False, 0)
    assert len(wakes) == 1
    assert power.install()
    power.remove()


def test_one_resume_is_one_wake_however_many_windows_hear_it(qtbot):
    """Windows broadcasts WM_POWERBROADCAST to every top-level window (PBT_APMRESUMEAUTOMATIC's
    docs: 'A window receives this event through the WM_POWERBROADCAST message'), and Qt keeps a
    native window for the main window, each dialog and each menu or tooltip once shown: each would
    have probed every connection and asked for a full sync again."""
    now = [100.0]
    wakes: list[None] = []
    power = PowerBroadcastFilter(lambda: wakes.append(None), clock=lambda: now[0])
    resume = native_msg(WM_POWERBROADCAST, PBT_APMRESUMEAUTOMATIC)
    for _window in range(4):
        power.nativeEventFilter(QByteArray(b"windows_generic_MSG"), ctypes.addressof(resume))
    assert len(wakes) == 1
    now[0] += 60  # the next resume
    power.nativeEventFilter(QByteArray(b"windows_generic_MSG"), ctypes.addressof(resume))
    assert len(wakes) == 2


@pytest.mark.skipif(sys.platform == "darwin", reason="AppKit is there on macOS")
def test_without_appkit_the_macos_watch_is_inactive(qtbot, bridge):
    assert WorkspaceWake(lambda: None).start() is False
    assert SleepWatch(bridge, platform="darwin").active is False


@pytest.mark.skipif(sys.platform != "darwin", reason="NSWorkspace is macOS's")
def test_nsworkspace_did_wake_wakes_the_session(qtbot, session, bridge):
    from rubicon.objc import ObjCClass, at

    watch = SleepWatch(bridge)
    assert watch.active
    center = ObjCClass("NSWorkspace").sharedWorkspace.notificationCenter
    center.postNotificationName(at("NSWorkspaceDidWakeNotification"), object=None)
    # The observer's block runs on the main operation queue, which the main run loop drains. The
    # app's cocoa platform runs that loop; the tests' offscreen one polls with select() instead
    # (Qt's offscreen plugin on any Unix), so the test turns the run loop itself while it waits.
    run_loop, date = ObjCClass("NSRunLoop").mainRunLoop, ObjCClass("NSDate")

    def woke() -> bool:
        run_loop.runUntilDate(date.dateWithTimeIntervalSinceNow(0.01))
        return session.wakes == 1

    qtbot.waitUntil(woke, timeout=5000)


@pytest.mark.skipif(sys.platform != "win32", reason="the Windows message loop is Windows'")
def test_a_power_broadcast_on_the_message_loop_wakes_the_session(qtbot, session, bridge):
    watch = SleepWatch(bridge)
    assert watch.active
    user32, kernel32 = ctypes.windll.user32, ctypes.windll.kernel32  # type: ignore[attr-defined]
    assert user32.PostThreadMessageW(kernel32.GetCurrentThreadId(), WM_POWERBROADCAST, PBT_APMRESUMEAUTOMATIC, 0)
    qtbot.waitUntil(lambda: session.wakes == 1, timeout=5000)
