"""The whole window against a real hub (a plugin listed in tests/conftest.py).

- ``desktop_home`` → the folder the window's home lives in (override it, e.g. on a small disk).
- ``desktop`` → a ``DesktopApp`` connected to ``hub`` and live, shut down at teardown.
- ``peer`` → a subscribed raw agent "alice" (a planner) on ``hub``.
- ``join_room``, ``open_room``, ``post_as``: what a test does with them.
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


@pytest.fixture
def desktop(qtbot, qloop, desktop_home: Path, hub) -> Any:
    from parler_desktop.paths import Home
    from parler_desktop.settings import Settings, save_settings
    from parler_desktop.ui.desktop import DesktopApp

    home = Home.resolve(desktop_home)
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    app = DesktopApp(home, hub.url)
    app.window.show()
    assert run_coroutine(qtbot, qloop, app.connect(hub.url))
    qtbot.waitUntil(lambda: app.bridge.is_live, timeout=15_000)
    yield app
    run_coroutine(qtbot, qloop, app.shutdown())
    app.window.close()
    app.window.deleteLater()


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
