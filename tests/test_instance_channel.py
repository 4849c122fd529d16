"""A later launch on the same home hands over to the running window: an invite link is asked
about (naming the host) and joined after Join; no link raises the window; no display needed.

The later launch is the real command in a subprocess, with no display in its environment.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from support.desktop_fixtures import join_room, open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.cli.gui_command import EXIT_ALREADY_RUNNING
from parler_desktop.instance_lock import lock_home

pytestmark = pytest.mark.timeout(60)


def later_launch(home, *args: str) -> subprocess.Popen[str]:
    """``parler-desktop --home HOME ARGS`` as a desktop would start it, with no display at all."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM") and not k.startswith("PARLER_")}
    return subprocess.Popen(
        [sys.executable, "-m", "parler_desktop", "--home", str(home), *args],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finished(qtbot, process: subprocess.Popen[str]) -> tuple[int, str]:
    qtbot.waitUntil(lambda: process.poll() is not None, timeout=20_000)
    return process.returncode, process.stderr.read()


def question(qtbot) -> QMessageBox:
    def shown() -> QMessageBox | None:
        return next((w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible() and w.windowTitle() == "Join with an invite link"), None)

    qtbot.waitUntil(lambda: shown() is not None, timeout=10_000)
    return shown()


def home_of(desktop):  # noqa: F811
    return desktop.home.config_dir.parent


def test_a_link_opened_later_asks_naming_the_host_then_joins(qtbot, qloop, desktop, hub):  # noqa: F811
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)  # the human is reading another room
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "ops"}, "invited"))
    assert invited["url"].startswith("parler://")
    assert desktop.links.instances.listen()
    with lock_home(desktop.home):  # as the first window holds it
        code, err = finished(qtbot, later_launch(home_of(desktop), invited["url"]))
        assert code == 0, err
        box = question(qtbot)
        assert f"Join a room on 127.0.0.1:{hub.port} as boss?" in box.text()
        assert box.windowModality() == Qt.WindowModality.NonModal  # the window stays usable meanwhile
        assert "ops" not in desktop.window.rooms.room_names()  # nothing joined before the answer
        join = next(b for b in box.buttons() if b.text() == "Join")
        qtbot.mouseClick(join, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "ops" in desktop.window.rooms.room_names(), timeout=10_000)
        qtbot.waitUntil(lambda: desktop.window.timeline_model.room == "ops", timeout=5000)  # and it opens
        qtbot.waitUntil(lambda: desktop.window.findChild(QMessageBox, "roomActionMessage") is not None, timeout=5000)
        desktop.window.findChild(QMessageBox, "roomActionMessage").accept()  # "You are now a member of ops."
    roster = run_coroutine(qtbot, qloop, peer.ok({"op": "roster", "room": "ops"}, "roster"))
    assert "boss" in {entry["name"] for entry in roster["entries"]}
    run_coroutine(qtbot, qloop, peer.close())


def test_a_link_to_another_hub_says_so_and_cancel_joins_nothing(qtbot, qloop, desktop, hub):  # noqa: F811
    assert desktop.links.instances.listen()
    with lock_home(desktop.home):
        code, err = finished(qtbot, later_launch(home_of(desktop), "parler://evil.example:7070/join/K7QW2MZP"))
        assert code == 0, err
        box = question(qtbot)
        assert "Join a room on evil.example:7070 as boss?" in box.text()
        assert "does not hold evil.example:7070 yet: joining adds it beside its other hubs" in box.text()
        box.button(QMessageBox.StandardButton.Cancel).click()
        qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)
    assert desktop.bridge.hub_url == hub.url and not any(t.get_name().endswith(":join") for t in desktop.bridge.tasks.tasks)


def test_a_later_launch_without_a_link_raises_the_window_and_exits(qtbot, desktop):  # noqa: F811
    assert desktop.links.instances.listen()
    desktop.window.showMinimized()
    qtbot.waitUntil(desktop.window.isMinimized, timeout=5000)
    with lock_home(desktop.home):
        code, err = finished(qtbot, later_launch(home_of(desktop)))
        assert (code, err) == (0, "")
        qtbot.waitUntil(lambda: not desktop.window.isMinimized(), timeout=5000)
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def test_a_later_demo_launch_starts_the_demo_in_the_running_window(qtbot, desktop):  # noqa: F811
    from parler_desktop.demo.script import PLANNING

    assert desktop.links.instances.listen()
    with lock_home(desktop.home):
        launch = later_launch(home_of(desktop), "demo")
        code, err = finished(qtbot, launch)
        assert code == 0, err
        said = launch.stdout.read()  # issue 46: it printed nothing, as if nothing had been done
        assert said.startswith("parler-desktop: the window already open for this home starts the demo") and PLANNING in said
        qtbot.waitUntil(lambda: PLANNING in desktop.window.rooms.room_names(), timeout=15_000)


def test_with_no_window_to_reach_and_no_display_it_says_so_and_exits_at_once(qtbot, tmp_path):
    from parler_desktop.paths import Home

    home = Home.resolve(tmp_path / "home").ensure()
    with lock_home(home):  # a window that cannot be reached (it has no channel)
        code, err = finished(qtbot, later_launch(tmp_path / "home", "parler://127.0.0.1:9/join/ABC"))
    assert code == EXIT_ALREADY_RUNNING and "already running for this home" in err  # not Qt's abort


@pytest.fixture
def links_as_events(monkeypatch):  # noqa: ANN001, ANN201
    """The window is built as on macOS, where the OS hands clicked links over as events."""
    from parler_desktop.ui.dialogs import invite_prompt

    monkeypatch.setattr(invite_prompt, "LINKS_COME_AS_EVENTS", True)


def test_a_link_the_os_opens_in_the_running_app_is_asked_about_too(qtbot, links_as_events, desktop, hub):  # noqa: F811
    """macOS delivers clicked links as an "open URL" event to the running app."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QFileOpenEvent

    QApplication.sendEvent(QApplication.instance(), QFileOpenEvent(QUrl(f"parler://127.0.0.1:{hub.port}/join/K7QW2MZP")))
    box = question(qtbot)
    assert f"Join a room on 127.0.0.1:{hub.port} as boss?" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()


def test_a_first_launch_with_a_link_asks_once_connected_then_joins(qtbot, qloop, tmp_path, hub):
    """``parler-desktop parler://…`` with no window running: the window opens, connects, asks."""
    from parler_desktop.paths import Home
    from parler_desktop.settings import Settings, save_settings
    from parler_desktop.ui.desktop import DesktopApp

    peer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="alice", role="planner"))
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "first"}, "invited"))
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=(hub.url,)))
    app = DesktopApp(home, None, None, invited["url"])
    running = qloop.create_task(app.run())
    try:
        box = question(qtbot)
        assert f"on 127.0.0.1:{hub.port} as boss?" in box.text() and "switches" not in box.text()
        qtbot.mouseClick(next(b for b in box.buttons() if b.text() == "Join"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "first" in app.window.rooms.room_names(), timeout=10_000)
    finally:
        app.window.close()
        qtbot.waitUntil(running.done, timeout=10_000)
        run_coroutine(qtbot, qloop, peer.close())
