"""The window by keyboard alone (issue 46): every key goes where a real keyboard sends it, to the
widget with the focus (``press`` and ``type_text``), never to a widget the test picks. Typing
starts a message after every way of opening a room, on whichever hub; Tab leaves the composer;
Home / End / Page Up / Page Down scroll the timeline from an empty composer; each menu has one
item per mnemonic; and a supervisor's whole day runs without a mouse event."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu, QWidget
from support.desktop_fixtures import click_row, hub_cursor, join_room, open_room, post_as, unread
from support.peer_ops import hub_history, invite_code, say
from support.private_bus import bus_address, server  # noqa: F401 - fixtures (three_hubs uses them)
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_dispatch import dispatch_from_dialog, join_service
from test_journey_hubs import rows, three_hubs  # noqa: F401 - fixture

from parler_desktop.client.message_link import message_link

pytestmark = pytest.mark.timeout(120)
CTRL, ALT, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.AltModifier, Qt.KeyboardModifier.ShiftModifier


def focused(window: QWidget) -> QWidget:
    """Where the keyboard's next key goes: an open menu, else the focus widget (the window itself
    when none has it)."""
    return QApplication.activePopupWidget() or QApplication.focusWidget() or window


def press(window: QWidget, key: Qt.Key, modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(focused(window), key, modifiers)


def type_text(window: QWidget, text: str) -> None:
    for char in text:  # the focus may move after a key (typing starts a message)
        QTest.keyClicks(focused(window), char)


def menu_key(window: QWidget) -> None:
    """The context menu key: the platform sends the focus widget a keyboard context menu event at
    its cursor, as QWidgetWindow words it (offscreen there is no platform to)."""
    widget = focused(window)
    at = widget.inputMethodQuery(Qt.InputMethodQuery.ImCursorRectangle).center()
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, widget.mapToGlobal(at)))


def activate(qtbot, window: QWidget) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)


def switch_to(qtbot, window, room: str) -> None:
    """Ctrl+K, the room's name, Enter: the room switcher."""
    press(window, Qt.Key.Key_K, CTRL)
    type_text(window, room)
    press(window, Qt.Key.Key_Return)


def shown(qtbot, window, hub, room: str) -> None:
    """Wait until ``room`` of ``hub`` (an entry) is on screen."""
    model = window.timeline_model
    qtbot.waitUntil(lambda: window.shown_hub is hub and model.room == room and not model.loading, timeout=10_000)


def texts(qtbot, qloop, peer, room: str) -> list[str]:
    return [m["parts"][0]["text"] for m in run_coroutine(qtbot, qloop, hub_history(peer, room))]


def post_by_keys(qtbot, qloop, window, peer, room: str, text: str) -> None:
    """Type ``text`` wherever the focus is, Enter, and see the agent's hub hold it once."""
    type_text(window, text)
    press(window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: texts(qtbot, qloop, peer, room)[-1:] == [text], timeout=10_000)
    assert texts(qtbot, qloop, peer, room).count(text) == 1


@pytest.fixture
def ops_rooms(qtbot, qloop, three_hubs):
    """``three_hubs`` with room ops-beta on the second hub and ops-gamma on the third, the window
    active on the local hub's "notes"."""
    app, shared, killable, peers = three_hubs
    for hub, room in ((shared, "ops-beta"), (killable, "ops-gamma")):
        code = run_coroutine(qtbot, qloop, invite_code(peers[hub.url], room))
        run_coroutine(qtbot, qloop, app.hubs.entry(hub.url).bridge.session.redeem(code))
    listed = lambda: {(hub, room) for hub, room, _n in rows(app.window)}  # noqa: E731
    qtbot.waitUntil(lambda: {(shared.url, "ops-beta"), (killable.url, "ops-gamma")} <= listed(), timeout=10_000)
    activate(qtbot, app.window)
    return three_hubs


def test_typing_after_the_room_switcher_changed_hub_twice_posts(qtbot, qloop, ops_rooms):
    """Issue 46 item 1, as tried: Ctrl+K ops-gamma Enter, Ctrl+K ops-beta Enter, type, Enter."""
    app, shared, killable, peers = ops_rooms
    window = app.window
    switch_to(qtbot, window, "ops-gamma")
    shown(qtbot, window, app.hubs.entry(killable.url), "ops-gamma")
    switch_to(qtbot, window, "ops-beta")
    shown(qtbot, window, app.hubs.entry(shared.url), "ops-beta")
    type_text(window, "the beta is green")
    press(window, Qt.Key.Key_Home)  # Home and End move in the text typed
    type_text(window, "> ")
    press(window, Qt.Key.Key_End)
    type_text(window, "!")
    assert window.composer.edit.toPlainText() == "> the beta is green!"
    press(window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: texts(qtbot, qloop, peers[shared.url], "ops-beta") == ["> the beta is green!"], timeout=10_000)


def test_typing_starts_a_message_after_every_way_of_opening_a_room(qtbot, qloop, ops_rooms):
    """A click, Ctrl+K, Alt+Down, Ctrl+Alt+N, a message link and a search result each open a room
    on another hub than the one shown; what is typed next is posted there."""
    app, shared, killable, peers = ops_rooms
    window = app.window
    beta, gamma = app.hubs.entry(shared.url), app.hubs.entry(killable.url)

    click_row(app, "team", shared.url)
    shown(qtbot, window, beta, "team")
    post_by_keys(qtbot, qloop, window, peers[shared.url], "team", "after a click")

    switch_to(qtbot, window, "ops-gamma")
    shown(qtbot, window, gamma, "ops-gamma")
    post_by_keys(qtbot, qloop, window, peers[killable.url], "ops-gamma", "after ctrl k")

    run_coroutine(qtbot, qloop, say(peers[shared.url], "ops-beta", "news on beta"))
    qtbot.waitUntil(lambda: (shared.url, "ops-beta", 1) in rows(window), timeout=10_000)
    press(window, Qt.Key.Key_Down, ALT)
    shown(qtbot, window, beta, "ops-beta")
    post_by_keys(qtbot, qloop, window, peers[shared.url], "ops-beta", "after alt down")

    press(window, Qt.Key.Key_3, CTRL | ALT)
    qtbot.waitUntil(lambda: window.shown_hub is gamma and window.timeline_model.room is not None, timeout=10_000)
    post_by_keys(qtbot, qloop, window, peers[killable.url], window.timeline_model.room, "after ctrl alt 3")

    seq = run_coroutine(qtbot, qloop, say(peers[shared.url], "team", "linked"))
    app.message_links.open(message_link(shared.url, "team", seq))  # as a link clicked in a message
    qtbot.waitUntil(lambda: window.shown_hub is beta and window.timeline_model.room == "team"
                    and window.timeline_model.newest_seq == seq, timeout=10_000)
    post_by_keys(qtbot, qloop, window, peers[shared.url], "team", "after a link")

    run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "the billing run failed"))
    press(window, Qt.Key.Key_F, CTRL | SHIFT)
    dialog = app.search.dialog
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.query.hasFocus(), timeout=5000)
    type_text(dialog, "billing")
    qtbot.waitUntil(lambda: dialog.results.model().rowCount() == 1, timeout=10_000)
    press(dialog, Qt.Key.Key_Return)
    shown(qtbot, window, gamma, "team")
    if dialog.isVisible():  # (issue 46 item 8 closes it on opening a result)
        QTest.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible() and window.isActiveWindow(), timeout=5000)
    post_by_keys(qtbot, qloop, window, peers[killable.url], "team", "after a search result")


def open_by_keys(qtbot, window, room: str) -> None:
    """Ctrl+K to ``room`` of the hub shown, and wait until it is on screen."""
    switch_to(qtbot, window, room)
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.room == room and not model.loading, timeout=10_000)


def test_tab_and_shift_tab_leave_the_composer_in_layout_order(qtbot, qloop, desktop, peer):
    """Issue 46 item 2: Tab moves on (Send, Hand off…, Attach…, the members), Shift+Tab back to
    the timeline; Ctrl+Tab is how a tab character is typed."""
    window = desktop.window
    window.resize(1400, 900)  # wide enough for the members panel
    join_room(qtbot, qloop, desktop, peer, "team")
    activate(qtbot, window)
    open_by_keys(qtbot, window, "team")
    edit = window.composer.edit
    assert focused(window) is edit
    type_text(window, "a")
    order = []
    for _ in range(4):
        press(window, Qt.Key.Key_Tab)
        order.append(focused(window).objectName())
    assert order == ["sendButton", "handoffButton", "attachButton", "rosterView"]
    for _ in range(4):
        press(window, Qt.Key.Key_Tab, SHIFT)
    assert focused(window) is edit and edit.toPlainText() == "a"  # no tab typed on the way
    press(window, Qt.Key.Key_Tab, CTRL)
    assert focused(window) is edit and edit.toPlainText() == "a\t"
    press(window, Qt.Key.Key_Tab, SHIFT)
    assert focused(window) is window.timeline


def test_tab_reaches_the_dispatch_list_and_an_uploads_dismiss_where_they_are_laid_out(qtbot, qloop, desktop, hub, tmp_path):
    """Tab follows the layout through what shows only at times: the dispatched work above the
    timeline, and an upload's Dismiss between the timeline and the composer (before, both were
    at the end of the Tab order, after the members)."""
    window = desktop.window
    window.resize(1400, 900)
    worker = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="rev", role="reviewer"))
    room = join_service(qtbot, qloop, desktop, worker, "review")
    open_room(qtbot, desktop, room)
    dispatch_from_dialog(qtbot, window, "review PR 42")
    qtbot.waitUntil(window.dispatch.panel.isVisible, timeout=10_000)
    too_large = tmp_path / "disk.img"
    with too_large.open("wb") as handle:
        handle.truncate(26 * 1024 * 1024)
    window.uploads.send_files([str(too_large)])
    strip = window.uploads.strip
    qtbot.waitUntil(lambda: bool(strip.lines) and strip.lines[0].button.text() == "Dismiss", timeout=10_000)
    activate(qtbot, window)
    window.room_panel.view.setFocus()
    order = []
    for _ in range(4):
        press(window, Qt.Key.Key_Tab)
        order.append(focused(window).objectName())
    assert order == ["dispatchList", "timeline", "uploadCancel", "composerEdit"]
    press(window, Qt.Key.Key_Tab, SHIFT)
    assert focused(window) is strip.lines[0].button
    run_coroutine(qtbot, qloop, worker.close())


def test_home_end_and_page_keys_scroll_the_timeline_from_an_empty_composer_and_the_bottom_reads(qtbot, qloop, desktop, peer):
    """Issue 46 item 4: a room opened by keyboard (the focus in the composer) scrolls with Home,
    End, Page Up and Page Down while nothing is typed; End reaches the bottom and reads it."""
    window = desktop.window
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, join_room(qtbot, qloop, desktop, peer, "other"))  # team unread, closed
    for number in range(60):
        post_as(qtbot, qloop, peer, team, f"line {number}\nsecond line")
    qtbot.waitUntil(lambda: unread(desktop, team) == 60, timeout=10_000)
    activate(qtbot, window)
    open_by_keys(qtbot, window, team)
    bar = window.timeline.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
    assert focused(window) is window.composer.edit and not window.timeline.at_bottom
    press(window, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: window.timeline.at_bottom and bar.value() == bar.maximum(), timeout=5000)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=5000)  # read to the bottom
    press(window, Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: bar.value() < bar.maximum(), timeout=5000)
    up = bar.value()
    press(window, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: bar.value() > up, timeout=5000)
    press(window, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: window.timeline_model.entry(0).text.startswith("line 0") and bar.value() == 0, timeout=5000)
    assert focused(window) is window.composer.edit and window.composer.edit.toPlainText() == ""


def mnemonic(text: str) -> str | None:
    """The letter after a single ``&`` (``&&`` is a literal ampersand), lower-cased."""
    plain = text.replace("&&", "")
    at = plain.find("&")
    return plain[at + 1].lower() if at >= 0 and at + 1 < len(plain) else None


def menu_levels(menu_bar) -> list[tuple[str, list]]:
    """(the menu's title, its actions) for the menu bar and every menu and submenu in it."""
    levels, pending = [("menu bar", menu_bar.actions())], [a.menu() for a in menu_bar.actions() if a.menu()]
    while pending:
        menu = pending.pop()
        levels.append((menu.title(), menu.actions()))
        pending += [a.menu() for a in menu.actions() if a.menu()]
    return levels


def test_every_menu_and_menu_item_has_a_mnemonic_of_its_own(qtbot, qloop, desktop, peer):
    """Issue 46 item 5: Alt+H was both Hub and Help; each menu level now has one item per letter."""
    window = desktop.window
    status_line = desktop.attention.menu.state  # "Notifications on": a line to read, not an item
    for title, actions in menu_levels(window.menuBar()):
        items = [a for a in actions if not a.isSeparator() and a is not status_line]
        letters = [mnemonic(a.text()) for a in items]
        assert None not in letters, (title, [a.text() for a in items if mnemonic(a.text()) is None])
        assert len(set(letters)) == len(letters), (title, sorted(a.text() for a in items))


def test_alt_h_then_return_asks_for_a_new_room_every_time(qtbot, qloop, desktop):
    """Issue 46 item 5, as tried: Alt+H opens Hub (a second time too, never Help), and Return
    runs its first item, New room…."""
    window = desktop.window
    activate(qtbot, window)
    hub_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Hub")
    for _ in range(2):
        press(window, Qt.Key.Key_H, ALT)
        qtbot.waitUntil(lambda: QApplication.activePopupWidget() is hub_menu, timeout=2000)
        press(window, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)
        press(window, Qt.Key.Key_Escape)  # (the menu bar keeps its keyboard focus after the first Esc)
    press(window, Qt.Key.Key_H, ALT)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is hub_menu, timeout=2000)
    press(window, Qt.Key.Key_Return)
    found = []
    qtbot.waitUntil(lambda: bool(found.extend(w for w in window.findChildren(QWidget, "newRoomDialog") if w.isVisible()) or found), timeout=2000)
    found[0].reject()


def test_a_log_folder_that_cannot_be_opened_says_so_in_the_window(qtbot, qloop, desktop):
    """Issue 46 item 5: Help → Open log folder with no launcher for it (none offscreen) tells
    the human in the status line, not only on stderr."""
    window = desktop.window
    activate(qtbot, window)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Help")
    press(window, Qt.Key.Key_P, ALT)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is help_menu, timeout=2000)
    press(window, Qt.Key.Key_L)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Could not open the log folder"), timeout=5000)
    assert str(desktop.home.log_dir) in window.statusBar().currentMessage()


class MouseWatch(QObject):
    """Counts every mouse button and wheel event the application delivers."""

    KINDS = (QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick, QEvent.Type.Wheel)

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[QEvent.Type] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in self.KINDS:
            self.seen.append(event.type())
        return False


def test_a_supervisors_day_by_keyboard_alone(qtbot, qloop, ops_rooms):
    """Issue 46, done when: every journey of the README by keyboard alone, not one mouse event.
    Open a room with Ctrl+K, read it to the bottom, reply to a message, go to another hub with
    Ctrl+Alt+N, to the next unread room with Alt+Down, search and open a result, quit with Ctrl+Q;
    the agents on each hub receive each answer once, where it belongs."""
    app, shared, killable, peers = ops_rooms
    window = app.window
    beta, gamma = app.hubs.entry(shared.url), app.hubs.entry(killable.url)
    mouse = MouseWatch()
    QApplication.instance().installEventFilter(mouse)
    try:
        for number in range(40):
            run_coroutine(qtbot, qloop, say(peers[shared.url], "ops-beta", f"step {number} done\nnothing to see"))
        review = run_coroutine(qtbot, qloop, say(peers[shared.url], "ops-beta", "please review the release notes"))
        run_coroutine(qtbot, qloop, say(peers[killable.url], "team", "the billing run failed"))
        run_coroutine(qtbot, qloop, say(peers[killable.url], "ops-gamma", "gamma waits on you"))  # its newest room
        qtbot.waitUntil(lambda: (shared.url, "ops-beta", 41) in rows(window) and (killable.url, "ops-gamma", 1) in rows(window), timeout=10_000)

        open_by_keys(qtbot, window, "ops-beta")  # at the first unread, the top of the room
        assert window.shown_hub is beta and not window.timeline.at_bottom
        press(window, Qt.Key.Key_End)  # read it all
        qtbot.waitUntil(lambda: hub_cursor(qtbot, qloop, app, shared.url, "ops-beta") == review, timeout=10_000)

        press(window, Qt.Key.Key_Tab, SHIFT)  # to the timeline, then down to the last message
        assert focused(window) is window.timeline
        for _ in range(60):
            if window.timeline.currentIndex().row() == window.timeline_model.rowCount() - 1:
                break
            press(window, Qt.Key.Key_Down)
        menu_key(window)
        qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=2000)
        context_menu = QApplication.activePopupWidget()
        press(window, Qt.Key.Key_Down)
        with qtbot.waitSignal(context_menu.destroyed, timeout=5000):
            press(window, Qt.Key.Key_Return)  # Reply
        activate(qtbot, window)  # offscreen, the menu's window takes the activation with it as it goes
        qtbot.waitUntil(lambda: window.composer.reply_to is not None and focused(window) is window.composer.edit, timeout=2000)
        post_by_keys(qtbot, qloop, window, peers[shared.url], "ops-beta", "on it")
        replied = run_coroutine(qtbot, qloop, hub_history(peers[shared.url], "ops-beta"))
        assert replied[-1]["replyTo"] == next(m["id"] for m in replied if m["seq"] == review)

        press(window, Qt.Key.Key_3, CTRL | ALT)  # the third hub's newest room
        shown(qtbot, window, gamma, "ops-gamma")
        post_by_keys(qtbot, qloop, window, peers[killable.url], "ops-gamma", "looking at gamma")

        press(window, Qt.Key.Key_Down, ALT)  # the next room with unread messages
        shown(qtbot, window, gamma, "team")
        post_by_keys(qtbot, qloop, window, peers[killable.url], "team", "billing is mine")

        press(window, Qt.Key.Key_F, CTRL | SHIFT)  # every room of every hub
        dialog = app.search.dialog
        qtbot.waitUntil(lambda: dialog.isVisible() and dialog.query.hasFocus(), timeout=5000)
        type_text(dialog, "release notes")
        qtbot.waitUntil(lambda: dialog.results.model().rowCount() == 1, timeout=10_000)
        press(dialog, Qt.Key.Key_Return)
        shown(qtbot, window, beta, "ops-beta")
        if dialog.isVisible():  # (issue 46 item 8 closes it on opening a result)
            QTest.keyClick(dialog, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not dialog.isVisible() and window.isActiveWindow(), timeout=5000)
        post_by_keys(qtbot, qloop, window, peers[shared.url], "ops-beta", "notes reviewed")

        with qtbot.waitSignal(window.closing, timeout=5000):
            press(window, Qt.Key.Key_Q, CTRL)
        assert mouse.seen == []
    finally:
        QApplication.instance().removeEventFilter(mouse)
