"""The notification seam: this OS's implementation of one contract (``Notifications``).

Linux keeps our jeepney code (``desktop_notifications.py``) rather than desktop-notifier's D-Bus
backend: it replaces a room's notification by the id the service returned, hands body markup only
to servers that render it (escaped), and obeys an action only from the service's owner. macOS and
Windows use desktop-notifier (``native_notifications.py``).
"""

from __future__ import annotations

import sys
from typing import Protocol

from PySide6.QtCore import QObject, SignalInstance

from parler_desktop.app.attention.attention_notifier import Alert
from parler_desktop.app.attention.desktop_notifications import DesktopNotifications
from parler_desktop.app.attention.native_notifications import NativeNotifications
from parler_desktop.client.tasks import TaskSupervisor

NATIVE_PLATFORMS = ("darwin", "win32")


class Notifications(Protocol):
    opened: SignalInstance  # (room, seq, hub): "Open" or a click
    replyRequested: SignalInstance  # (room, seq, hub): "Reply", on an alert that offers it
    undelivered: SignalInstance  # (Alert): the service would not take it; the tray shows it

    @property
    def available(self) -> bool: ...
    async def start(self) -> bool: ...
    async def stop(self) -> None: ...
    def show(self, alert: Alert) -> None: ...


def platform_notifications(
    tasks: TaskSupervisor, parent: QObject | None = None, platform: str = sys.platform
) -> Notifications:
    if platform in NATIVE_PLATFORMS:
        return NativeNotifications(tasks, parent)
    return DesktopNotifications(tasks, parent=parent)
