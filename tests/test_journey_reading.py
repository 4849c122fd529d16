"""Journeys: reading a room and posting into it, in the real window on a real hub.

A room opens at its read cursor (the first unread message and the divider at the top); the hub
cursor moves only over what has been on screen in the active window; the human's own posts are
never unread and posting brings the post into view.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QPushButton, QWidget
from support.desktop_fixtures import activate, click_room, join_room, post_as, unread
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_ui_timeline_speed import on_screen

from parler_desktop.app.timeline.timeline_model import FOLLOW_WINDOW, PAGE_SIZE, TRIM_ROWS
from parler_desktop.ui.timeline.timeline_view import LOAD_OLDER_PX
from parler_desktop.ui.appearance.theme import theme

pytestmark = pytest.mark.timeout(60)


def hub_unread(qtbot, qloop, desktop, room: str) -> int:
    run_coroutine(qtbot, qloop, desktop.bridge.session.refresh_rooms())
    return next(info.unread for info in desktop.bridge.session.rooms if info.name == room)


def tall(n: int) -> str:
    return f"step {n}: done\n\nlog line one\n\nlog line two"


def test_a_room_opens_at_its_first_unread_and_reads_only_what_was_on_screen(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    window = desktop.window
    activate(qtbot, desktop)
    click_room(qtbot, desktop, ops)
    seqs = [post_as(qtbot, qloop, peer, team, tall(n))["seq"] for n in range(30)]
    qtbot.waitUntil(lambda: unread(desktop, team) == 30, timeout=10_000)
    assert "30 unread" in window.windowTitle()

    click_room(qtbot, desktop, team)
    view, model = window.timeline, window.timeline_model
    row = model.first_unread_row()
    assert row is not None and model.entry(row).seq == seqs[0]
    qtbot.waitUntil(lambda: view.visualRect(model.index(row)).top() in range(0, 4), timeout=5000)  # divider at the top
    qtbot.waitUntil(lambda: 0 < view.seen_seq < seqs[-1], timeout=5000)
    seen = view.seen_seq
    qtbot.waitUntil(lambda: window.rooms.summary(team).cursor == seen, timeout=10_000)  # read what was on screen…
    still_below = sum(1 for seq in seqs if seq > seen)
    assert still_below > 0 and unread(desktop, team) == still_below  # …the rest is still unread
    assert hub_unread(qtbot, qloop, desktop, team) == still_below
    assert f"{still_below} unread" in window.windowTitle()
    assert not window.read_tracker.may_read()  # and nothing more is about to be marked

    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)  # scrolling down reads further
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)
    assert hub_unread(qtbot, qloop, desktop, team) == 0 and "unread" not in window.windowTitle()
    assert view.visualRect(model.index(row)).bottom() < 0  # the divider is far above, yet
    jump = view.findChild(QPushButton, "jumpToUnread")
    qtbot.waitUntil(lambda: not jump.isVisible(), timeout=5000)  # nothing is left to jump back to


def test_a_reader_scrolled_up_does_not_read_what_arrives_below(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    activate(qtbot, desktop)
    for n in range(20):
        post_as(qtbot, qloop, peer, team, tall(n))
    click_room(qtbot, desktop, team)
    view = window.timeline
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)
    qtbot.keyClick(view, Qt.Key.Key_Home)  # the reader scrolls up
    qtbot.waitUntil(lambda: not view.at_bottom, timeout=5000)
    newest = post_as(qtbot, qloop, peer, team, "arrives below the reader")["seq"]
    pill = window.findChild(object, "newMessagesPill")
    qtbot.waitUntil(pill.isVisible, timeout=5000)
    qtbot.waitUntil(lambda: unread(desktop, team) == 1, timeout=5000)
    assert view.seen_seq < newest and not window.read_tracker.may_read()  # not on screen: not read
    qtbot.mouseClick(pill, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)


def reopen_a_read_room(qtbot, qloop, desktop, peer) -> str:
    """Room "team" with 20 messages, read to the end, then left and opened again."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    activate(qtbot, desktop)
    for n in range(20):
        post_as(qtbot, qloop, peer, team, tall(n))
    click_room(qtbot, desktop, team)
    qtbot.keyClick(desktop.window.timeline, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)
    click_room(qtbot, desktop, ops)
    click_room(qtbot, desktop, team)
    return team


def test_a_room_with_nothing_unread_opens_at_the_bottom(qtbot, qloop, desktop, peer):
    reopen_a_read_room(qtbot, qloop, desktop, peer)
    window = desktop.window
    view = window.timeline
    qtbot.waitUntil(lambda: view.verticalScrollBar().maximum() > 0 and view.at_bottom, timeout=5000)
    assert window.timeline_model.first_unread_row() is None
    assert view.verticalScrollBar().value() == view.verticalScrollBar().maximum()


LINES = 2 * PAGE_SIZE + PAGE_SIZE // 2


def one_liners_in_a_tall_window(qtbot, qloop, desktop, peer, read: bool) -> str:
    """Room "team" with two pages and a half of one-line messages (read to the end, or none of
    them), left for "ops"; the window is then made taller than two pages of them."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team if read else ops)
    for n in range(LINES):
        post_as(qtbot, qloop, peer, team, f"line {n}")
    qtbot.waitUntil(lambda: unread(desktop, team) == (0 if read else LINES), timeout=10_000)
    click_room(qtbot, desktop, ops)
    desktop.window.resize(1000, 4000)
    return team


def test_a_page_that_fits_the_window_reads_older_history_in_until_there_is_some_to_scroll_to(qtbot, qloop, desktop, peer):
    """Opened at the bottom, a page of one-line messages fits a tall window: nothing scrolls, so
    no scroll could ask for what came before; the view reads it in, and Home reaches the first."""
    team = one_liners_in_a_tall_window(qtbot, qloop, desktop, peer, read=True)
    click_room(qtbot, desktop, team)
    view, model = desktop.window.timeline, desktop.window.timeline_model
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: model.rowCount() > PAGE_SIZE and view.at_bottom, timeout=5000)
    qtbot.waitUntil(lambda: bar.value() > LOAD_OLDER_PX or not model.has_older, timeout=5000)
    view.setFocus()

    def home_shows_the_first() -> bool:
        qtbot.keyClick(view, Qt.Key.Key_Home)
        return model.entry(0).text == "line 0" and view.indexAt(view.viewport().rect().topLeft()).row() == 0

    qtbot.waitUntil(home_shows_the_first, timeout=10_000)


def test_a_page_of_unread_that_fits_the_window_reads_the_next_page_in(qtbot, qloop, desktop, peer):
    """Opened at the first of more unread messages than a page, a tall window shows the whole
    page: the view reads the next one in without a scroll, and End reaches the newest."""
    team = one_liners_in_a_tall_window(qtbot, qloop, desktop, peer, read=False)
    click_room(qtbot, desktop, team)
    view, model = desktop.window.timeline, desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.entry(0) is not None and model.entry(0).text == "line 0", timeout=5000)
    qtbot.waitUntil(lambda: model.rowCount() == LINES and not model.has_newer, timeout=5000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)


def test_a_reader_up_in_the_history_keeps_their_place_when_the_window_narrows(qtbot, qloop, desktop, peer):
    """Scrolled up, the supervisor makes the window narrower (to dock it beside an editor): every
    message wraps anew, and the one at the top of the conversation stays where it was."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    for n in range(30):
        post_as(qtbot, qloop, peer, team, f"step {n}: " + "a finding that wraps " * 12)
    view, model = window.timeline, window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 30 and view.at_bottom, timeout=10_000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: not view.at_bottom, timeout=5000)
    row = view.indexAt(QPoint(0, 0)).row()
    assert row > 0  # with messages above it, which wrap anew too
    place = view.visualRect(model.index(row)).top()
    width = view.viewport().width()
    window.resize(window.width() - 300, window.height())
    qtbot.waitUntil(lambda: view.viewport().width() < width and not view.message_delegate.sizes.stale, timeout=5000)
    assert view.indexAt(QPoint(0, 0)).row() == row and view.visualRect(model.index(row)).top() == place


def test_own_posts_are_never_unread_and_posting_brings_them_into_view(qtbot, qloop, desktop, peer):
    team = reopen_a_read_room(qtbot, qloop, desktop, peer)  # read to the end: no divider any more
    window = desktop.window
    view, model = window.timeline, window.timeline_model
    qtbot.keyClick(view, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: not view.at_bottom, timeout=5000)
    counts: list[int] = []
    window.rooms.totalUnreadChanged.connect(counts.append)

    composer = window.composer.edit
    composer.setFocus()
    qtbot.keyClicks(composer, "on it")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    mine = delivered["seq"]
    qtbot.waitUntil(lambda: model.newest_seq == mine and model.entry(model.rowCount() - 1).message is not None, timeout=10_000)
    last = model.index(model.rowCount() - 1)
    qtbot.waitUntil(lambda: view.at_bottom and view.viewport().rect().contains(view.visualRect(last)), timeout=5000)
    assert model.first_unread_row() is None  # no "New messages" divider above it
    assert not window.findChild(object, "newMessagesPill").isVisible()
    qtbot.waitUntil(lambda: window.rooms.summary(team).max_seq == mine, timeout=5000)
    assert unread(desktop, team) == 0 and counts == [] and "unread" not in window.windowTitle()
    qtbot.waitUntil(lambda: hub_unread(qtbot, qloop, desktop, team) == 0, timeout=10_000)  # seen, so acknowledged


def test_no_jump_back_is_offered_while_all_that_is_unread_is_on_screen(qtbot, qloop, desktop, peer):
    """Following a busy room, the rows from the divider on leave the loaded window; a message that
    then arrives unread is on screen at the bottom, so there is nothing to jump back to (the button
    showed for every message whose ack had not landed yet)."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view, model = desktop.window, desktop.window.timeline, desktop.window.timeline_model
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    for n in range(FOLLOW_WINDOW + TRIM_ROWS + 1):
        post_as(qtbot, qloop, peer, team, f"step {n}")
    qtbot.waitUntil(lambda: unread(desktop, team) == 0 and model.first_unread_outside, timeout=20_000)
    other = QWidget()  # the supervisor looks away: what arrives now stays unread
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not window.isActiveWindow(), timeout=5000)
    post_as(qtbot, qloop, peer, team, "arrives on screen")
    qtbot.waitUntil(lambda: unread(desktop, team) == 1 and model.entry(model.rowCount() - 1).text == "arrives on screen", timeout=5000)
    newest = view.visualRect(model.index(model.rowCount() - 1))
    assert 0 <= newest.top() and newest.bottom() <= view.viewport().height()
    assert not view.findChild(QPushButton, "jumpToUnread").isVisible()


def test_a_clicked_message_that_scrolls_out_of_the_followed_window_leaves_the_reader_following(qtbot, qloop, desktop, peer):
    """The supervisor clicks a message, then watches the room go on: when that row leaves the
    loaded window, nothing else is chosen in its place and the view stays at the newest (Qt chose
    the next row, scrolled up to it and the view stopped following)."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view, model = desktop.window, desktop.window.timeline, desktop.window.timeline_model
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    for n in range(10):
        post_as(qtbot, qloop, peer, team, f"step {n}")
    qtbot.waitUntil(lambda: model.rowCount() == 10 and view.at_bottom, timeout=10_000)
    clicked = model.index(model.rowCount() - 1)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(clicked).center())
    assert view.selectionModel().isSelected(clicked)
    for n in range(10, 10 + FOLLOW_WINDOW + TRIM_ROWS):
        post_as(qtbot, qloop, peer, team, f"step {n}")
    qtbot.waitUntil(lambda: model.entry(model.rowCount() - 1).text == f"step {9 + FOLLOW_WINDOW + TRIM_ROWS}", timeout=20_000)
    assert model.entry(0).text != "step 9"  # the clicked row has left the loaded window
    newest = view.visualRect(model.index(model.rowCount() - 1))
    assert view.at_bottom and newest.bottom() <= view.viewport().height()  # the newest is on screen
    assert not view.selectionModel().hasSelection() and not view.currentIndex().isValid()


class ShowCounter(QObject):
    """Counts the times a widget is shown."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.shown = 0
        widget.installEventFilter(self)

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        self.shown += event.type() == QEvent.Type.Show
        return False


def test_no_jump_back_flickers_while_the_reader_follows_a_busy_room(qtbot, qloop, desktop, peer):
    """Watching the bottom of a room in the active window, what scrolls past is being read (the
    ack lands a moment later): "Jump to first unread" came and went while messages poured in."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view, model = desktop.window, desktop.window.timeline, desktop.window.timeline_model
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    jump = ShowCounter(view.findChild(QPushButton, "jumpToUnread"))
    for n in range(40):
        post_as(qtbot, qloop, peer, team, tall(n))
    qtbot.waitUntil(lambda: model.rowCount() == 40 and view.verticalScrollBar().maximum() > view.viewport().height(), timeout=10_000)
    qtbot.waitUntil(lambda: unread(desktop, team) == 0, timeout=10_000)
    assert view.at_bottom and jump.shown == 0


def test_the_reader_picks_a_message_with_a_click_and_walks_the_rows_with_the_arrow_keys(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    for n in range(30):
        post_as(qtbot, qloop, peer, team, tall(n))
    click_room(qtbot, desktop, team)
    timeline, model = desktop.window.timeline, desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 30 and timeline.verticalScrollBar().maximum() > 0, timeout=10_000)
    timeline.scroll_to_newest()

    def chosen() -> str:
        """The message the reader picked: the current row, which is also the one selected."""
        current = timeline.currentIndex()
        assert timeline.selectionModel().selectedIndexes() == [current]
        return model.entry(current.row()).text.split(":")[0]

    def looks(row: int) -> int:
        """The colour (0xAARRGGBB) at the right end of the row's middle, past its text: the row's
        background, as the window shows it."""
        QCoreApplication.sendPostedEvents(desktop.window, QEvent.Type.UpdateRequest)
        rect = timeline.visualRect(model.index(row))
        return on_screen(timeline).pixel(rect.right() - 2, rect.center().y())

    highlighted = QColor(theme.colours.selected_row).rgb()
    plain = timeline.palette().color(QPalette.ColorRole.Base).rgb()
    top = timeline.indexAt(timeline.viewport().rect().center())
    assert looks(top.row()) == plain
    QTest.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, pos=timeline.visualRect(top).center())
    assert chosen() == f"step {top.row()}" and timeline.hasFocus()
    assert (looks(top.row()), looks(top.row() + 1)) == (highlighted, plain)
    qtbot.keyClick(timeline, Qt.Key.Key_Down)
    assert chosen() == f"step {top.row() + 1}"
    assert (looks(top.row()), looks(top.row() + 1)) == (plain, highlighted)
    shown = on_screen(timeline)  # the highlight moved: the row left is painted plain again
    timeline.viewport().repaint()
    assert shown == on_screen(timeline)
    for _ in range(top.row() + 1):  # up past the top of the view: it follows the chosen row
        qtbot.keyClick(timeline, Qt.Key.Key_Up)
    assert chosen() == "step 0"
    first = timeline.visualRect(model.index(0))
    assert 0 <= first.top() and first.bottom() < timeline.viewport().height()  # shown whole
    assert timeline.verticalScrollBar().value() == 0
    QTest.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, first.center())
    assert timeline.selectionModel().selectedIndexes() == []  # Ctrl+click lets go of it, as in any list
    QCoreApplication.sendPostedEvents(desktop.window, QEvent.Type.UpdateRequest)
    shown = on_screen(timeline)
    timeline.viewport().repaint()
    assert shown == on_screen(timeline)


def test_a_burst_into_the_open_room_is_shown_in_order_and_the_reader_answers_it(qtbot, qloop, desktop, peer):
    """An agent posts 150 messages back to back into the room the person has open: they go in a
    frame's worth at a time (``append_pacer``), and the person sees them all, in order, with the
    newest at the bottom; then types an answer and presses Enter, and the agent receives it."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    view, model = window.timeline, window.timeline_model
    click_room(qtbot, desktop, team)
    qtbot.waitUntil(lambda: model.room == team and not model.loading, timeout=5000)

    async def burst() -> int:
        last = 0
        for n in range(150):
            frame = {"op": "send", "target": {"kind": "room", "room": team}, "parts": [{"kind": "text", "text": f"step {n}: **ok**"}]}
            last = (await peer.ok(frame, "sent"))["seq"]
        return last

    last = run_coroutine(qtbot, qloop, burst())
    qtbot.waitUntil(lambda: model.newest_seq == last, timeout=20_000)
    texts = [model.entry(row).text for row in range(model.rowCount())]
    assert texts == [f"step {n}: **ok**" for n in range(150 - len(texts), 150)]  # in order (the oldest trimmed while following)
    newest = model.index(model.rowCount() - 1)
    qtbot.waitUntil(lambda: view.at_bottom and view.viewport().rect().contains(view.visualRect(newest)), timeout=5000)

    composer = window.composer.edit
    composer.setFocus()
    qtbot.keyClicks(composer, "pause, I am reading")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0]["text"] == "pause, I am reading"


def test_returning_to_a_room_left_at_the_bottom_opens_at_its_first_unread_and_reads_only_what_was_on_screen(
    qtbot, qloop, desktop, peer
):
    """Issue 32.1, its steps: the window is on "big" and has read its one message; the reader
    opens "other"; 60 three-line messages arrive in "big"; Ctrl+K, "big", Enter opens it again."""
    big = join_room(qtbot, qloop, desktop, peer, "big")
    other = join_room(qtbot, qloop, desktop, peer, "other")
    window = desktop.window
    activate(qtbot, desktop)
    first = post_as(qtbot, qloop, peer, big, "the one message")["seq"]
    qtbot.waitUntil(lambda: unread(desktop, big) == 1, timeout=10_000)
    click_room(qtbot, desktop, big)
    qtbot.waitUntil(lambda: window.rooms.summary(big).cursor == first, timeout=10_000)
    click_room(qtbot, desktop, other)
    seqs = [post_as(qtbot, qloop, peer, big, tall(n))["seq"] for n in range(60)]
    qtbot.waitUntil(lambda: unread(desktop, big) == 60, timeout=10_000)
    assert "60 unread" in window.windowTitle()

    qtbot.keyClick(window.timeline, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.room_panel.filter, "big")
    qtbot.keyClick(window.room_panel.filter, Qt.Key.Key_Return)
    view, model = window.timeline, window.timeline_model
    qtbot.waitUntil(lambda: model.room == big and not model.loading, timeout=5000)
    row = model.first_unread_row()
    assert row is not None and model.entry(row).seq == seqs[0]  # the "New messages" divider is over the first
    qtbot.waitUntil(lambda: view.visualRect(model.index(row)).top() in range(0, 4), timeout=5000)
    qtbot.waitUntil(lambda: 0 < view.seen_seq < seqs[-1], timeout=5000)
    seen = view.seen_seq
    qtbot.waitUntil(lambda: window.rooms.summary(big).cursor == seen, timeout=10_000)
    still_below = sum(1 for seq in seqs if seq > seen)
    assert still_below > 40 and unread(desktop, big) == still_below
    assert hub_unread(qtbot, qloop, desktop, big) == still_below
    assert f"{still_below} unread" in window.windowTitle() and not window.read_tracker.may_read()
