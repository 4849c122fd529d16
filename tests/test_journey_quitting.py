"""Journeys: every way out ends the app within seconds and lets go of the home lock and the
embedded hub's port — closing the window, Ctrl+Q, Hub → Quit, SIGINT and SIGTERM — and the
Hub menu's dialogs never nest an event loop inside the window's tasks."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox
from support.cli_runner import command, environment
from support.desktop_fixtures import click_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.os_needs import posix_signals
from support.ports import free_port

from parler_desktop.instance_lock import lock_home
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(60)
QUIT_DEADLINE = 10.0


def listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def home_on_port(tmp_path: Path) -> tuple[Home, int]:
    """A home whose embedded hub will listen on a free port (not the shared 7070)."""
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    port = free_port()
    home.embedded_hub_dir.mkdir(parents=True, exist_ok=True)
    (home.embedded_hub_dir / "port").write_text(f"{port}\n")
    return home, port


@posix_signals
@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_app_and_frees_the_lock_and_the_port(tmp_path: Path, stop_signal: int):
    home, port = home_on_port(tmp_path)
    app = subprocess.Popen(
        command(home.config_dir.parent, "gui"), env=environment(QT_QPA_PLATFORM="offscreen"),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not listening(port):
            assert app.poll() is None, app.stderr.read().decode()
            assert time.monotonic() < deadline, "the embedded hub never listened"
            time.sleep(0.05)  # polling a subprocess: there is no signal to wait on
        app.send_signal(stop_signal)
        assert app.wait(timeout=QUIT_DEADLINE) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    assert not listening(port)
    with lock_home(home):  # the next launch may start
        pass


@pytest.fixture
def running_app(qtbot, qloop, tmp_path: Path):
    """The app with its embedded hub, running as it does under ``parler-desktop`` (``run()``)."""
    home, port = home_on_port(tmp_path)
    app = DesktopApp(home)
    task = qloop.create_task(app.run())
    qtbot.waitUntil(lambda: app.bridge.is_live, timeout=20_000)
    assert listening(port)
    yield app, task, port
    if not task.done():
        app.window.close()
        qtbot.waitUntil(task.done, timeout=10_000)


def ends(qtbot, task, port: int) -> None:
    qtbot.waitUntil(task.done, timeout=int(QUIT_DEADLINE * 1000))
    assert task.exception() is None and not listening(port)


def test_closing_the_window_ends_the_app(qtbot, running_app):
    app, task, port = running_app
    app.window.close()
    ends(qtbot, task, port)


def test_ctrl_q_ends_the_app(qtbot, running_app):
    app, task, port = running_app
    keys = [key.toString() for key in app.window.quit_action.shortcuts()]
    assert "Ctrl+Q" in keys and len(set(keys)) == len(keys)  # one key bound twice is ambiguous: it would do nothing
    QTest.keyClick(app.window.composer.edit, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    ends(qtbot, task, port)


def test_hub_quit_ends_the_app_even_with_a_dialog_open(qtbot, running_app):
    app, task, port = running_app
    dialog = app.window.room_actions.join_with_code()  # Hub → Join with a code… left open
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    app.window.quit_action.trigger()  # Hub → Quit
    ends(qtbot, task, port)
    dialog.close()


def visible(window, kind: type, name: str):
    """The shown dialog of that kind and name that belongs to ``window``."""
    return next(
        (w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.objectName() == name and w.isVisible() and w.parentWidget() is window),
        None,
    )


PASTED_INVITES = {  # what a person pastes: the code, the line the reference `parler` prints, the link
    "code": lambda invited, hub: invited["code"],
    "parler conversation line": lambda invited, hub: f"parler conversation {invited['code']}@{hub.url}",
    "link with a query": lambda invited, hub: f"{invited['url']}/?source=desktop#share",
}


@pytest.mark.parametrize("pasted", PASTED_INVITES.values(), ids=PASTED_INVITES.keys())
def test_join_with_a_code_opens_the_room_at_once_without_a_nested_loop(qtbot, qloop, desktop, peer, hub, pasted):
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
    window = desktop.window
    join = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text().replace("&", "") == "Join with a code…")
    join.trigger()
    qtbot.waitUntil(lambda: visible(window, QInputDialog, "joinDialog") is not None, timeout=5000)
    dialog = visible(window, QInputDialog, "joinDialog")
    qtbot.keyClicks(dialog.focusWidget(), pasted(invited, hub))
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == "team", timeout=10_000)  # listed and opened
    qtbot.waitUntil(lambda: visible(window, QMessageBox, "roomActionMessage") is not None, timeout=5000)
    box = visible(window, QMessageBox, "roomActionMessage")
    assert box.text() == "You are now a member of team." and window.composer.isEnabled()
    assert window.room_panel.current_room() == "team" and window.invite_action.isEnabled()
    box.accept()


def test_a_refused_code_is_an_error_sentence(qtbot, qloop, desktop):
    window = desktop.window
    dialog = window.room_actions.join_with_code()
    qtbot.keyClicks(dialog.focusWidget(), "NOPE1234")
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: visible(window, QMessageBox, "roomActionMessage") is not None, timeout=10_000)
    box = visible(window, QMessageBox, "roomActionMessage")
    assert box.icon() == QMessageBox.Icon.Critical
    assert box.text()[0].isupper() and box.text().endswith(".")
    box.accept()


def test_new_room_says_how_the_name_is_stored_and_opens_it(qtbot, qloop, desktop):
    window = desktop.window
    assert not window.invite_action.isEnabled()  # no room open: nothing to invite to
    dialog = window.room_actions.new_room()
    qtbot.keyClicks(dialog.focusWidget(), "Release plan!")
    assert "“Release_plan_”" in dialog.labelText()
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == "Release_plan_", timeout=10_000)
    qtbot.waitUntil(lambda: "1 member" in window.room_title.text().split("  ·  "), timeout=5000)  # not "1 members"
    box = visible(window, QMessageBox, "inviteBox")
    assert box is not None and f"parler-desktop join --hub {desktop.bridge.hub_url} " in box.text()
    box.accept()
    click_room(qtbot, desktop, "Release_plan_")
