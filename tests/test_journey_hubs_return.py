"""Coming back to a window that holds several hubs: it reopens on the hub and room the human left
open, with the hubs they folded still folded and the hubs in the settings' order; and a human who
went to a hub with no rooms yet stays on it while the other hubs' rooms fill up."""

from __future__ import annotations

import asyncio
import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QInputDialog, QLineEdit
from support.desktop_fixtures import click_action, click_row, row_menu
from support.peer_ops import invite_code, say
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_hubs import quit_app, rows, run_app, three_hubs  # noqa: F401 - fixture

from parler_desktop.app import roles
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, save_settings
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog
from parler_desktop.ui.window_place import window_state_path

pytestmark = pytest.mark.timeout(120)


def quit_with_ctrl_q(qtbot, qloop, app: DesktopApp) -> None:
    """Ctrl+Q, then wait until ``DesktopApp.run`` (the fixture's task) has shut everything down."""
    running = next(task for task in asyncio.all_tasks(qloop) if task.get_coro().__qualname__ == "DesktopApp.run")
    app.window.activateWindow()
    QTest.keyClick(app.window.composer.edit, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(running.done, timeout=20_000)


def test_the_window_reopens_on_the_hub_and_room_left_open_with_folds_kept(qtbot, qloop, three_hubs):
    app, shared, killable, peers = three_hubs
    window = app.window
    run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "the last hub's news"))
    click_row(app, "team", killable.url)  # the third hub's room, not the first hub's newest
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url) and window.timeline_model.rowCount() == 1, timeout=10_000)
    click_row(app, None, shared.url)  # fold the second hub
    qtbot.waitUntil(lambda: (shared.url, "team", 0) not in rows(window), timeout=5000)
    quit_with_ctrl_q(qtbot, qloop, app)
    saved = json.loads(window_state_path(app.home).read_text(encoding="utf-8"))
    assert {key: saved[key] for key in ("hub", "room", "folded")} == {"hub": killable.url, "room": "team", "folded": [shared.url]}
    assert saved["size"] == [window.width(), window.height()] and len(saved["panels"]) == 3  # and how it was laid out

    again = DesktopApp(app.home)
    relaunched = qloop.create_task(again.run())
    try:
        qtbot.waitUntil(lambda: again.window.timeline_model.room == "team" and again.window.timeline_model.rowCount() == 1, timeout=30_000)
        shown = again.window
        assert shown.shown_hub is again.hubs.entry(killable.url)
        assert shown.timeline_model.entry(0).text == "the last hub's news"
        assert shown.room_panel.model.heading_index(shared.url).data(roles.HUB_COLLAPSED)
        qtbot.waitUntil(lambda: ("", "notes") in [(hub, room) for hub, room, _n in rows(shown)], timeout=20_000)
        assert [(hub, room) for hub, room, _n in rows(shown)] == [("", None), ("", "notes"), (shared.url, None), (killable.url, None), (killable.url, "team")]
        # the sidebar's order is the settings', not the shown hub's first; the folded hub hides "team"
        current = shown.room_panel.view.currentIndex()
        assert (current.data(roles.HUB_URL), current.data(roles.ROOM_NAME)) == (killable.url, "team")
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)


def test_the_open_room_stays_current_in_the_sidebar_when_another_hub_is_removed(qtbot, qloop, three_hubs):
    """Removing (or attaching) one hub rebuilds the sidebar's rows of every hub: the room open in
    the timeline stays the sidebar's current row, so Up and Down go on from it."""
    app, shared, killable, _peers = three_hubs
    window = app.window
    click_row(app, "team", killable.url)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(killable.url) and window.timeline_model.room == "team", timeout=10_000)
    box = app.hub_choices.remove(app.hubs.entry(shared.url))
    QTest.mouseClick(next(button for button in box.buttons() if button.text() == "Remove"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.hubs.entry(shared.url) is None, timeout=10_000)
    qtbot.waitUntil(lambda: (killable.url, "team") in [(hub, room) for hub, room, _n in rows(window)], timeout=10_000)
    current = window.room_panel.view.currentIndex()
    assert (current.data(roles.HUB_URL), current.data(roles.ROOM_NAME)) == (killable.url, "team")
    assert window.shown_hub is app.hubs.entry(killable.url) and window.timeline_model.room == "team"


def test_a_room_gone_from_its_hub_gives_way_to_that_hubs_newest_room(qtbot, qloop, three_hubs):
    """The room left open is no longer on the hub (its cache and the hub both lack it): the
    window opens the same hub's newest room, not another hub's."""
    app, shared, _killable, peers = three_hubs
    click_row(app, "team", shared.url)
    qtbot.waitUntil(lambda: app.window.shown_hub is app.hubs.entry(shared.url), timeout=10_000)
    quit_with_ctrl_q(qtbot, qloop, app)
    state = window_state_path(app.home)
    state.write_text(json.dumps({"hub": shared.url, "room": "left-long-ago", "folded": []}), encoding="utf-8")
    run_coroutine(qtbot, qloop, say(peers[shared.url], "team", "still here"))

    again = DesktopApp(app.home)
    relaunched = qloop.create_task(again.run())
    try:
        model = again.window.timeline_model
        qtbot.waitUntil(lambda: model.room == "team" and model.rowCount() > 0, timeout=30_000)
        assert again.window.shown_hub is again.hubs.entry(shared.url)
        qtbot.waitUntil(lambda: model.entry(model.rowCount() - 1).text == "still here", timeout=10_000)
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)


def test_a_damaged_window_state_file_opens_the_first_hub_as_a_first_launch_does(qtbot, qloop, three_hubs):
    app, _shared, _killable, _peers = three_hubs
    quit_with_ctrl_q(qtbot, qloop, app)
    window_state_path(app.home).write_bytes(b"\x00{not json")
    again = DesktopApp(app.home)
    relaunched = qloop.create_task(again.run())
    try:
        qtbot.waitUntil(lambda: again.window.timeline_model.room == "notes", timeout=30_000)
        assert again.window.shown_hub is again.hubs.entry("")
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)


def test_a_human_who_goes_to_an_empty_hub_stays_there_while_other_hubs_fill(qtbot, qloop, three_hubs, hub_factory):
    """Hub → Add a hub… for a hub with no rooms of the human's yet, then messages on the other
    hubs: the window stays on the new, empty hub (its heading, no room open) until the human
    moves; its first room, once joined, opens there."""
    app, shared, killable, peers = three_hubs
    window = app.window
    empty = hub_factory()
    hub_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Hub")
    next(a for a in hub_menu.actions() if a.text().replace("&", "") == "Add a hub…").trigger()
    dialog = next(d for d in window.findChildren(ConnectDialog) if d.isVisible())
    dialog.url.clear()
    qtbot.keyClicks(dialog.url, empty.url)
    QTest.keyClick(dialog.url, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: app.hubs.entry(empty.url) is not None and app.hubs.entry(empty.url).bridge.is_live, timeout=20_000)
    added = app.hubs.entry(empty.url)
    qtbot.waitUntil(lambda: window.shown_hub is added, timeout=10_000)
    for text in ("one", "two"):
        run_coroutine(qtbot, qloop, say(peers[shared.url], "team", text))
        run_coroutine(qtbot, qloop, say(peers[killable.url], "team", text))
    qtbot.waitUntil(lambda: (shared.url, "team", 2) in rows(window) and (killable.url, "team", 2) in rows(window), timeout=10_000)
    assert window.shown_hub is added and window.timeline_model.room is None
    run_coroutine(qtbot, qloop, added.bridge.invite("channel", "fresh"))
    qtbot.waitUntil(lambda: window.shown_hub is added and window.timeline_model.room == "fresh", timeout=10_000)


def test_a_window_opening_on_a_hub_with_no_rooms_opens_the_room_another_hub_lists(qtbot, qloop, tmp_path, hub_factory):
    """A first launch on the embedded hub, which has no rooms, beside a hub that has one: the
    window opens that room rather than "No rooms yet" (nobody chose the empty hub)."""
    other = hub_factory()
    peer = run_coroutine(qtbot, qloop, RawAgent.connect(other.url, name="alice"))
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=("", other.url)))
    app, running = run_app(qtbot, qloop, home)
    try:
        window = app.window
        qtbot.waitUntil(lambda: len(app.hubs.entries) == 2 and all(e.bridge.is_live for e in app.hubs.entries), timeout=30_000)
        assert window.shown_hub is app.hubs.entry("") and "No rooms on This computer yet." in window.timeline.placeholder
        code = run_coroutine(qtbot, qloop, invite_code(peer, "team"))
        run_coroutine(qtbot, qloop, app.hubs.entry(other.url).bridge.session.redeem(code))
        qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(other.url) and window.timeline_model.room == "team", timeout=10_000)
    finally:
        quit_app(qtbot, app, running)
        run_coroutine(qtbot, qloop, peer.close())


def test_the_switcher_finds_rooms_on_every_hub_under_their_headings_folded_or_not(qtbot, qloop, three_hubs):
    """Ctrl+K, "team": each hub holding a "team" is named by its heading above it (the one
    folded too), a hub without one shows no heading; Enter opens the first and unfolds its hub."""
    app, shared, killable, _peers = three_hubs
    window = app.window
    click_row(app, None, shared.url)  # fold the second hub
    qtbot.waitUntil(lambda: (shared.url, "team", 0) not in rows(window), timeout=5000)
    window.activateWindow()
    QTest.keyClick(window.timeline, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.room_panel.filter, "team")
    assert [(hub, room) for hub, room, _n in rows(window)] == [(shared.url, None), (shared.url, "team"), (killable.url, None), (killable.url, "team")]
    QTest.keyClick(window.room_panel.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.shown_hub is app.hubs.entry(shared.url) and window.timeline_model.room == "team", timeout=10_000)
    assert window.room_panel.filter.text() == "" and (shared.url, "team") in [(hub, room) for hub, room, _n in rows(window)]
    current = window.room_panel.view.currentIndex()
    assert (current.data(roles.HUB_URL), current.data(roles.ROOM_NAME)) == (shared.url, "team")


def test_a_hub_renamed_from_its_heading_is_called_so_everywhere_and_after_a_restart(qtbot, qloop, three_hubs):
    """Right-click the third hub's heading, Rename…, type "Team", Enter: its heading and the open
    room's title say "Team"; the name is kept in the settings and shown again
    after a relaunch; renaming it to nothing gives it back its address."""
    from parler_desktop.settings import load_settings

    app, _shared, killable, _peers = three_hubs
    window = app.window
    entry = app.hubs.entry(killable.url)
    address = entry.label
    click_row(app, "team", killable.url)
    qtbot.waitUntil(lambda: window.shown_hub is entry, timeout=10_000)
    click_action(qtbot, row_menu(qtbot, app, None, killable.url), "Rename…")
    dialog = next(d for d in window.findChildren(QInputDialog, "renameHubDialog") if d.isVisible())
    qtbot.keyClicks(dialog.findChild(QLineEdit), "Team")
    QTest.keyClick(dialog.findChild(QLineEdit), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.room_panel.model.heading_index(killable.url).data() == "Team", timeout=5000)
    assert window.room_title.text().endswith("  ·  Team")
    assert load_settings(app.home.settings_file).settings.hub_names == {killable.url: "Team"}

    running = next(task for task in asyncio.all_tasks(qloop) if task.get_coro().__qualname__ == "DesktopApp.run")
    window.quit_action.trigger()  # Hub → Quit
    qtbot.waitUntil(running.done, timeout=20_000)
    again = DesktopApp(app.home)
    relaunched = qloop.create_task(again.run())
    try:
        qtbot.waitUntil(lambda: again.hubs.entry(killable.url) is not None and again.hubs.entry(killable.url).label == "Team", timeout=30_000)
        assert again.window.room_panel.model.heading_index(killable.url).data() == "Team"
        run_coroutine(qtbot, qloop, again.hub_rename.rename(again.hubs.entry(killable.url), "  "))
        assert again.hubs.entry(killable.url).label == address
        assert load_settings(app.home.settings_file).settings.hub_names == {}
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)


def test_quitting_while_hubs_are_still_connecting_leaves_no_session_behind(qtbot, qloop, tmp_path, hub_factory):
    """Ctrl+Q a moment after launch, while the other hubs' sessions are still being opened: every
    hub's session is stopped and none attaches afterwards (a connect finishing after the drop
    kept a session, and its room list's timer, alive after the app had shut down)."""
    urls = [hub_factory().url for _ in range(8)]
    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss", hubs=tuple(urls)))
    app, running = run_app(qtbot, qloop, home)
    qtbot.waitUntil(app.window.isVisible, timeout=10_000)
    app.window.quit_action.trigger()  # Hub → Quit, as the window opens: the hubs connect as it shuts down
    qtbot.waitUntil(running.done, timeout=20_000)
    for _ in range(20):  # the loop runs on: a connect left running would attach now
        run_coroutine(qtbot, qloop, asyncio.sleep(0.02))
    assert [entry.bridge.session for entry in app.hubs.entries] == [None] * 8
