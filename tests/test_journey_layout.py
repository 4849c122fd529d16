"""Journeys: how the window lays itself out for the human (issue 46): the members panel in a narrow
window, the search window giving way to the message it opened, the "New messages" line in
view, a room list that holds still under the pointer and sorts A–Z when asked, one-line
plain-text previews, and side panels that take width and keep it."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton
from support.desktop_fixtures import (
    activate,
    click_action,
    click_room,
    join_room,
    listed_rooms,
    open_room,
    post_as,
    room_row,
    row_menu,
    start_desktop,
    stop_desktop,
    unread,
)
from support.qt_loop import qloop  # noqa: F401 - fixture

from parler_desktop.app import roles
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.timeline.message_layout import DATE_HEIGHT, DIVIDER_HEIGHT
from parler_desktop.ui.window_place import window_state_path

pytestmark = pytest.mark.timeout(60)

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def view_action(window, text: str):
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    return next(a for a in view_menu.actions() if a.text().replace("&", "") == text)


def test_show_members_shows_them_in_a_narrow_window(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    window.resize(800, 600)
    members = window.roster_panel
    qtbot.waitUntil(lambda: not members.isVisible(), timeout=5000)  # narrow: the timeline comes first
    show = view_action(window, "Show members")
    assert not show.isChecked()  # the check mark says what is on screen
    QTest.keyClick(window, Qt.Key.Key_M, CTRL_SHIFT)
    qtbot.waitUntil(lambda: members.isVisible() and members.width() > 0, timeout=5000)
    assert show.isChecked() and members.width() >= 150 and window.timeline.width() >= 300
    assert members.geometry().right() <= window.width()
    show.trigger()  # View → Show members again hides them
    qtbot.waitUntil(lambda: not members.isVisible(), timeout=5000)
    assert not show.isChecked()
    show.trigger()
    qtbot.waitUntil(lambda: members.isVisible() and members.width() >= 150, timeout=5000)


def test_opening_a_search_result_puts_the_search_away_and_shows_the_message(qtbot, qloop, desktop, peer):
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    wanted = post_as(qtbot, qloop, peer, ops, "the billing deploy failed")
    for n in range(60):
        post_as(qtbot, qloop, peer, ops, f"noise {n}")
    window = desktop.window
    qtbot.waitUntil(lambda: (window.rooms.summary(ops) or 0) and window.rooms.summary(ops).unread == 61, timeout=10_000)
    QTest.keyClick(window, Qt.Key.Key_F, CTRL_SHIFT)
    dialog = desktop.search.dialog
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    qtbot.keyClicks(dialog.query, "billing")
    qtbot.waitUntil(lambda: dialog.results.model().rowCount() == 1, timeout=5000)
    QTest.keyClick(dialog.query, Qt.Key.Key_Return)
    timeline = window.timeline

    def message_on_screen() -> bool:
        entry = window.timeline_model.entry(timeline.currentIndex().row())
        if entry is None or entry.seq != wanted["seq"]:
            return False
        return timeline.viewport().rect().contains(timeline.visualRect(timeline.currentIndex()))

    qtbot.waitUntil(message_on_screen, timeout=10_000)
    assert not dialog.isVisible()  # nothing covers the message it opened
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_F, CTRL_SHIFT)  # it comes back as it was…
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    assert dialog.query.text() == "billing"
    QTest.keyClick(dialog.query, Qt.Key.Key_Escape)  # …and Esc closes it
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=2000)


def varied(n: int) -> str:
    """Messages of different heights: one line, a few paragraphs, a table, a code block."""
    return [
        f"short {n}",
        f"step {n}: done\n\nlog line one\n\nlog line two",
        f"| step | state |\n|---|---|\n| build {n} | green |\n| test | red |",
        f"```\nrun {n}\nline\nline\nline\n```",
    ][n % 4]


@pytest.mark.parametrize(
    ("read", "unread_count", "height"),
    [(0, 6, 420), (30, 12, 560), (40, 70, 800), (10, 1, 900)],
)
def test_a_room_opens_with_the_new_messages_line_whole_above_the_first_unread(qtbot, qloop, desktop, peer, read, unread_count, height):
    window = desktop.window
    window.resize(1100, height)
    room = join_room(qtbot, qloop, desktop, peer, "logs")
    other = join_room(qtbot, qloop, desktop, peer, "other")
    activate(qtbot, desktop)
    if read:
        click_room(qtbot, desktop, room)
        last = [post_as(qtbot, qloop, peer, room, varied(n))["seq"] for n in range(read)][-1]
        qtbot.waitUntil(lambda: window.rooms.summary(room).cursor == last, timeout=10_000)  # read at the bottom
    click_room(qtbot, desktop, other)
    seqs = [post_as(qtbot, qloop, peer, room, varied(read + n))["seq"] for n in range(unread_count)]
    qtbot.waitUntil(lambda: unread(desktop, room) == unread_count, timeout=10_000)
    click_room(qtbot, desktop, room)
    view, model = window.timeline, window.timeline_model
    qtbot.waitUntil(lambda: view.seen_seq >= seqs[0], timeout=5000)
    qtbot.waitUntil(lambda: window.rooms.summary(room).cursor == view.seen_seq, timeout=10_000)  # settled: read what it showed

    row = model.first_unread_row()
    assert row is not None and model.entry(row).seq == seqs[0]
    top = view.visualRect(model.index(row)).top()  # the row: its date, the line, then the message
    under_it = top + DATE_HEIGHT + DIVIDER_HEIGHT + view.fontMetrics().height()
    assert 0 <= top and under_it <= view.viewport().height(), (top, view.viewport().height())


def test_the_new_messages_line_stays_on_screen_as_more_arrive_and_the_composer_grows(qtbot, qloop, desktop, peer):
    """Opened with its unread messages all on screen, the view follows the bottom: what arrives
    next, or a composer grown by a few lines, carried the line off the top before it was read."""
    window = desktop.window
    window.resize(1100, 600)
    room = join_room(qtbot, qloop, desktop, peer, "logs")
    other = join_room(qtbot, qloop, desktop, peer, "other")
    activate(qtbot, desktop)
    click_room(qtbot, desktop, room)
    last = [post_as(qtbot, qloop, peer, room, varied(n))["seq"] for n in range(20)][-1]
    qtbot.waitUntil(lambda: window.rooms.summary(room).cursor == last, timeout=10_000)
    click_room(qtbot, desktop, other)
    first = post_as(qtbot, qloop, peer, room, "the first news")["seq"]
    post_as(qtbot, qloop, peer, room, "the second news")
    qtbot.waitUntil(lambda: unread(desktop, room) == 2, timeout=10_000)
    click_room(qtbot, desktop, room)
    view, model = window.timeline, window.timeline_model
    qtbot.waitUntil(lambda: view.seen_seq > first, timeout=5000)

    def line_on_screen() -> bool:
        row = model.first_unread_row()
        return row is not None and model.entry(row).seq == first and 0 <= view.visualRect(model.index(row)).top()

    assert line_on_screen()
    for n in range(12):  # the agents go on
        post_as(qtbot, qloop, peer, room, varied(n))
    qtbot.waitUntil(lambda: model.entry(model.rowCount() - 1).text == varied(11), timeout=10_000)
    qtbot.keyClicks(window.composer.edit, "a first line")
    for _ in range(4):
        QTest.keyClick(window.composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
        qtbot.keyClicks(window.composer.edit, "and more")
    qtbot.waitUntil(lambda: view.seen_seq >= first, timeout=5000)
    assert line_on_screen()
    pill = view.findChild(QPushButton, "newMessagesPill")
    assert pill.isVisible()  # what did not fit waits below, counted
    QTest.keyClick(view, Qt.Key.Key_End)  # the reader scrolls on: the view follows the bottom again
    qtbot.waitUntil(lambda: view.at_bottom and unread(desktop, room) == 0, timeout=10_000)


def test_the_room_list_holds_its_order_under_the_pointer_and_with_the_focus(qtbot, qloop, desktop, peer):
    window = desktop.window
    rooms = [join_room(qtbot, qloop, desktop, peer, name) for name in ("alpha", "beta", "gamma")]
    for room in rooms:  # gamma newest
        post_as(qtbot, qloop, peer, room, f"hello {room}")
    qtbot.waitUntil(lambda: listed_rooms(desktop) == ["gamma", "beta", "alpha"], timeout=10_000)
    view = window.room_panel.view
    QTest.mouseMove(view.viewport(), view.viewport().rect().center())  # the pointer goes over the list…
    busy = post_as(qtbot, qloop, peer, "alpha", "alpha is busy")["seq"]
    qtbot.waitUntil(lambda: window.rooms.summary("alpha").max_seq == busy, timeout=10_000)
    assert listed_rooms(desktop) == ["gamma", "beta", "alpha"]  # …and the row under it stays put
    QTest.mouseMove(window.timeline.viewport(), window.timeline.viewport().rect().center())  # it leaves
    assert not window.room_panel.view.underMouse()
    assert listed_rooms(desktop) == ["gamma", "beta", "alpha"]  # not at once: a room just clicked opens first
    qtbot.waitUntil(lambda: listed_rooms(desktop) == ["alpha", "gamma", "beta"], timeout=5000)

    view.setFocus()  # the list has the keyboard
    busy = post_as(qtbot, qloop, peer, "beta", "beta is busy")["seq"]
    qtbot.waitUntil(lambda: window.rooms.summary("beta").max_seq == busy, timeout=10_000)
    assert listed_rooms(desktop) == ["alpha", "gamma", "beta"]
    window.composer.edit.setFocus()
    qtbot.waitUntil(lambda: listed_rooms(desktop) == ["beta", "alpha", "gamma"], timeout=5000)


@pytest.mark.parametrize("several", [False, True], ids=["one hub", "second of two hubs"])
def test_a_hub_s_rooms_sort_by_name_from_its_menu_and_stay_so(qtbot, qloop, tmp_path, hub, hub_factory, peer, several):
    """Sort rooms → A–Z on the hub's heading (on a room, in a window of one hub: no heading),
    kept in the settings: the next launch lists them so."""
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", hub.url, beside=hub_factory().url if several else None)
    try:
        window = desktop.window
        for name in ("delta", "alpha", "charlie"):
            post_as(qtbot, qloop, peer, join_room(qtbot, qloop, desktop, peer, name), f"hello {name}")
        qtbot.waitUntil(lambda: listed_rooms(desktop) == ["charlie", "alpha", "delta"], timeout=10_000)
        menu = row_menu(qtbot, desktop, None if several else "alpha", hub.url)
        sort = next(a.menu() for a in menu.actions() if a.text() == "Sort rooms")
        assert [a.text() for a in sort.actions() if a.isChecked()] == ["By activity"]
        menu.hide()
        click_action(qtbot, sort, "A–Z")
        qtbot.waitUntil(lambda: listed_rooms(desktop) == ["alpha", "charlie", "delta"], timeout=5000)
        busy = post_as(qtbot, qloop, peer, "delta", "delta is busy")["seq"]
        qtbot.waitUntil(lambda: window.rooms.summary("delta").max_seq == busy, timeout=10_000)
        assert listed_rooms(desktop) == ["alpha", "charlie", "delta"]
        qtbot.waitUntil(lambda: "room_order" in desktop.home.settings_file.read_text(encoding="utf-8"), timeout=5000)
    finally:
        stop_desktop(qtbot, qloop, desktop)
    again = DesktopApp(desktop.home)
    relaunched = qloop.create_task(again.run())
    try:
        qtbot.waitUntil(lambda: again.hubs.entry(hub.url) is not None, timeout=10_000)
        entry = again.hubs.entry(hub.url)
        qtbot.waitUntil(lambda: len(entry.rooms.room_names()) == 3, timeout=20_000)
        assert listed_rooms(again, hub.url) == ["alpha", "charlie", "delta"]
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)


def test_a_room_s_preview_is_one_line_of_plain_text(qtbot, qloop, desktop, peer):
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    post_as(qtbot, qloop, peer, room, "## Status\n\n| step | state |\n|---|---|\n| **build** | green |\n| test | `red` |")
    qtbot.waitUntil(lambda: "green" in (room_row(desktop, room).data(roles.ROOM_PREVIEW) or ""), timeout=10_000)
    assert room_row(desktop, room).data(roles.ROOM_PREVIEW) == "alice: Status step · state build · green test · red"


def test_a_wide_window_gives_the_side_panels_width_and_the_next_launch_keeps_it(qtbot, qloop, tmp_path, hub, peer):
    """At 1920 px the room list and the members grow with the window (previews were cut short
    beside a timeline that took it all); widths dragged are kept with the window's size."""
    desktop = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    try:
        window = desktop.window
        join_room(qtbot, qloop, desktop, peer, "team")
        window.resize(1250, 800)
        qtbot.waitUntil(lambda: window.roster_panel.isVisible(), timeout=5000)
        rooms_before, members_before = window.room_panel.width(), window.roster_panel.width()
        window.resize(1920, 1000)
        qtbot.waitUntil(lambda: window.room_panel.width() >= rooms_before + 80, timeout=5000)
        assert window.roster_panel.width() >= members_before + 80
        window.resize(800, 600)  # from a narrow window straight to a wide one (maximized): the same
        qtbot.waitUntil(lambda: not window.roster_panel.isVisible(), timeout=5000)
        window.resize(1920, 1000)
        qtbot.waitUntil(lambda: window.roster_panel.isVisible() and window.room_panel.width() >= rooms_before + 80, timeout=5000)
        handle = window.splitter.handle(1)  # the human drags the room list wider
        start = handle.rect().center()
        QTest.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
        QTest.mouseMove(handle, start + QPoint(120, 0))
        QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=start + QPoint(120, 0))
        qtbot.waitUntil(lambda: window.splitter.sizes()[0] >= rooms_before + 200, timeout=5000)
        dragged = window.splitter.sizes()
    finally:
        stop_desktop(qtbot, qloop, desktop)
    saved = json.loads(window_state_path(desktop.home).read_text(encoding="utf-8"))
    assert saved["size"] == [1920, 1000]
    rooms, members, at = saved["panels"]
    assert abs(rooms - dragged[0]) <= 2 and abs(members - dragged[2]) <= 2 and at == 1920

    again = DesktopApp(desktop.home)
    relaunched = qloop.create_task(again.run())
    try:
        window = again.window
        qtbot.waitUntil(lambda: window.isVisible() and again.bridge.is_live, timeout=15_000)
        assert window.width() == min(1920, window.screen().availableGeometry().width() - 40)  # as much as the screen holds
        assert window.panels.widths() == (rooms, members, 1920)
        window.resize(1920, 1000)  # (the test's screen is 800 px wide)
        qtbot.waitUntil(lambda: abs(window.splitter.sizes()[0] - rooms) <= 2, timeout=5000)
        assert abs(window.splitter.sizes()[2] - members) <= 2
    finally:
        again.quit()
        qtbot.waitUntil(relaunched.done, timeout=20_000)
