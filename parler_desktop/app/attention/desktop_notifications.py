"""Desktop notifications through the freedesktop Notifications service on the session bus.

One notification per room: a new alert for a room replaces the one still shown (``replaces_id``)
instead of stacking. The "Open" action (and a click on the notification) reports
``opened(room, seq)`` so the window can show that message. Only the service's owner can invoke
an action: signals from any other bus name are ignored.

The calls go through jeepney (pure-Python D-Bus on asyncio) rather than QtDBus: PySide6 cannot
marshal an unsigned 32-bit integer, and every server rejects ``Notify`` whose ``replaces_id``
is not ``u``. Without a session bus or a notification service, ``start()`` returns False and
the caller falls back to the tray balloon.
"""

from __future__ import annotations

import asyncio
import html
import logging
from typing import Any

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.asyncio import DBusConnection, DBusRouter, open_dbus_connection
from PySide6.QtCore import QObject, Signal

from parler_desktop.app.attention.attention_notifier import Alert
from parler_desktop.assets import APP_ID
from parler_desktop.client.tasks import TaskSupervisor

log = logging.getLogger(__name__)

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
INTERFACE = "org.freedesktop.Notifications"
APP_NAME = "Parler"
CALL_TIMEOUT_SECS = 5.0
NOTIFICATIONS = DBusAddress(PATH, bus_name=SERVICE, interface=INTERFACE)
EARLY_SIGNALS_KEPT = 16  # ids our Notify calls have not returned yet whose signals are kept (see _listen)


class DesktopNotifications(QObject):
    opened = Signal(str, int, str)  # room, seq, hub: the human chose "Open" (or clicked the notification)
    replyRequested = Signal(str, int, str)  # room, seq, hub: the human chose "Reply" (an alert that offers it)
    undelivered = Signal(object)  # Alert the service refused or never answered: show it elsewhere

    def __init__(self, tasks: TaskSupervisor, bus: str = "SESSION", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks = tasks
        self._bus = bus
        self._connection: DBusConnection | None = None
        self._router: DBusRouter | None = None
        self._owner = ""
        self._markup = False
        self._by_room: dict[tuple[str, str, str], int] = {}  # (hub, room, slot) -> id of its notification on screen
        self._targets: dict[int, tuple[str, int, str]] = {}  # notification id -> (room, seq, hub)
        self._slots: dict[int, tuple[str, str, str]] = {}  # notification id -> its (hub, room, slot)
        self._notifying = 0  # Notify calls not answered yet
        self._early: dict[int, list[tuple[str, tuple]]] = {}  # id -> (member, body) signalled before its Notify returned

    @property
    def available(self) -> bool:
        return self._router is not None

    @property
    def bus_name(self) -> str:
        """Our unique name on the bus ("" when not connected)."""
        return "" if self._router is None else self._router.unique_name

    async def start(self) -> bool:
        """Connect and check that a notification service answers; False (quietly) if not."""
        try:
            self._connection = await asyncio.wait_for(open_dbus_connection(self._bus), CALL_TIMEOUT_SECS)
            self._router = DBusRouter(self._connection)
            self._owner = (await self._call(message_bus.GetNameOwner(SERVICE)))[0]
            capabilities = (await self._call(new_method_call(NOTIFICATIONS, "GetCapabilities")))[0]
            self._markup = "body-markup" in capabilities
            rule = MatchRule(type="signal", sender=SERVICE, interface=INTERFACE, path=PATH)
            await self._call(message_bus.AddMatch(rule))
        except (OSError, KeyError, ValueError, EOFError, asyncio.TimeoutError, DBusCallFailed) as error:
            log.info("desktop notifications unavailable (%s); using the tray", error)
            await self.stop()
            return False
        self._tasks.spawn("notification signals", self._listen())
        return True

    async def stop(self) -> None:
        router, connection = self._router, self._connection
        self._router = self._connection = None
        if router is not None:
            await router.__aexit__(None, None, None)
        if connection is not None:
            await connection.close()

    def show(self, alert: Alert) -> None:
        self._tasks.spawn("notify", self._notify(alert))

    async def _notify(self, alert: Alert) -> None:
        body = html.escape(alert.body, quote=False) if self._markup else alert.body
        hints = {"category": ("s", "im.received"), "desktop-entry": ("s", APP_ID)}
        message = new_method_call(
            NOTIFICATIONS,
            "Notify",
            "susssasa{sv}i",
            (
                APP_NAME,
                self._by_room.get((alert.hub, alert.room, alert.slot), 0),
                APP_ID,
                alert.title,
                body,
                ["default", "Open", "open", "Open", *(["reply", "Reply"] if alert.reply else [])],
                hints,
                -1,
            ),
        )
        self._notifying += 1
        try:
            (notification_id,) = await self._call(message)
        except (DBusCallFailed, OSError, asyncio.TimeoutError) as error:
            log.warning("notification not shown: %s", error)
            self.undelivered.emit(alert)
            notification_id = None
        finally:
            self._notifying -= 1
        if notification_id is not None:
            self._by_room[(alert.hub, alert.room, alert.slot)] = notification_id
            self._targets[notification_id] = (alert.room, alert.seq, alert.hub)
            self._slots[notification_id] = (alert.hub, alert.room, alert.slot)
            for member, body in self._early.pop(notification_id, ()):
                self._on_signal(member, body)
        if not self._notifying:
            self._early.clear()  # what is left was another program's

    async def _call(self, message: Any) -> tuple:
        if self._router is None:
            raise DBusCallFailed("not connected to the session bus")
        reply = await asyncio.wait_for(self._router.send_and_get_reply(message), CALL_TIMEOUT_SECS)
        if reply.header.message_type is MessageType.error:
            raise DBusCallFailed(f"{reply.header.fields.get(HeaderFields.error_name)}: {reply.body}")
        return reply.body

    async def _listen(self) -> None:
        router = self._router
        if router is None:
            return
        with router.filter(MatchRule(type="signal", interface=INTERFACE, path=PATH), bufsize=256) as queue:
            while True:
                signal = await queue.get()
                if not await self._from_service(signal.header.fields.get(HeaderFields.sender)):
                    continue  # only the notification service speaks for its notifications
                member = signal.header.fields.get(HeaderFields.member)
                if member not in ("ActionInvoked", "NotificationClosed"):
                    continue
                if signal.body[0] in self._targets:
                    self._on_signal(member, signal.body)
                elif self._notifying:
                    # A click may come before our Notify call has read its reply (on its way, or
                    # waiting for the loop): keep it, and the close after it, for that reply.
                    self._early.setdefault(signal.body[0], []).append((member, signal.body))
                    while len(self._early) > EARLY_SIGNALS_KEPT:
                        del self._early[next(iter(self._early))]

    def _on_signal(self, member: str, body: tuple) -> None:
        if member == "ActionInvoked":
            wanted = self.replyRequested if body[1] == "reply" else self.opened
            wanted.emit(*self._targets[body[0]])
        else:
            self._forget(body[0])

    async def _from_service(self, sender: str | None) -> bool:
        """Whether ``sender`` owns the service name (asked again when it differs: the service may
        have been restarted under a new connection since we looked)."""
        if sender == self._owner:
            return True
        try:
            self._owner = (await self._call(message_bus.GetNameOwner(SERVICE)))[0]
        except (DBusCallFailed, OSError, asyncio.TimeoutError):
            return False
        return sender == self._owner

    def _forget(self, notification_id: int) -> None:
        self._targets.pop(notification_id, None)
        slot = self._slots.pop(notification_id, None)
        if slot is not None and self._by_room.get(slot) == notification_id:
            del self._by_room[slot]


class DBusCallFailed(Exception):
    """The bus or the service answered a call with an error."""
