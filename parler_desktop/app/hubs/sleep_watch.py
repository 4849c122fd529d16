"""Tell the session the moment the machine wakes, as logind announces it (Linux).

Right after a resume the socket looks open and is most likely dead. logind emits
``PrepareForSleep(false)`` on the system bus as the machine wakes, and the session then probes its
line at once instead of waiting for the heartbeat. Only logind can own its bus name, so no other
program can fake the signal. Without a system bus (macOS, Windows, containers) this does nothing,
and the session's clock-jump detector (client/wake.py) still notices the resume within a second.
"""

from __future__ import annotations

from PySide6.QtCore import SLOT, QObject, Slot
from PySide6.QtDBus import QDBusConnection

from parler_desktop.app.hubs.bridge import SessionBridge

LOGIND = "org.freedesktop.login1"
LOGIND_PATH = "/org/freedesktop/login1"
LOGIND_MANAGER = "org.freedesktop.login1.Manager"


class SleepWatch(QObject):
    def __init__(self, bridge: SessionBridge, parent: QObject | None = None, bus: QDBusConnection | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        bus = QDBusConnection.systemBus() if bus is None else bus
        self.active = bus.isConnected() and bus.connect(
            LOGIND, LOGIND_PATH, LOGIND_MANAGER, "PrepareForSleep", self, SLOT("prepare_for_sleep(bool)")
        )

    @Slot(bool)
    def prepare_for_sleep(self, going_to_sleep: bool) -> None:
        if not going_to_sleep:
            self._bridge.notify_wake()
