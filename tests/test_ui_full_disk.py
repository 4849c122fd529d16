"""The window on a real full disk (a small tmpfs as its home): what the human typed is never lost,
the window starts and says what is wrong, and "disk full" is said in those words."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton
from support.desktop_fixtures import activate, click_room, hub_cursor, join_room, open_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.client import lifecycle
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def desktop_home(small_disk):
    return small_disk.path / "home"


def test_a_message_typed_on_a_full_disk_stays_in_the_composer_until_it_is_saved(qtbot, qloop, small_disk, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    composer = desktop.window.composer
    problem = composer.findChild(QLabel, "composerProblem")
    small_disk.fill()
    qtbot.keyClicks(composer.edit, "deploy now")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(problem.isVisible, timeout=5000)
    assert problem.text() == "Not sent: the disk is full — free some space, then press Send again."
    assert composer.edit.toPlainText() == "deploy now"
    pulled = run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))
    assert pulled["messages"] == []

    small_disk.free()
    QTest.mouseClick(composer.findChild(QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0] == {"kind": "text", "text": "deploy now"}
    qtbot.waitUntil(lambda: composer.edit.toPlainText() == "" and not problem.isVisible(), timeout=5000)
    pulled = run_coroutine(qtbot, qloop, peer.ok({"op": "pull", "room": team, "since": 0}, "pulled"))
    assert [m["seq"] for m in pulled["messages"]] == [delivered["seq"]]


def offline_on_a_full_disk(qtbot, qloop, small_disk, desktop, peer) -> str:  # noqa: ANN001
    """The window in room "team" (returned), taken offline by a roster saved while the disk is
    full: a store write refused in a connection's task stops the session until "Retry now"."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    bar = desktop.window.connection_bar
    small_disk.fill()
    desktop.bridge.session.watch_roster([team])  # refreshed now: its save is refused
    qtbot.waitUntil(lambda: "full" in bar.text and bar.retry.isVisible(), timeout=10_000)
    return team


def test_a_post_once_space_is_freed_goes_out_though_the_full_disk_took_the_session_offline(qtbot, qloop, small_disk, desktop, peer, monkeypatch):
    """The human's next post, written once there is room again, is itself the retry (at once,
    not at the window's next look at the disk)."""
    monkeypatch.setattr(lifecycle, "DISK_ROOM_CHECK_SECS", 600)  # the session does not look for room on its own
    offline_on_a_full_disk(qtbot, qloop, small_disk, desktop, peer)
    bar, composer = desktop.window.connection_bar, desktop.window.composer
    small_disk.free()
    qtbot.keyClicks(composer.edit, "deploy now")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0] == {"kind": "text", "text": "deploy now"}
    qtbot.waitUntil(lambda: not bar.retry.isVisible(), timeout=5000)


def test_a_session_the_full_disk_took_offline_comes_back_by_itself_once_there_is_room(qtbot, qloop, small_disk, desktop, peer, monkeypatch):
    """Nobody has to find "Retry now": once space is freed the session connects again, and what
    the agents said meanwhile arrives."""
    monkeypatch.setattr(lifecycle, "DISK_ROOM_CHECK_SECS", 0.2)  # looked for often, so the test is quick
    team = offline_on_a_full_disk(qtbot, qloop, small_disk, desktop, peer)
    bar, model = desktop.window.connection_bar, desktop.window.timeline_model
    post_as(qtbot, qloop, peer, team, "while you were out")
    small_disk.free()
    qtbot.waitUntil(lambda: not bar.retry.isVisible() and desktop.bridge.is_live, timeout=10_000)
    qtbot.waitUntil(lambda: any(model.entry(row).text == "while you were out" for row in range(model.rowCount())), timeout=10_000)


def test_a_message_shown_before_the_disk_refused_it_stays_unread_until_it_is_stored(qtbot, qloop, small_disk, hub, desktop, peer):
    """A push is on screen before its write; the disk refuses the write: the row stays (the human
    has seen it), the hub cursor does not pass it, the window says the disk is full. Once there is
    room, "Retry now" stores it (once) and then it is read."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, model, bar = desktop.window, desktop.window.timeline_model, desktop.window.connection_bar
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    first = post_as(qtbot, qloop, peer, team, "before the disk filled")["seq"]
    qtbot.waitUntil(lambda: window.rooms.summary(team).cursor == first, timeout=10_000)  # read, and saved so
    small_disk.fill()
    refused = post_as(qtbot, qloop, peer, team, "arrives on a full disk")["seq"]
    qtbot.waitUntil(lambda: "full" in bar.text and bar.retry.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: window.timeline.seen_seq == refused, timeout=5000)  # on screen all the same
    assert window.isActiveWindow() and not [box for box in window.findChildren(QMessageBox) if box.isVisible()]
    tracker = window.read_tracker  # the row is read…
    qtbot.waitUntil(lambda: tracker.window_active and not tracker.may_read(), timeout=5000)
    # …but not acked: the refusal took the connection down (that an ack waits for the store is
    # test_client_session's test_an_ack_never_passes_the_sync_mark).
    assert hub_cursor(qtbot, qloop, desktop, hub.url, team) == first

    small_disk.free()
    QTest.mouseClick(bar.retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.rooms.summary(team).cursor == refused, timeout=15_000)  # stored, then read
    assert hub_cursor(qtbot, qloop, desktop, hub.url, team) == refused
    assert [model.entry(row).text for row in range(model.rowCount())] == ["before the disk filled", "arrives on a full disk"]


def test_the_window_starts_on_a_full_disk_shows_the_cache_and_reopens_when_there_is_room(
    qtbot, qloop, small_disk, hub, peer, caplog
):
    home = Home.resolve(small_disk.path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))  # the embedded hub: --hub differs
    earlier = DesktopApp(home, hub.url)
    assert run_coroutine(qtbot, qloop, earlier.connect(hub.url))
    qtbot.waitUntil(lambda: earlier.bridge.is_live, timeout=15_000)
    team = join_room(qtbot, qloop, earlier, peer, "team")
    open_room(qtbot, earlier, team)
    post_as(qtbot, qloop, peer, team, "cached before the disk filled")
    qtbot.waitUntil(lambda: earlier.window.timeline_model.rowCount() == 1, timeout=10_000)
    run_coroutine(qtbot, qloop, earlier.shutdown())
    earlier.window.close()
    small_disk.fill()

    app = DesktopApp(home, hub.url)
    running = qloop.create_task(app.run())
    window, bar = app.window, app.window.connection_bar
    qtbot.waitUntil(lambda: bar.text.startswith("Read-only: The disk holding"), timeout=10_000)
    assert "is full" in bar.text and bar.retry.isVisible()
    assert "Could not save the settings (the disk is full — free some space)" in caplog.text  # said, then replaced
    qtbot.waitUntil(lambda: team in window.rooms.room_names(), timeout=5000)  # the cache is there to read
    open_room(qtbot, app, team)
    assert window.timeline_model.entry(0).text == "cached before the disk filled"
    composer, problem = window.composer, window.composer.findChild(QLabel, "composerProblem")
    qtbot.keyClicks(composer.edit, "written on a full disk")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(problem.isVisible, timeout=5000)
    assert "the disk is full" in problem.text() and composer.edit.toPlainText() == "written on a full disk"

    first = app.bridge.session
    QTest.mouseClick(bar.retry, Qt.MouseButton.LeftButton)  # "Retry now" while the disk is still full
    qtbot.waitUntil(lambda: app.bridge.session is not first and bar.text.startswith("Read-only"), timeout=10_000)
    small_disk.free()  # the window reopens the cache writable by itself
    model = window.timeline_model
    qtbot.waitUntil(lambda: app.bridge.is_live and model.room == team and not model.loading, timeout=15_000)
    assert composer.isEnabled() and composer.edit.toPlainText() == "written on a full disk"
    QTest.mouseClick(composer.findChild(QPushButton, "sendButton"), Qt.MouseButton.LeftButton)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0] == {"kind": "text", "text": "written on a full disk"}
    window.close()
    qtbot.waitUntil(running.done, timeout=10_000)
    running.result()


def test_the_window_with_its_local_hub_starts_on_a_full_disk_and_says_so(qtbot, qloop, small_disk):
    home = Home.resolve(small_disk.path / "home")
    home.ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))  # no hub: the embedded one
    earlier = DesktopApp(home)
    assert run_coroutine(qtbot, qloop, earlier.connect(""))
    qtbot.waitUntil(lambda: earlier.bridge.is_live, timeout=15_000)
    run_coroutine(qtbot, qloop, earlier.shutdown())
    earlier.window.close()
    small_disk.fill()

    app = DesktopApp(home)
    running = qloop.create_task(app.run())
    bar = app.window.connection_bar
    qtbot.waitUntil(lambda: "Could not start the local hub" in bar.text, timeout=10_000)
    assert "the disk is full — free some space" in bar.text and bar.retry.isVisible()
    small_disk.free()
    QTest.mouseClick(bar.retry, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.bridge.is_live, timeout=15_000)
    app.window.close()
    qtbot.waitUntil(running.done, timeout=10_000)
    running.result()
