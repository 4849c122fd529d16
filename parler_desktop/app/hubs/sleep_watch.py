"""Tell the session the moment the machine wakes, as the OS announces it (``platform/wake``).

Right after a resume the socket looks open and is most likely dead; on the OS's word the session
probes its line at once instead of waiting for the heartbeat. Linux: logind emits
``PrepareForSleep(false)`` on the system bus as the machine wakes; only logind can own its bus
name, so no other program can fake the signal. macOS: NSWorkspace's did-wake notification
(``platform/wake/workspace.py``). Windows: ``WM_POWERBROADCAST`` through a native event filter
(``power_filter.py``). Where none can be had (no system bus, a container) ``active`` is False and
the session's clock-jump detector (client/wake.py) still notices the resume within a second.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import SLOT, QObject, Slot
from PySide6.QtDBus import QDBusConnection

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.power_filter import PowerBroadcastFilter
from parler_desktop.platform.wake.workspace import WorkspaceWake

LOGIND = "org.freedesktop.login1"
LOGIND_PATH = "/org/freedesktop/login1"
LOGIND_MANAGER = "org.freedesktop.login1.Manager"


class SleepWatch(QObject):
    def __init__(
        self,
        bridge: SessionBridge,
        parent: QObject | None = None,
        bus: QDBusConnection | None = None,
        platform: str = sys.platform,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._source: WorkspaceWake | PowerBroadcastFilter | None = None
        if platform == "darwin":
            self._source = workspace = WorkspaceWake(bridge.notify_wake)
            self.active = workspace.start()
            self.destroyed.connect(workspace.stop)
        elif platform == "win32":
            self._source = power = PowerBroadcastFilter(bridge.notify_wake)
            self.active = power.install()
            self.destroyed.connect(power.remove)
        else:
            bus = QDBusConnection.systemBus() if bus is None else bus
            self.active = bus.isConnected() and bus.connect(
                LOGIND, LOGIND_PATH, LOGIND_MANAGER, "PrepareForSleep", self, SLOT("prepare_for_sleep(bool)")
            )

    @Slot(bool)
    def prepare_for_sleep(self, going_to_sleep: bool) -> None:
        if not going_to_sleep:
            self._bridge.notify_wake()
