"""Notifications on macOS (the notification centre) and Windows (toasts) through desktop-notifier,
with the same contract as the Linux ``DesktopNotifications``: one per room (the service replaces a
room's earlier alert: ``platform/notifications/payload.py``), "Open" and a click report
``opened(room, seq, hub)``, and an alert the service cannot take is ``undelivered`` (the tray
shows it).

``start()`` is False (the tray serves) where desktop-notifier is missing or has only its dummy
backend (macOS outside an app bundle). ``send_notification`` never raises when the backend fails
(desktop-notifier logs it); its ``on_dispatched`` callback, run only once the backend took the
notification, tells us. desktop-notifier may call back on a thread of its own, so
its callbacks hop to the window's loop before a signal is emitted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from parler_desktop.app.attention.attention_notifier import Alert
from parler_desktop.assets import icon_png
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.platform.notifications.payload import REPLY_ACTION, payload_for

log = logging.getLogger(__name__)

APP_NAME = "Parler"
ICON_SIZE = 256


class NativeNotifications(QObject):
    opened = Signal(str, int, str)  # room, seq, hub: the human chose "Open" (or clicked the notification)
    replyRequested = Signal(str, int, str)  # room, seq, hub: the human chose "Reply" (an alert that offers it)
    undelivered = Signal(object)  # Alert the service refused: show it elsewhere

    def __init__(self, tasks: TaskSupervisor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._notifier: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def available(self) -> bool:
        return self._notifier is not None

    async def start(self) -> bool:
        try:
            from desktop_notifier import DesktopNotifier, Icon
            from desktop_notifier.backends.dummy import DummyNotificationCenter
            from desktop_notifier.main import get_backend_class

            if get_backend_class() is DummyNotificationCenter:
                log.info("no notification centre for this process; using the tray")
                return False
            self._notifier = DesktopNotifier(app_name=APP_NAME, app_icon=Icon(path=icon_png(ICON_SIZE)))
        except Exception as error:  # a missing or failing platform backend: the tray serves
            log.info("desktop notifications unavailable (%s); using the tray", error)
            self._notifier = None
            return False
        self._loop = asyncio.get_running_loop()
        return True

    async def stop(self) -> None:
        self._notifier = None

    def show(self, alert: Alert) -> None:
        self._tasks.spawn("notify", self._notify(alert))

    async def _notify(self, alert: Alert) -> None:
        from desktop_notifier import Button, Notification

        notifier = self._notifier
        if notifier is None:
            return
        payload = payload_for(alert.hub, alert.room, alert.title, alert.body, alert.slot, alert.reply)
        open_message = self._emitter(self.opened, alert)
        reply = self._emitter(self.replyRequested, alert)
        buttons = tuple(
            Button(label, on_pressed=reply if action == REPLY_ACTION else open_message, identifier=action)
            for action, label in payload.actions
        )
        dispatched: list[bool] = []
        notification = Notification(
            payload.title, payload.body, buttons=buttons, on_clicked=open_message, thread=payload.thread,
            identifier=payload.identifier, on_dispatched=lambda: dispatched.append(True),
        )
        try:
            if not await notifier.request_authorisation():  # asks once; later, the current answer
                raise PermissionError("notifications are not allowed for Parler")
            await notifier.send_notification(notification)
            if not dispatched:  # desktop-notifier logs a backend's failure and returns as if sent
                raise RuntimeError("the notification service did not take it")
        except Exception as error:  # the service refused or failed: the alert is shown elsewhere
            log.warning("notification not shown: %s", error)
            self.undelivered.emit(alert)

    def _emitter(self, signal: Any, alert: Alert) -> Any:
        """A callback for the service's thread that emits ``signal`` for ``alert`` on the window's loop."""
        loop = self._loop

        def emit() -> None:
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(signal.emit, alert.room, alert.seq, alert.hub)

        return emit
