"""A private D-Bus session bus for one test (``bus_address`` fixture), and a fake freedesktop
notification server on it that records what the human would see (``FakeNotificationServer``;
``server`` starts one and points the session bus variable at it; ``watching`` is the ``desktop``
connected to it and not the active window).

The server runs on the test's qasync loop through jeepney, as the app's client does, and answers
``Notify`` only with the exact signature every real server insists on (``susssasa{sv}i``).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QWidget
from support.qt_loop import run_coroutine
from jeepney import DBusAddress, HeaderFields, new_error, new_method_return, new_signal
from jeepney.bus_messages import MatchRule, message_bus
from jeepney.io.asyncio import DBusRouter, open_dbus_connection

needs_dbus = pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="needs dbus-daemon")
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
NOTIFICATIONS = "org.freedesktop.Notifications"


@pytest.fixture
def bus_address():
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield daemon.stdout.readline().strip()
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


@dataclass
class Shown:
    """One notification on screen: the latest Notify for its id."""

    id: int
    summary: str
    body: str
    actions: list[str]
    calls: int = 1  # how many Notify calls showed or replaced it


class FakeNotificationServer:
    def __init__(self, capabilities: tuple[str, ...] = ("actions", "body")) -> None:
        self.capabilities = list(capabilities)
        self.shown: dict[int, Shown] = {}
        self.notify_calls = 0
        self.click_before_reply = ""  # an action "clicked" on each new notification before Notify is answered
        self._next_id = 0
        self._router: DBusRouter | None = None
        self._connection = None
        self._task: asyncio.Task | None = None

    async def start(self, address: str) -> "FakeNotificationServer":
        self._connection = await open_dbus_connection(address)
        self._router = DBusRouter(self._connection)
        reply = await self._router.send_and_get_reply(message_bus.RequestName(NOTIFICATIONS))
        assert reply.body == (1,), reply.body  # primary owner
        self._task = asyncio.get_running_loop().create_task(self._serve())
        return self

    async def stop(self) -> None:
        """Leave the bus (the name is free again); stopping twice is harmless."""
        task, router, self._task, self._router = self._task, self._router, None, None
        if task is not None:
            task.cancel()
        if router is not None:
            await router.__aexit__(None, None, None)
            await self._connection.close()

    async def _serve(self) -> None:
        rule = MatchRule(type="method_call", path=NOTIFICATIONS_PATH, interface=NOTIFICATIONS)
        with self._router.filter(rule, bufsize=1000) as queue:
            while True:
                call = await queue.get()
                answer = self._answer(call)
                if self.click_before_reply and call.header.fields[HeaderFields.member] == "Notify":
                    await self._router.send(self._action_invoked(answer.body[0], self.click_before_reply))
                await self._router.send(answer)

    def _answer(self, call):
        member = call.header.fields[HeaderFields.member]
        signature = call.header.fields.get(HeaderFields.signature, "")
        if member == "GetCapabilities":
            return new_method_return(call, "as", (self.capabilities,))
        if member == "Notify" and signature == "susssasa{sv}i":
            _app, replaces, _icon, summary, body, actions, _hints, _timeout = call.body
            self.notify_calls += 1
            if replaces in self.shown:
                previous = self.shown[replaces]
                self.shown[replaces] = Shown(replaces, summary, body, list(actions), previous.calls + 1)
                return new_method_return(call, "u", (replaces,))
            self._next_id += 1
            self.shown[self._next_id] = Shown(self._next_id, summary, body, list(actions))
            return new_method_return(call, "u", (self._next_id,))
        return new_error(call, "org.freedesktop.DBus.Error.InvalidArgs", "s", (f"{member} with {signature!r}",))

    async def invoke(self, notification_id: int, action: str) -> None:
        """The human clicks ``action`` on a notification (then it closes, as servers do)."""
        await self._router.send(self._action_invoked(notification_id, action))
        emitter = DBusAddress(NOTIFICATIONS_PATH, interface=NOTIFICATIONS)
        await self._router.send(new_signal(emitter, "NotificationClosed", "uu", (notification_id, 2)))
        self.shown.pop(notification_id, None)

    @staticmethod
    def _action_invoked(notification_id: int, action: str):
        emitter = DBusAddress(NOTIFICATIONS_PATH, interface=NOTIFICATIONS)
        return new_signal(emitter, "ActionInvoked", "us", (notification_id, action))


async def forge_action(address: str, notification_id: int, destination: str) -> None:
    """An ActionInvoked from a program that does not own the notification service, sent straight
    to ``destination`` (a unicast signal passes any match rule)."""
    connection = await open_dbus_connection(address)
    try:
        emitter = DBusAddress(NOTIFICATIONS_PATH, interface=NOTIFICATIONS)
        forged = new_signal(emitter, "ActionInvoked", "us", (notification_id, "open"))
        forged.header.fields[HeaderFields.destination] = destination
        await connection.send(forged)
    finally:
        await connection.close()


def notifications_settled(notifier, *supervisors) -> bool:
    """Nothing waits in ``notifier`` to be announced and no Notify is on its way (``supervisors``:
    the TaskSupervisors that run them: the hub's, and the window's for the Notify calls)."""
    names = {task.get_name().split(":", 1)[-1] for tasks in supervisors for task in tasks.tasks}
    return not notifier.pending_rooms and not names & {"notify", "notifications"}


@pytest.fixture
def server(qtbot, qloop, bus_address, monkeypatch):
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus_address)
    fake = run_coroutine(qtbot, qloop, FakeNotificationServer().start(bus_address))
    yield fake
    run_coroutine(qtbot, qloop, fake.stop())


@pytest.fixture
def watching(qtbot, qloop, server, desktop):
    """The window, connected to the notification service and not the active window."""
    assert run_coroutine(qtbot, qloop, desktop.attention.start()) is None
    assert desktop.attention.desktop.available
    look_away(qtbot, desktop)
    return desktop


def look_away(qtbot, desktop) -> None:
    """Another window takes the focus: the human is not looking at ours."""
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not desktop.window.isActiveWindow(), timeout=5000)


def settled(desktop) -> bool:
    """Every hub's notifier has announced everything it holds."""
    notifiers = desktop.attention.notifiers
    return all(notifications_settled(notifiers[entry], entry.bridge.tasks, desktop.bridge.tasks) for entry in desktop.hubs.entries)
