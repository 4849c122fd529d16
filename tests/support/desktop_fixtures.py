"""The whole window against a real hub (a plugin listed in tests/conftest.py).

- ``desktop_home`` → the folder the window's home lives in (override it, e.g. on a small disk).
- ``desktop`` → a ``DesktopApp`` connected to ``hub`` and live, shut down at teardown; in the
  journeys (test_journey_*.py) once alone and once as the second of two hubs (``hub_layout``).
- ``peer`` → a subscribed raw agent "alice" (a planner) on ``hub``.
- ``join_room``, ``open_room``, ``post_as``: what a test does with them; ``click_room`` and
  ``activate`` do it as a person does (a click on the row, the window focused); ``room_row``,
  ``click_row``, ``row_menu`` and ``click_action`` for any row (of a hub, a heading) and its menu; ``unread``;
  ``hub_cursor`` (the window's cursor as the hub has it, asked on a second line);
  ``start_desktop`` / ``stop_desktop`` for a test that restarts the app on one home.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.qt_loop import run_coroutine
from support.raw_agent import RawAgent


@pytest.fixture
def desktop_home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def start_desktop(qtbot, qloop, home_dir: Path, hub_url: str, name: str = "boss", beside: str | None = None, live: bool = True) -> Any:
    """A DesktopApp for a fresh (or existing) home, its window shown, connected and live
    (``live`` False: connecting, not waited for; not with ``beside``).

    ``beside``: the window holds that hub first, with a room "elsewhere" in it, and ``hub_url``
    second; the human goes to the second with Ctrl+Alt+2, so the test runs on a hub that is not
    the first, with both headings in the sidebar."""
    from PySide6.QtCore import Qt

    from parler_desktop.paths import Home
    from parler_desktop.settings import Settings, save_settings
    from parler_desktop.ui.desktop import DesktopApp

    home = Home.resolve(home_dir)
    home.ensure()
    save_settings(home.settings_file, Settings(display_name=name, hubs=(hub_url,) if beside is None else (beside, hub_url)))
    app = DesktopApp(home, hub_url if beside is None else beside)
    app.window.show()
    assert run_coroutine(qtbot, qloop, app.connect(hub_url if beside is None else beside))
    if not live:
        return app
    qtbot.waitUntil(lambda: app.bridge.is_live, timeout=15_000)
    if beside is not None:
        run_coroutine(qtbot, qloop, app.bridge.invite("channel", "elsewhere"))
        qtbot.waitUntil(lambda: app.window.timeline_model.room == "elsewhere", timeout=10_000)
        entry = app.hubs.add(hub_url)
        assert run_coroutine(qtbot, qloop, app.connectors[entry].connect())
        qtbot.waitUntil(lambda: entry.bridge.is_live, timeout=15_000)
        qtbot.keyClick(app.window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
        qtbot.waitUntil(lambda: app.window.shown_hub is entry and app.bridge.is_live, timeout=10_000)
    return app


def stop_desktop(qtbot, qloop, app: Any) -> None:
    run_coroutine(qtbot, qloop, app.shutdown())
    app.window.close()
    app.window.deleteLater()


HUB_LAYOUTS = ("one hub", "second of two hubs")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The journeys (tests/test_journey_*.py) run in a window holding only their hub, and again
    with their hub second, below another hub's heading and room (issue 34: every journey on
    each hub)."""
    if "desktop" in metafunc.fixturenames and metafunc.module.__name__.startswith("test_journey_"):
        metafunc.parametrize("hub_layout", HUB_LAYOUTS, indirect=True)


@pytest.fixture
def hub_layout(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", HUB_LAYOUTS[0])


@pytest.fixture
def desktop(qtbot, qloop, desktop_home: Path, hub, hub_layout: str, hub_factory) -> Any:
    beside = hub_factory().url if hub_layout == "second of two hubs" else None
    app = start_desktop(qtbot, qloop, desktop_home, hub.url, beside=beside)
    yield app
    stop_desktop(qtbot, qloop, app)


@pytest.fixture
def peer(qtbot, qloop, hub) -> Any:
    agent = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    run_coroutine(qtbot, qloop, agent.ok({"op": "subscribe"}, "subscribed"))
    yield agent
    run_coroutine(qtbot, qloop, agent.close())


def join_room(qtbot, qloop, desktop: Any, peer: RawAgent, room: str) -> str:
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": room}, "invited"))
    run_coroutine(qtbot, qloop, desktop.bridge.session.redeem(invited["code"]))
    qtbot.waitUntil(lambda: invited["room"] in desktop.window.rooms.room_names(), timeout=10_000)
    return invited["room"]


def post_as(qtbot, qloop, peer: RawAgent, room: str, text: str, **extra: Any) -> dict:
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": text}], **extra}
    return run_coroutine(qtbot, qloop, peer.ok(frame, "sent"))


def open_room(qtbot, desktop: Any, room: str) -> None:
    assert desktop.window.room_panel.select_room(room)
    qtbot.waitUntil(lambda: desktop.window.timeline_model.room == room and not desktop.window.timeline_model.loading, timeout=5000)


def hub_cursor(qtbot, qloop, desktop: Any, hub_url: str, room: str) -> int:
    """The window's read cursor of ``room`` on the hub, asked on a line of its own as the same
    identity (an ack-only pull of 0 moves nothing), so a busy local store does not hold it up."""

    async def ask() -> int:
        line = await RawAgent.connect(hub_url, identity=desktop.bridge.session.identity, name="boss")
        try:
            return (await line.ok({"op": "pull", "room": room, "limit": 0, "ack": 0}, "pulled"))["cursor"]
        finally:
            await line.close()

    return run_coroutine(qtbot, qloop, ask())


def listed_rooms(desktop: Any, hub: str | None = None) -> list[str]:
    """The rooms the sidebar lists now (the filter applied) of ``hub`` (default: the hub
    shown), top to bottom."""
    from parler_desktop.app import roles

    proxy, hub = desktop.window.room_panel.proxy, desktop.window.shown_hub.url if hub is None else hub
    rows = (proxy.index(row, 0) for row in range(proxy.rowCount()))
    return [i.data(roles.ROOM_NAME) for i in rows if not i.data(roles.HUB_HEADER) and i.data(roles.HUB_URL) == hub]


def unread(desktop: Any, room: str) -> int:
    summary = desktop.window.rooms.summary(room)
    return summary.unread if summary is not None else -1


def room_row(desktop: Any, room: str | None, hub: str | None = None) -> Any:
    """The room list's row (a proxy index) of ``room`` of ``hub`` (None: on any hub); with
    ``room`` None, ``hub``'s heading."""
    from parler_desktop.app import roles

    proxy = desktop.window.room_panel.proxy
    for row in range(proxy.rowCount()):
        index = proxy.index(row, 0)
        shown = None if index.data(roles.HUB_HEADER) else index.data(roles.ROOM_NAME)
        if shown == room and hub in (None, index.data(roles.HUB_URL)):
            return index
    raise AssertionError(f"the room list shows no row for {room!r} of {hub!r}")


def click_row(desktop: Any, room: str | None, hub: str | None = None) -> None:
    """Click the row of ``room`` (of ``hub``; a heading with ``room`` None), as a person does."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    view = desktop.window.room_panel.view
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(room_row(desktop, room, hub)).center())


def row_menu(qtbot, desktop: Any, room: str | None, hub: str | None = None) -> Any:
    """Right-click the row (as ``room_row`` finds it) and return its context menu, shown."""
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication

    view = desktop.window.room_panel.view
    point = view.visualRect(room_row(desktop, room, hub)).center()
    QApplication.sendEvent(view.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, view.viewport().mapToGlobal(point)))
    menu = desktop.attention.room_menu.menu
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    return menu


def click_action(qtbot, menu: Any, text: str) -> None:
    """Click the menu item labelled ``text`` (the menu is shown first if it is not open)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    if not menu.isVisible():
        menu.popup(QPoint(10, 10))
        qtbot.waitUntil(menu.isVisible, timeout=2000)
    action = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def click_room(qtbot, desktop: Any, room: str) -> None:
    """Click the room's row in the room list, as a person does, and wait until it is on screen."""
    window = desktop.window
    click_row(desktop, room)
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.room == room and not model.loading, timeout=5000)
    qtbot.waitUntil(lambda: model.rowCount() == 0 or window.timeline.seen_seq > 0, timeout=5000)


def activate(qtbot, desktop: Any) -> None:
    """Give the window the focus (the read tracker only reads in an active window)."""
    desktop.window.activateWindow()
    qtbot.waitUntil(desktop.window.isActiveWindow, timeout=5000)
    qtbot.waitUntil(lambda: desktop.window.read_tracker.window_active, timeout=5000)


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The human's home folder, with a Downloads folder in it (the working directory is elsewhere)."""
    home = tmp_path / "user"
    (home / "Downloads").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    return home
