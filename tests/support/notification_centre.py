"""A stand-in for desktop-notifier's API (the part ``app/attention/native_notifications.py``
uses), with a notification centre that keeps one notification per identifier, as the macOS
notification centre and Windows' toasts do, and lets a test press a button or click, from a
thread of its own as desktop-notifier's Windows backend may. desktop-notifier itself is installed
only on macOS and Windows (pyproject.toml); on their hosted runners the real one is used."""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest


@dataclass(frozen=True)
class Icon:
    path: Any = None


@dataclass(frozen=True)
class Button:
    title: str
    on_pressed: Callable[[], Any] | None = None
    identifier: str = ""


@dataclass(frozen=True)
class Notification:
    title: str
    message: str
    buttons: tuple[Button, ...] = ()
    on_clicked: Callable[[], Any] | None = None
    on_dispatched: Callable[[], Any] | None = None
    thread: str | None = None
    identifier: str = ""


class DummyNotificationCenter:
    pass


@dataclass
class NotificationCentre:
    shown: dict[str, Notification] = field(default_factory=dict)  # identifier -> on screen
    sent: int = 0
    allowed: bool = True
    failing: bool = False  # the service fails to take what it is sent (desktop-notifier logs it, raises nothing)
    backend: type = object  # a real backend (DummyNotificationCenter: none)

    def press(self, identifier: str, button: str | None = None) -> None:
        """The human presses a button (or clicks the notification), on another thread."""
        notification = self.shown[identifier]
        action = notification.on_clicked if button is None else next(b.on_pressed for b in notification.buttons if b.identifier == button)
        assert action is not None
        worker = threading.Thread(target=action)
        worker.start()
        worker.join(5)


def module(centre: NotificationCentre) -> dict[str, types.ModuleType]:
    class DesktopNotifier:
        def __init__(self, app_name: str, app_icon: Icon | None = None) -> None:
            self.app_name = app_name

        async def request_authorisation(self) -> bool:
            return centre.allowed

        async def send_notification(self, notification: Notification) -> str:
            """As desktop-notifier's: a failure is logged, not raised; on_dispatched only on success."""
            if centre.failing:
                return notification.identifier
            centre.sent += 1
            centre.shown[notification.identifier] = notification  # the same identifier replaces
            if notification.on_dispatched is not None:
                notification.on_dispatched()
            return notification.identifier

    main = types.ModuleType("desktop_notifier")
    main.__dict__.update(DesktopNotifier=DesktopNotifier, Icon=Icon, Button=Button, Notification=Notification)
    dummy = types.ModuleType("desktop_notifier.backends.dummy")
    dummy.DummyNotificationCenter = DummyNotificationCenter  # type: ignore[attr-defined]
    chooser = types.ModuleType("desktop_notifier.main")
    chooser.get_backend_class = lambda: centre.backend  # type: ignore[attr-defined]
    return {"desktop_notifier": main, "desktop_notifier.backends.dummy": dummy, "desktop_notifier.main": chooser}


@pytest.fixture
def notification_centre(monkeypatch) -> Iterator[NotificationCentre]:
    centre = NotificationCentre()
    for name, fake in module(centre).items():
        monkeypatch.setitem(sys.modules, name, fake)
    monkeypatch.setitem(sys.modules, "desktop_notifier.backends", types.ModuleType("desktop_notifier.backends"))
    yield centre
