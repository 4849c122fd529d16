"""How fast the timeline takes new messages and new widths: a message in a quiet room is in the
model and laid out in the same turn it was stored; a burst goes in a frame's worth at a time; an
append lays out only the new row and paints only it (the rows above move as pixels); a new width lays out the rows on screen first, the rest later.
(Speed itself is measured by bench/bench_push.py and bench/bench_ui.py.)"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QColor, QCursor, QFontMetrics, QImage, QPalette, QRegion
from PySide6.QtWidgets import QPushButton, QStyle, QWidget
from support.desktop_fixtures import join_room, open_room, post_as, unread
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ME, add_messages, bridge, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app.timeline.append_pacer import FIRST_ROWS, MAX_ROWS, PREPARE_MS
from parler_desktop.app.timeline.timeline_model import FOLLOW_WINDOW, TRIM_ROWS
from parler_desktop.app.timeline.timeline_entry import row_context
from parler_desktop.client.events import OutboxChanged, OutboxItem, OutboxStatus
from parler_desktop.protocol.values import EndpointRef
from parler_desktop.store import LocalStore
from parler_desktop.ui.timeline import message_layout
from parler_desktop.ui.keyboard import FOCUS_OUTLINE
from test_ui_timeline import at_bottom, build_log, make_view

LONG = "\n\n".join(f"paragraph {n}: " + "words that wrap " * 12 for n in range(4))


def opened(qtbot, qloop, session, bridge, count: int, text: str = "", style_sheet: str = "", read: int | None = None):
    """A view of ``count`` messages, ``read`` of them read (default: all), scrolled to the bottom."""
    add_messages(qtbot, qloop, session, [message(seq, "team", text) for seq in range(1, count + 1)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", count if read is None else read)
    view = make_view(qtbot, bridge)
    view.setStyleSheet(style_sheet)
    view.scroll_to_newest()
    settled = lambda: view.verticalScrollBar().isVisible() and not view.message_delegate.sizes.stale  # noqa: E731
    qtbot.waitUntil(lambda: at_bottom(view) and settled(), timeout=5000)  # the scroll bar shows a turn after its range
    view.doItemsLayout()  # settled at the width the scroll bar leaves, and painted
    QCoreApplication.processEvents()  # an update already posted (the scroll bar's turn) is painted now, not in the test
    view.viewport().repaint()
    return view


def counting_layouts(monkeypatch) -> list[str]:
    """The key of every row laid out from now on (the real layout runs)."""
    laid_out: list[str] = []
    compute = message_layout.LayoutCache._compute

    def counted(self, entry, *args):  # noqa: ANN001, ANN202
        laid_out.append(entry.key)
        return compute(self, entry, *args)

    monkeypatch.setattr(message_layout.LayoutCache, "_compute", counted)
    return laid_out


def test_a_message_in_a_quiet_room_is_shown_in_the_turn_it_was_stored(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 30)
    model = view.model()
    painted: list[int] = []  # the newest row of the model at each paint pass of the rows
    paint = view.paintEvent
    view.paintEvent = lambda event: (paint(event), painted.append(model.newest_seq))
    seen_at_announce: list[tuple[int, bool]] = []
    bridge.messagesStored.connect(lambda room, messages, live: seen_at_announce.append((model.newest_seq, 100 in painted)))
    add_messages(qtbot, qloop, session, [message(100, "team", "now")])
    assert seen_at_announce == [(100, True)]  # appended and painted before the announcement went on
    assert at_bottom(view)


def test_a_burst_goes_in_a_frame_at_a_time_and_all_of_it_arrives(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 30)
    model = view.model()
    inserts: list[int] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserts.append(last - first + 1))
    burst = 8 * MAX_ROWS
    add_messages(qtbot, qloop, session, [message(1000 + n, "team") for n in range(burst)])
    assert len(inserts) == 1 and inserts[0] <= FIRST_ROWS  # the first slice at once (fewer rows past its deadline), the rest in later frames
    qtbot.waitUntil(lambda: model.newest_seq == 1000 + burst - 1, timeout=10_000)
    assert sum(inserts) == burst and len(inserts) > 1 and all(n <= MAX_ROWS for n in inserts)
    kept = [seq for seq in (model.entry(row).seq for row in range(model.rowCount())) if seq >= 1000]
    assert kept == list(range(1000 + burst - len(kept), 1000 + burst))  # in order (the oldest trimmed as it followed)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)


def test_a_burst_s_rows_are_laid_out_before_they_go_in_and_none_is_begun_past_the_deadline(qtbot, qloop, session, bridge, monkeypatch):
    """Each body is laid out as its row is prepared (here 5 ms a row on top of the real work), and
    measuring the row then finds it done: one document filled per message. No append begins a row
    more than PREPARE_MS after it started, so none takes more than that allows."""
    view = opened(qtbot, qloop, session, bridge, 30)
    model = view.model()
    prepared: list[str] = []
    prepare = message_layout.LayoutCache.prepare

    def slow_prepare(self, entry, *args):  # noqa: ANN001, ANN202
        prepared.append(entry.key)
        prepare(self, entry, *args)
        time.sleep(0.005)

    monkeypatch.setattr(message_layout.LayoutCache, "prepare", slow_prepare)
    filled: list[str] = []
    fill = message_layout.fill_document
    monkeypatch.setattr(message_layout, "fill_document", lambda document, text: filled.append(text) or fill(document, text))
    inserts: list[int] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserts.append(last - first + 1))
    burst = [message(1000 + n, "team", f"line {n} with `code`") for n in range(40)]
    add_messages(qtbot, qloop, session, burst)
    qtbot.waitUntil(lambda: model.newest_seq == 1039, timeout=10_000)
    assert prepared == [f"m{1000 + n}" for n in range(40)]
    assert sorted(filled) == sorted(f"line {n} with `code`" for n in range(40))
    assert sum(inserts) == 40 and max(inserts) <= math.ceil(PREPARE_MS / 5)


def test_a_new_message_s_body_is_laid_out_once_on_its_way_to_the_screen(qtbot, qloop, session, bridge, monkeypatch):
    """Its body is laid out as the row is prepared; measuring the row and painting it use that
    layout. (Qt lays a whole document out again on every ``setTextWidth``, even to the width it
    already has: measuring did so, as long again as the body's own layout.)"""
    view = opened(qtbot, qloop, session, bridge, 30)
    layouts_done: list[list[object]] = []  # per body made from now on: each time it was laid out
    fill = message_layout.fill_document

    def counted_fill(document, text):  # noqa: ANN001, ANN202
        filled = fill(document, text)
        done: list[object] = []
        layouts_done.append(done)
        filled.documentLayout().update.connect(lambda area: done.append(area))
        return filled

    monkeypatch.setattr(message_layout, "fill_document", counted_fill)
    add_messages(qtbot, qloop, session, [message(100, "team", "the **build** is green, `pytest -q` passed")])
    qtbot.waitUntil(lambda: view.model().newest_seq == 100, timeout=5000)
    view.viewport().repaint()
    assert at_bottom(view) and [len(done) for done in layouts_done] == [1]


def test_an_append_lays_out_only_the_new_row(qtbot, qloop, session, bridge, monkeypatch):
    view = opened(qtbot, qloop, session, bridge, 150)
    laid_out = counting_layouts(monkeypatch)
    looked_up: list[str] = []
    get = message_layout.LayoutCache.get
    monkeypatch.setattr(message_layout.LayoutCache, "get", lambda self, entry, *a: looked_up.append(entry.key) or get(self, entry, *a))
    add_messages(qtbot, qloop, session, [message(200, "team", "one more")])
    qtbot.waitUntil(lambda: view.model().newest_seq == 200, timeout=5000)
    view.viewport().repaint()
    assert laid_out == ["m200"]
    assert len(looked_up) < 40  # the rows painted; the 150 rows above were not measured again


def test_a_new_message_body_is_made_in_the_font_rows_have_now(qtbot, qloop, session, bridge):
    """A blank document is made ahead for the next message's body; it is used only while its font
    is still the rows' font."""
    view = opened(qtbot, qloop, session, bridge, 30)
    layouts, model = view.message_delegate.layouts, view.model()

    def newest_body():  # noqa: ANN202
        last = model.index(model.rowCount() - 1)
        return view.message_delegate.row_layout(view._row_option(last), last).body

    add_messages(qtbot, qloop, session, [message(100, "team", "made ahead")])
    qtbot.waitUntil(lambda: model.newest_seq == 100 and layouts._spare is not None, timeout=5000)
    ahead = layouts._spare[1]
    add_messages(qtbot, qloop, session, [message(101, "team", "in the **same** font")])
    qtbot.waitUntil(lambda: model.newest_seq == 101, timeout=5000)
    assert newest_body() is ahead and ahead.toPlainText() == "in the same font"
    qtbot.waitUntil(lambda: layouts._spare is not None, timeout=5000)
    bigger = view.font()
    bigger.setPointSize(bigger.pointSize() + 6)
    view.setFont(bigger)
    bob = EndpointRef(id="UBOB", name="bob", role="coder")  # another author: the row has a header
    add_messages(qtbot, qloop, session, [message(102, "team", "in the bigger font", bob)])
    qtbot.waitUntil(lambda: model.newest_seq == 102, timeout=5000)
    assert newest_body().defaultFont().pointSize() == bigger.pointSize()
    last = model.index(model.rowCount() - 1)
    header = view.message_delegate.row_layout(view._row_option(last), last).time_rect
    assert header is not None and header.height() == QFontMetrics(bigger).height()


def test_rows_are_painted_with_the_view_s_current_state_and_palette(qtbot, qloop, session, bridge):
    """The item option is made once, and again when the view is disabled or its palette changes."""
    view = opened(qtbot, qloop, session, bridge, 30)
    first = view.model().index(0)
    assert view._row_option(first).state & QStyle.StateFlag.State_Enabled
    view.setEnabled(False)
    option = view._row_option(first)
    assert not option.state & QStyle.StateFlag.State_Enabled
    assert option.palette.currentColorGroup() is QPalette.ColorGroup.Disabled
    view.setEnabled(True)
    assert view._row_option(first).state & QStyle.StateFlag.State_Enabled
    dark = QPalette(view.palette())
    dark.setColor(QPalette.ColorRole.Base, QColor(20, 20, 20))
    view.setPalette(dark)
    assert view._row_option(first).palette.color(QPalette.ColorRole.Base) == QColor(20, 20, 20)


def placed_at_own_heights(view) -> bool:  # noqa: ANN001
    """Every row is placed with the height its layout has now."""
    model, delegate = view.model(), view.message_delegate
    return all(
        view.visualRect(model.index(row)).height() == delegate.exact_height(view._row_option(model.index(row)), model.index(row))
        for row in range(model.rowCount())
    )


def test_rows_stay_at_their_own_heights_through_appends_unfolds_gap_fills_and_a_post_being_stored(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 40)
    model = view.model()
    add_messages(qtbot, qloop, session, [message(100, "team", build_log(60)), message(101, "team", "after the log")])
    qtbot.waitUntil(lambda: model.newest_seq == 101 and at_bottom(view), timeout=5000)
    row = model.rowCount() - 2
    folded = view.visualRect(model.index(row)).height()
    view.setFocus()
    view.setCurrentIndex(model.index(row))
    qtbot.keyClick(view, Qt.Key.Key_Return)  # the reader unfolds the log: only its size changed
    qtbot.waitUntil(lambda: view.visualRect(model.index(row)).height() > 2 * folded, timeout=5000)
    add_messages(qtbot, qloop, session, [message(102, "team", "one more")])
    qtbot.waitUntil(lambda: model.newest_seq == 102 and at_bottom(view), timeout=5000)
    assert placed_at_own_heights(view)
    add_messages(qtbot, qloop, session, [message(50, "team", build_log(40))])  # a gap fill moves the rows below it
    qtbot.waitUntil(lambda: model.entry(40) is not None and model.entry(40).seq == 50, timeout=5000)
    add_messages(qtbot, qloop, session, [message(103, "team", "and another")])
    qtbot.waitUntil(lambda: model.newest_seq == 103 and at_bottom(view), timeout=5000)
    assert placed_at_own_heights(view)
    pending = OutboxItem("c1", "team", ({"kind": "text", "text": "my post"},), 1_700_000_000.0)
    session.emit(OutboxChanged(pending))
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    session.emit(OutboxChanged(replace(pending, status=OutboxStatus.FAILED, error="not a member of this room")))
    session.emit(OutboxChanged(OutboxItem("c2", "team", ({"kind": "text", "text": "my next post"},), 1_700_000_001.0)))
    qtbot.waitUntil(lambda: model.rowCount() and model.entry(model.rowCount() - 1).key == "outbox:c2" and at_bottom(view), timeout=5000)
    assert placed_at_own_heights(view)
    session.emit(OutboxChanged(OutboxItem("c2", "team", ({"kind": "text", "text": "my next post"},), 1_700_000_001.0, OutboxStatus.SENT, message_id="m104", seq=104)))
    qtbot.waitUntil(lambda: model.entry(model.rowCount() - 2).seq == 104, timeout=5000)
    shown = view.visualRect(model.index(model.rowCount() - 2)).height()  # "Sent #104" under it
    add_messages(qtbot, qloop, session, [message(104, "team", "my next post", sender=ME)])  # stored: only its data changed
    qtbot.waitUntil(lambda: model.entry(model.rowCount() - 2).message is not None, timeout=5000)
    assert view.visualRect(model.index(model.rowCount() - 2)).height() < shown and placed_at_own_heights(view)


def test_a_new_width_lays_out_the_rows_on_screen_first_and_the_rest_later(qtbot, qloop, session, bridge, monkeypatch):
    view = opened(qtbot, qloop, session, bridge, 120, LONG)
    model, delegate = view.model(), view.message_delegate
    laid_out = counting_layouts(monkeypatch)
    view.resize(450, 400)
    view.doItemsLayout()
    on_screen = {view.indexAt(QPoint(0, y)).row() for y in range(0, view.viewport().height(), 10)} - {-1}
    assert on_screen and {model.entry(row).key for row in on_screen} <= set(laid_out)
    assert len(laid_out) < model.rowCount() // 2 and delegate.sizes.stale  # the rest waits
    qtbot.waitUntil(lambda: not delegate.sizes.stale, timeout=10_000)
    assert len(set(laid_out)) == model.rowCount()
    view.doItemsLayout()
    width = delegate.row_width()
    for row in range(model.rowCount()):  # every row is now placed with its height at the new width
        context = row_context(model.entry(row - 1) if row else None, model.entry(row), row == model.first_unread_row())
        exact = delegate.layouts.get(model.entry(row), width, context, view.font()).height
        assert view.visualRect(model.index(row)).height() == exact
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)


def test_a_new_width_keeps_the_row_being_read_where_it_was(qtbot, qloop, session, bridge):
    """Scrolled up, the reader makes the window narrower, then wider: the rows above the one at
    the top of the view change height (those near it at once, the others in later slices), and
    that row stays where it was on screen all the while."""
    view = opened(qtbot, qloop, session, bridge, 60, LONG)
    model, bar, stale = view.model(), view.verticalScrollBar(), view.message_delegate.sizes.stale
    bar.setValue(bar.maximum() // 2)
    qtbot.waitUntil(lambda: not view.at_bottom, timeout=5000)
    for width in (450, 600):
        row = view.indexAt(QPoint(0, 0)).row()
        place = view.visualRect(model.index(row)).top()
        view.resize(width, 400)
        assert view.visualRect(model.index(row)).top() == place and stale  # laid out on screen, the rest later
        qtbot.waitUntil(lambda: not stale, timeout=10_000)
        assert view.visualRect(model.index(row)).top() == place and view.indexAt(QPoint(0, 0)).row() == row
        bar.setValue(bar.value() - 300)  # the reader scrolls on: the next width keeps that place
    row = view.indexAt(QPoint(0, 0)).row()
    place = view.visualRect(model.index(row)).top()
    view.resize(450, 400)
    bar.setValue(bar.value() - 300)  # scrolled before the rows above are laid out: the reader's move stands
    qtbot.waitUntil(lambda: not stale, timeout=10_000)
    assert view.visualRect(model.index(row)).top() > place


class PaintedAreas(QObject):
    """The area of every paint pass of a widget from now on."""

    def __init__(self, widget) -> None:  # noqa: ANN001
        super().__init__(widget)
        self.areas: list[QRegion] = []
        widget.installEventFilter(self)

    def eventFilter(self, _watched, event) -> bool:  # noqa: ANN001
        if event.type() == QEvent.Type.Paint:
            self.areas.append(QRegion(event.region()))
        return False

    def outside(self, allowed: QRegion) -> list[QRegion]:
        """The areas painted that reach out of ``allowed``."""
        return [area for area in self.areas if allowed.intersected(area) != area]


def settle(view) -> None:  # noqa: ANN001
    """Whatever layout and paint the view has waiting happen now."""
    view.executeDelayedItemsLayout()
    QCoreApplication.sendPostedEvents(view.window(), QEvent.Type.UpdateRequest)


def on_screen(view) -> QImage:  # noqa: ANN001
    """The viewport's pixels as the window shows them (the backing store, not a fresh render)."""
    viewport = view.viewport()
    corner = viewport.mapTo(view.window(), QPoint(0, 0))
    return view.screen().grabWindow(view.window().winId(), corner.x(), corner.y(), viewport.width(), viewport.height()).toImage()


@pytest.mark.parametrize("read", [150, 100], ids=["all read", "jump to first unread shown"])
def test_an_append_at_the_bottom_paints_only_the_new_row_and_looks_as_if_all_were_painted(qtbot, qloop, session, bridge, read):
    view = opened(qtbot, qloop, session, bridge, 150, style_sheet=FOCUS_OUTLINE, read=read)  # styled as in the window
    jump = view.findChild(QPushButton, "jumpToUnread")
    if read < 150:  # the reader looked away: what is unread above stays so, and the jump back is offered
        elsewhere = QWidget()
        qtbot.addWidget(elsewhere)
        elsewhere.show()
        elsewhere.activateWindow()
        qtbot.waitUntil(lambda: not view.isActiveWindow() and jump.isVisible(), timeout=5000)
        QCoreApplication.processEvents()
        view.viewport().repaint()
    assert jump.isVisible() == (read < 150)
    jump_at = jump.geometry()
    QCursor.setPos(view.viewport().mapToGlobal(view.viewport().rect().center()))  # the pointer rests on the rows
    QCoreApplication.processEvents()  # the pointer's arrival over a row, and the repaint that asks for
    view.viewport().repaint()  # (painted here, not in the test)
    painted = PaintedAreas(view.viewport())
    add_messages(qtbot, qloop, session, [message(200, "team", "one more")])
    qtbot.waitUntil(lambda: view.model().newest_seq == 200 and bool(painted.areas), timeout=5000)
    new_row = view.visualRect(view.model().index(view.model().rowCount() - 1))
    assert at_bottom(view) and new_row.bottom() >= view.viewport().height() - 8
    allowed = QRegion(new_row)  # not the rows that scrolled under the pointer: they look the same hovered
    allowed += QRegion(jump.geometry().adjusted(0, -new_row.height(), 0, 0))  # where the scroll took it, and back
    assert not painted.outside(allowed), painted.areas  # the rows above were moved, not painted
    shown = on_screen(view)
    view.viewport().repaint()  # every row painted afresh
    assert shown == on_screen(view)
    assert jump.isHidden() or jump.geometry() == jump_at  # shown, it stays put while the rows scroll under it


def test_the_append_that_trims_the_followed_window_paints_only_the_new_row(qtbot, qloop, session, bridge):
    """The rows trimmed from the top are above the view: removing them moves nothing on screen,
    so that append paints no more than any other (it laid out and painted the whole view)."""
    view = opened(qtbot, qloop, session, bridge, 150, style_sheet=FOCUS_OUTLINE)
    model = view.model()
    last_before_trim = 150 + FOLLOW_WINDOW + TRIM_ROWS - model.rowCount() - 1
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(151, last_before_trim + 1)])
    qtbot.waitUntil(lambda: model.newest_seq == last_before_trim and at_bottom(view), timeout=10_000)
    assert model.rowCount() == FOLLOW_WINDOW + TRIM_ROWS - 1  # one more row trims TRIM_ROWS of them
    QCoreApplication.processEvents()
    view.viewport().repaint()
    painted = PaintedAreas(view.viewport())
    add_messages(qtbot, qloop, session, [message(last_before_trim + 1, "team", "the one that trims")])
    qtbot.waitUntil(lambda: model.newest_seq == last_before_trim + 1 and bool(painted.areas), timeout=5000)
    settle(view)  # a layout the trim asked for runs now, and what it asked to paint is painted
    assert model.rowCount() == FOLLOW_WINDOW and at_bottom(view)
    new_row = view.visualRect(model.index(model.rowCount() - 1))
    assert new_row.bottom() >= view.viewport().height() - 8
    assert not painted.outside(QRegion(new_row)), painted.areas
    shown = on_screen(view)
    view.viewport().repaint()  # every row painted afresh
    assert shown == on_screen(view)
    bottom = view.indexAt(QPoint(10, view.viewport().height() - 10))
    assert model.entry(bottom.row()).seq == last_before_trim + 1  # where each row is still holds


def test_a_message_arriving_above_a_pending_post_shows_both_where_they_now_are(qtbot, qloop, session, bridge):
    view = opened(qtbot, qloop, session, bridge, 150, style_sheet=FOCUS_OUTLINE)
    session.emit(OutboxChanged(OutboxItem("c1", "team", ({"kind": "text", "text": "my pending post"},), 1_700_000_000.0)))
    qtbot.waitUntil(lambda: view.model().entry(view.model().rowCount() - 1).is_pending and at_bottom(view), timeout=5000)
    view.viewport().repaint()
    add_messages(qtbot, qloop, session, [message(200, "team", "one more")])
    qtbot.waitUntil(lambda: view.model().entry(view.model().rowCount() - 2).seq == 200, timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    shown = on_screen(view)  # the post moved down under the new row: more than the bottom changed
    view.viewport().repaint()
    assert shown == on_screen(view)


def test_news_of_another_room_repaints_nothing_of_the_open_timeline(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    open_room(qtbot, desktop, team)
    for n in range(3):
        post_as(qtbot, qloop, peer, team, f"in team {n}")
    qtbot.waitUntil(lambda: desktop.window.timeline_model.rowCount() == 3, timeout=5000)
    painted = PaintedAreas(desktop.window.timeline.viewport())
    post_as(qtbot, qloop, peer, ops, "in ops")
    qtbot.waitUntil(lambda: unread(desktop, ops) == 1, timeout=5000)  # the room list was reloaded
    QCoreApplication.sendPostedEvents(desktop.window, QEvent.Type.UpdateRequest)  # any repaint asked for is done
    assert painted.areas == []


def following_forty(qtbot, qloop, desktop, peer):  # noqa: ANN001, ANN201
    """(room, timeline) of the window following room "team" at its bottom, after 40 messages a
    peer posted, everything waiting to be painted painted."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    open_room(qtbot, desktop, team)
    view = desktop.window.timeline
    for n in range(40):
        post_as(qtbot, qloop, peer, team, f"in team {n}")
    qtbot.waitUntil(lambda: view.model().rowCount() == 40 and view.verticalScrollBar().maximum() > 0 and at_bottom(view), timeout=10_000)
    QCoreApplication.sendPostedEvents(desktop.window, QEvent.Type.UpdateRequest)
    return team, view


def test_in_the_window_a_pushed_message_moves_the_rows_above_as_pixels(qtbot, qloop, desktop, peer):
    """As the test above, with the window's own style sheet (set on the main window, which the
    timeline inherits as it is shown): it must not leave the viewport without a background."""
    team, view = following_forty(qtbot, qloop, desktop, peer)
    painted = PaintedAreas(view.viewport())
    post_as(qtbot, qloop, peer, team, "one more")
    qtbot.waitUntil(lambda: view.model().rowCount() == 41 and bool(painted.areas), timeout=5000)
    new_row = QRegion(view.visualRect(view.model().index(40)))
    assert at_bottom(view)
    assert not painted.outside(new_row), painted.areas


class FramesPainted(QObject):
    """Which of some widgets paint in each of the window's frames from now on (a frame: Qt's
    repaint of the window on its UpdateRequest, which ends by handing the frame to the display)."""

    def __init__(self, window: QWidget, named: dict[str, QWidget]) -> None:
        super().__init__(window)
        self.frames: list[list[str]] = []
        self._window = window
        self._named = list(named.items())
        window.installEventFilter(self)
        for widget in named.values():
            widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: ANN001
        if watched is self._window and event.type() == QEvent.Type.UpdateRequest:
            self.frames.append([])
        elif event.type() == QEvent.Type.Paint and self.frames:
            self.frames[-1] += [name for name, widget in self._named if widget is watched]
        return False

    def painted(self, name: str) -> bool:
        return any(name in frame for frame in self.frames)


def test_a_pushed_message_reaches_the_screen_before_the_scroll_bar_is_painted(qtbot, qloop, desktop, peer):
    """The new row's frame goes to the display without the scroll bar's new range, which is
    painted in a frame after it: in the row's frame, the bar's repaint held the row back from
    the screen."""
    team, view = following_forty(qtbot, qloop, desktop, peer)
    bar = view.verticalScrollBar()
    maximum = bar.maximum()
    frames = FramesPainted(desktop.window, {"rows": view.viewport(), "scroll bar": bar})
    post_as(qtbot, qloop, peer, team, "one more")
    qtbot.waitUntil(lambda: frames.painted("rows") and frames.painted("scroll bar"), timeout=5000)  # both, in the end
    assert at_bottom(view) and bar.maximum() > maximum
    row_frame = next(frame for frame in frames.frames if "rows" in frame)
    assert "scroll bar" not in row_frame, frames.frames


def test_the_scroll_bar_s_new_range_paints_none_of_the_widgets_behind_it(qtbot, qloop, desktop, peer):
    """The bar is not opaque, but the container Qt holds it in fills its own background: the bar's
    repaint for each pushed message is the bar's and the container's alone, not also that of the
    conversation's frame, the splitter and the other widgets it sits on (~0.7 ms a message)."""
    team, view = following_forty(qtbot, qloop, desktop, peer)
    bar = view.verticalScrollBar()
    behind: list[QWidget] = []  # every widget the bar's container sits on, up to the window
    widget = bar.parentWidget().parentWidget()
    while widget is not None:
        behind.append(widget)
        widget = widget.parentWidget()
    named = {f"behind {n}: {type(widget).__name__} {widget.objectName()}": widget for n, widget in enumerate(behind)}
    frames = FramesPainted(desktop.window, {"scroll bar": bar, **named})
    post_as(qtbot, qloop, peer, team, "one more")
    qtbot.waitUntil(lambda: frames.painted("scroll bar"), timeout=5000)
    bar_frame = next(frame for frame in frames.frames if "scroll bar" in frame)
    assert bar_frame == ["scroll bar"], frames.frames


@pytest.mark.parametrize("read", [60, 20])
def test_a_room_opens_with_the_rows_on_screen_laid_out_and_the_rest_after_its_first_paint(qtbot, qloop, session, bridge, monkeypatch, read):
    """A room switch lays out the rows it shows where it opens (its newest, or its first unread
    at the top), not the whole page; the others follow a turn later, and the row opened at stays
    where it was on screen meanwhile."""
    add_messages(qtbot, qloop, session, [message(seq, "team", LONG if seq % 3 else f"short {seq}") for seq in range(1, 61)])
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, "team", read)
    laid_out = counting_layouts(monkeypatch)
    view = make_view(qtbot, bridge, settled=False)
    model = view.model()
    view.doItemsLayout()  # (what its first paint lays out)
    stale = view.message_delegate.sizes.stale
    on_screen = {view.indexAt(QPoint(0, y)).row() for y in range(0, view.viewport().height(), 10)} - {-1}
    assert on_screen and {model.entry(row).key for row in on_screen} <= set(laid_out)
    assert len(laid_out) < model.rowCount() // 2 and stale  # the rest waits
    opened_at = model.first_unread_row() if read < 60 else model.rowCount() - 1
    place = view.visualRect(model.index(opened_at)).top()
    assert (place == 0) if read < 60 else at_bottom(view)
    qtbot.waitUntil(lambda: not stale, timeout=10_000)
    view.doItemsLayout()
    assert len(set(laid_out)) == model.rowCount() and placed_at_own_heights(view)
    assert view.visualRect(model.index(opened_at)).top() == place if read < 60 else at_bottom(view)
