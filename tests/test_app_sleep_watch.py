"""SleepWatch on a private D-Bus: logind's PrepareForSleep(false) wakes the session; going to
sleep, or the same signal from anyone but logind's bus name, does not."""

from __future__ import annotations

import uuid

import pytest
from PySide6.QtCore import SLOT, QObject, Slot
from PySide6.QtDBus import QDBusConnection, QDBusMessage
from support.private_bus import bus_address, needs_dbus  # noqa: F401 - fixture
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import bridge, session, store  # noqa: F401 - fixtures

from parler_desktop.app.hubs.sleep_watch import LOGIND, LOGIND_MANAGER, LOGIND_PATH, SleepWatch

pytestmark = needs_dbus
BARRIER_INTERFACE = "org.example.TestBarrier"


def connect(address: str) -> QDBusConnection:
    name = f"test-{uuid.uuid4()}"
    connection = QDBusConnection.connectToBus(address, name)
    assert connection.isConnected()
    return connection


def prepare_for_sleep(sender: QDBusConnection, going_to_sleep: bool) -> None:
    signal = QDBusMessage.createSignal(LOGIND_PATH, LOGIND_MANAGER, "PrepareForSleep")
    signal.setArguments([going_to_sleep])
    assert sender.send(signal)


class Barrier(QObject):
    """A marker signal sent after the ones under test: the bus delivers one sender's signals in
    order, so once it arrives on the watch's connection, everything before it was dispatched."""

    def __init__(self, listener: QDBusConnection, sender: QDBusConnection) -> None:
        super().__init__()
        self.seen = 0
        self._sender = sender
        assert listener.connect(LOGIND, LOGIND_PATH, BARRIER_INTERFACE, "Mark", self, SLOT("mark()"))

    @Slot()
    def mark(self) -> None:
        self.seen += 1

    def cross(self, qtbot) -> None:
        expected = self.seen + 1
        assert self._sender.send(QDBusMessage.createSignal(LOGIND_PATH, BARRIER_INTERFACE, "Mark"))
        qtbot.waitUntil(lambda: self.seen == expected, timeout=5000)


def test_a_resume_announced_by_logind_wakes_the_session(qtbot, session, bridge, bus_address):
    listener = connect(bus_address)
    watch = SleepWatch(bridge, bus=listener)
    assert watch.active
    logind = connect(bus_address)
    assert logind.registerService(LOGIND)
    barrier = Barrier(listener, logind)
    impostor = connect(bus_address)
    prepare_for_sleep(impostor, False)  # not logind: must be ignored
    impostor.interface().isServiceRegistered(LOGIND)  # a round trip: the bus has routed it
    prepare_for_sleep(logind, True)  # going to sleep: nothing to probe yet
    barrier.cross(qtbot)
    assert session.wakes == 0
    prepare_for_sleep(logind, False)  # woke up
    barrier.cross(qtbot)
    assert session.wakes == 1


def test_without_a_bus_it_stays_inactive(qtbot, bridge):
    watch = SleepWatch(bridge, bus=QDBusConnection.connectToBus("unix:path=/nonexistent/bus", "absent"))
    assert not watch.active
