"""The timeline view: follows the bottom only when the reader is there, a "N new" pill otherwise,
older pages on scroll-up without moving the text under the reader, jump to the first unread,
and Retry / Discard on a failed post."""

from __future__ import annotations

import re
from dataclasses import replace

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication
from support.qt_loop import qloop  # noqa: F401 - fixture
from support.stored_session import ME, add_messages, bridge, message, session, store, store_call  # noqa: F401 - fixtures

from parler_desktop.app.timeline.timeline_model import FOLLOW_WINDOW, PAGE_SIZE, TRIM_ROWS, TimelineModel
from parler_desktop.client.events import OutboxChanged, OutboxItem, OutboxStatus
from parler_desktop.store import LocalStore
from parler_desktop.ui.timeline.timeline_view import TimelineView


def make_view(qtbot, bridge, room="team", settled: bool = True) -> TimelineView:
    """A shown view with ``room`` open; ``settled``: and every row of its page laid out."""
    model = TimelineModel(bridge)
    view = TimelineView(model)
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room(room)
    if not settled:
        return view
    if model.rowCount():
        qtbot.waitUntil(lambda: view.verticalScrollBar().maximum() > 0, timeout=5000)
    qtbot.waitUntil(lambda: not view.message_delegate.sizes.stale, timeout=5000)  # the rows off screen laid out too
    return view


def scroll_back_to_the_first(qtbot, view: TimelineView, timeout: int) -> None:
    """The reader keeps scrolling up (a page is read in each time) until the room's first message."""
    bar, model = view.verticalScrollBar(), view.model()

    def at_the_first() -> bool:
        bar.setValue(0)
        return model.entry(0).seq == 1

    qtbot.waitUntil(at_the_first, timeout=timeout)


def at_bottom(view: TimelineView) -> bool:
    bar = view.verticalScrollBar()
    return bar.value() >= bar.maximum() - 4


def read_up_to(qtbot, qloop, session, seq: int, room: str = "team") -> None:
    """The human has read ``room`` up to ``seq`` (the room opens at the bottom when that is all)."""
    store_call(qtbot, qloop, session.store, LocalStore.set_cursor, room, seq)


def test_follows_new_messages_while_at_the_bottom(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 60)])
    read_up_to(qtbot, qloop, session, 59)
    view = make_view(qtbot, bridge)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    add_messages(qtbot, qloop, session, [message(100, "team", "a new one")])
    qtbot.waitUntil(lambda: view.model().rowCount() == 60, timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    assert not view.findChild(object, "newMessagesPill").isVisible()


def test_scrolled_up_reader_gets_a_pill_instead_of_a_jump(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 60)])
    read_up_to(qtbot, qloop, session, 59)
    view = make_view(qtbot, bridge)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    position = bar.value()
    add_messages(qtbot, qloop, session, [message(100 + n, "team") for n in range(3)])
    pill = view.findChild(object, "newMessagesPill")
    qtbot.waitUntil(pill.isVisible, timeout=5000)
    assert pill.text() == "3 new messages ↓" and bar.value() == position
    qtbot.mouseClick(pill, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: at_bottom(view) and not pill.isVisible(), timeout=5000)


def test_following_the_bottom_keeps_only_the_newest_rows_and_scrolling_up_reads_the_rest_again(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 201)])
    read_up_to(qtbot, qloop, session, 200)
    view = make_view(qtbot, bridge)
    model = view.model()
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    newest = 200 + FOLLOW_WINDOW + TRIM_ROWS  # with the page read on opening, more than the window keeps
    add_messages(qtbot, qloop, session, [message(seq, "team", f"new {seq}") for seq in range(201, newest + 1)])
    qtbot.waitUntil(lambda: model.newest_seq == newest and at_bottom(view), timeout=10_000)
    seqs = [model.entry(row).seq for row in range(model.rowCount())]
    assert seqs == [*range(seqs[0], newest + 1)] and FOLLOW_WINDOW <= len(seqs) < FOLLOW_WINDOW + TRIM_ROWS  # the oldest went
    assert len(view.message_delegate.sizes._known) <= len(seqs)  # and their layouts with them (issue 42)
    layouts, shown = view.message_delegate.layouts, {model.entry(row).key for row in range(model.rowCount())}
    assert set(layouts._documents) <= shown and {key[0] for key in layouts._rows} <= shown  # their bodies too
    scroll_back_to_the_first(qtbot, view, timeout=10_000)


def test_scrolling_to_the_top_loads_older_history_in_place(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 451)])
    read_up_to(qtbot, qloop, session, 450)
    view = make_view(qtbot, bridge)
    model = view.model()
    assert model.rowCount() == PAGE_SIZE
    view.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: model.rowCount() == 2 * PAGE_SIZE, timeout=5000)
    qtbot.waitUntil(lambda: view.indexAt(QPoint(10, 10)).isValid(), timeout=5000)
    top_seq = model.entry(view.indexAt(QPoint(10, 10)).row()).seq
    was_on_top = 451 - PAGE_SIZE
    assert was_on_top - 6 <= top_seq <= was_on_top + 1  # the message that was on top stays about where it was


def test_older_pages_past_the_row_bound_drop_the_newest_rows_and_keep_the_text_in_place(qtbot, qloop, session, bridge, monkeypatch):
    """Issue 42: scrolling back through a long room kept every row (a room of 10,000 scrolled to
    its start held 10,000 laid-out rows); past MAX_ROWS the newest go, below the reader."""
    from parler_desktop.app.timeline import timeline_model

    monkeypatch.setattr(timeline_model, "MAX_ROWS", 2 * PAGE_SIZE)
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 451)])
    read_up_to(qtbot, qloop, session, 450)
    view = make_view(qtbot, bridge)
    model = view.model()
    for pages in (2, 3):
        view.verticalScrollBar().setValue(0)
        oldest = 451 - pages * PAGE_SIZE
        qtbot.waitUntil(lambda: model.entry(0).seq == oldest, timeout=5000)
        qtbot.waitUntil(lambda: view.indexAt(QPoint(10, 10)).isValid(), timeout=5000)
        top_seq = model.entry(view.indexAt(QPoint(10, 10)).row()).seq
        was_on_top = oldest + PAGE_SIZE
        assert was_on_top - 6 <= top_seq <= was_on_top + 1  # the message that was on top stays about where it was
    assert model.rowCount() == 2 * PAGE_SIZE and model.has_newer and len(view.message_delegate.sizes._known) <= 2 * PAGE_SIZE


def test_a_long_room_scrolled_back_to_its_start_holds_a_few_hundred_laid_out_rows(qtbot, qloop, session, bridge):
    """Issue 42: a room of 100,000 scrolled back to its start and closed left the window 1.19x
    what it held before (bench_memory.py --room-messages 100000): its 2,000 rows' bodies (~26 KB
    of Qt's heap each) fragmented the C heap. At most 300 now (~8 MB), five pages. The reader
    clicked the newest message first: letting that row go as it was trimmed laid every row out
    again, those going too, after they were forgotten (60 bodies kept for good)."""
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 801)])
    read_up_to(qtbot, qloop, session, 800)
    view = make_view(qtbot, bridge)
    model = view.model()
    newest = model.index(model.rowCount() - 1)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(newest).center())
    assert view.currentIndex() == newest
    scroll_back_to_the_first(qtbot, view, timeout=30_000)
    layouts = view.message_delegate.layouts
    assert model.rowCount() <= 300 and model.has_newer
    assert len(view.message_delegate.sizes._known) <= 300 and len(layouts._documents) <= 300


def test_a_message_that_belongs_above_the_loaded_rows_leaves_no_body_behind(qtbot, qloop, session, bridge):
    """Issue 42: a message stored late into a room's history (a dropped push's room pulled) goes
    nowhere while older rows are not loaded, but its body was laid out on its way in and kept by
    the layout cache (up to 1,500, ~26 KB each): 387 bodies for 161 rows after the 1,000,000-message
    soak (bench_memory.py), growing."""
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(2, 402, 2)])
    read_up_to(qtbot, qloop, session, 400)
    view = make_view(qtbot, bridge)
    model = view.model()
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    offset = model._offset
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in (3, 5, 7)])
    qtbot.waitUntil(lambda: model._offset == offset + 3, timeout=5000)  # counted above the loaded rows, not shown
    shown = {model.entry(row).key for row in range(model.rowCount())}
    assert set(view.message_delegate.layouts._documents) <= shown


def test_a_room_opens_at_its_first_unread_and_jump_returns_there(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 451)])
    read_up_to(qtbot, qloop, session, 100)
    view = make_view(qtbot, bridge)
    model = view.model()
    row = model.first_unread_row()  # 350 unread: the page read in starts at the first of them
    assert model.entry(row).seq == 101
    qtbot.waitUntil(lambda: view.visualRect(model.index(row)).top() in range(0, 4), timeout=5000)
    for _ in range(3):  # reading on, down past the first unread (at the bottom it would all be read)
        qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert not view.at_bottom and view.visualRect(model.index(row)).bottom() < 0
    jump = view.findChild(object, "jumpToUnread")
    qtbot.waitUntil(jump.isVisible, timeout=5000)
    qtbot.mouseClick(jump, Qt.MouseButton.LeftButton)
    def first_unread_on_top() -> bool:
        row = model.first_unread_row()
        return row is not None and not model.loading and view.visualRect(model.index(row)).top() in range(0, 4)

    qtbot.waitUntil(first_unread_on_top, timeout=5000)


def test_failed_post_offers_retry_and_discard(qtbot, qloop, session, bridge):
    view = make_view(qtbot, bridge, "empty")
    failed = OutboxItem("c1", "empty", ({"kind": "text", "text": "hello"},), 1_700_000_000.0, OutboxStatus.FAILED, error="not a member of this room")
    session.emit(OutboxChanged(failed))
    model = view.model()
    assert model.rowCount() == 1
    layout = view.row_layout(model.index(0))
    assert layout.status_text == "Not sent: not a member of this room"
    top_left = view.visualRect(model.index(0)).topLeft()
    with qtbot.waitSignal(view.message_delegate.retryRequested) as retry:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=top_left + layout.buttons["retry"].center())
    assert retry.args == ["c1"]
    with qtbot.waitSignal(view.message_delegate.discardRequested) as discard:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=top_left + layout.buttons["discard"].center())
    assert discard.args == ["c1"]


def test_a_sent_post_whose_copy_is_not_stored_yet_is_shown_when_the_room_opens(qtbot, qloop, session, bridge):
    """Issue 47, item 2: a post the hub took while a catch-up still held its room's pages (its
    copy is stored after them) stays in the room when it is opened again meanwhile."""
    add_messages(qtbot, qloop, session, [message(1, "team", "older")])
    store_call(qtbot, qloop, session.store, LocalStore.set_sync_mark, "team", 1)
    post = OutboxItem("c1", "team", ({"kind": "text", "text": "mine"},), 1_700_000_000.0, OutboxStatus.SENT, message_id="m7", seq=7)
    store_call(qtbot, qloop, session.store, LocalStore.outbox_add, post)
    model = TimelineModel(bridge)
    view = TimelineView(model)
    qtbot.addWidget(view)
    view.resize(600, 400)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room("team")
    assert [(model.entry(row).text, view.row_layout(model.index(row)).status_text) for row in range(model.rowCount())] == [
        ("older", ""), ("mine", "Sent #7"),
    ]
    add_messages(qtbot, qloop, session, [message(7, "team", "mine", sender=ME)])  # its copy lands
    qtbot.waitUntil(lambda: model.rowCount() == 2 and model.entry(1).message is not None, timeout=5000)


def test_a_post_that_fails_after_being_shown_gets_its_buttons(qtbot, qloop, session, bridge):
    view = make_view(qtbot, bridge, "empty")
    model = view.model()
    pending = OutboxItem("c2", "empty", ({"kind": "text", "text": "hi"},), 1_700_000_000.0)
    session.emit(OutboxChanged(pending))
    assert view.row_layout(model.index(0)).status_text == "Sending…"
    session.emit(OutboxChanged(OutboxItem("c2", "empty", pending.parts, pending.created_at, OutboxStatus.FAILED, error="too large")))
    layout = view.row_layout(model.index(0))
    assert layout.status_text == "Not sent: too large" and set(layout.buttons) == {"retry", "discard"}


def build_log(lines: int) -> str:
    return "Build failed:\n\n```\n" + "\n".join(f"[{n:03}] cc -O2 -c src/module_{n}.c -o build/module_{n}.o" for n in range(lines)) + "\n```"


def test_a_long_message_is_folded_and_show_more_expands_it_then_show_less_folds_it(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(1, "team", "before"), message(2, "team", build_log(200)), message(3, "team", "after")])
    view = make_view(qtbot, bridge)
    model = view.model()
    long_row, line = model.index(1), view.fontMetrics().lineSpacing()
    assert view.toggle_link(model.index(0)) is None and view.toggle_link(model.index(2)) is None
    folded_height = view.visualRect(long_row).height()
    assert folded_height < 30 * line  # 200 lines of log take ~250 lines' height whole
    layout = view.row_layout(long_row)
    assert layout.folded and layout.toggle_text.startswith("Show more ▾ (") and "more lines)" in layout.toggle_text
    hidden = int(layout.toggle_text.split("(")[1].split()[0])
    assert 170 <= hidden <= 195

    view.scrollTo(long_row, QAbstractItemView.ScrollHint.PositionAtTop)
    link = view.toggle_link(long_row)
    assert view.viewport().rect().contains(link)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link.center())
    qtbot.waitUntil(lambda: view.visualRect(long_row).height() > 200 * line, timeout=5000)
    assert model.is_expanded(model.entry(1).key)

    view.resize(520, 400)  # a relayout at a new width keeps it expanded
    qtbot.waitUntil(lambda: view.message_delegate.row_width() < 560, timeout=5000)
    qtbot.waitUntil(lambda: view.visualRect(long_row).height() > 200 * line, timeout=5000)

    bar = view.verticalScrollBar()
    bar.setValue(bar.value() + view.toggle_link(long_row).top() - 200)  # "Show less" at the end of the log
    link = view.toggle_link(long_row)
    assert view.row_layout(long_row).toggle_text == "Show less ▴"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link.center())
    qtbot.waitUntil(lambda: view.visualRect(long_row).height() < 30 * line, timeout=5000)
    assert abs(view.toggle_link(long_row).top() - link.top()) <= 4  # "Show more" lands where "Show less" was


def test_enter_on_a_folded_message_expands_it(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(1, "team", build_log(60))] + [message(seq, "team") for seq in range(2, 8)])
    view = make_view(qtbot, bridge)
    model = view.model()
    view.setCurrentIndex(model.index(1))
    qtbot.keyClick(view, Qt.Key.Key_Return)  # a short message has nothing to expand
    assert not model.is_expanded(model.entry(1).key)
    view.setFocus()
    view.setCurrentIndex(model.index(0))
    folded = view.visualRect(model.index(0)).height()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).height() > 2 * folded, timeout=5000)
    qtbot.keyClick(view, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).height() == folded, timeout=5000)


def test_a_long_failed_post_is_folded_and_keeps_retry_and_discard(qtbot, qloop, session, bridge):
    view = make_view(qtbot, bridge, "empty")
    text = "\n\n".join(f"point {n} of my notes" for n in range(40))
    session.emit(OutboxChanged(OutboxItem("c3", "empty", ({"kind": "text", "text": text},), 1_700_000_000.0, OutboxStatus.FAILED, error="too large")))
    model = view.model()
    index = model.index(0)
    qtbot.waitUntil(lambda: view.visualRect(index).isValid() and view.visualRect(index).height() < 30 * view.fontMetrics().lineSpacing(), timeout=5000)
    layout = view.row_layout(index)
    assert layout.folded and set(layout.buttons) == {"retry", "discard"}
    assert layout.buttons["retry"].top() > layout.toggle.bottom()
    view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
    with qtbot.waitSignal(view.message_delegate.retryRequested) as retry:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).topLeft() + layout.buttons["retry"].center())
    assert retry.args == ["c3"]


def test_a_screen_reader_reads_the_timeline_as_a_list_of_messages(qtbot, qloop, session, bridge):
    add_messages(qtbot, qloop, session, [message(seq, "team", f"step {seq} done") for seq in range(1, 31)])
    read_up_to(qtbot, qloop, session, 30)
    view = make_view(qtbot, bridge)
    reader = QAccessible.queryAccessibleInterface(view)
    assert reader.role() == QAccessible.Role.List and reader.childCount() == 30
    names = [reader.child(row).text(QAccessible.Text.Name) for row in (0, 29)]
    assert [re.sub(r"\d\d:\d\d|\d\d \w+ \d\d:\d\d", "TIME", name) for name in names] == ["alice, planner, TIME: step 1 done", "alice, planner, TIME: step 30 done"]


def test_a_pushed_row_whose_paint_fails_ends_its_painter_and_the_view_paints_on(qtbot, qloop, session, bridge, caplog):
    """A bug met while painting one message (say, a body no one thought of) costs that row, not
    the window: the view logs it and shows a notice in its place (``row_failures``). The painter
    the failed paint had must end all the same: one left active leaves Qt's backing store being
    painted ("endPaint() called with active painter"), and Qt may crash when the painter is
    destroyed later. A new row is painted at once, from Python (``TimelineView._paint_now``)."""
    add_messages(qtbot, qloop, session, [message(seq, "team", f"step {seq} done") for seq in range(1, 31)])
    read_up_to(qtbot, qloop, session, 30)
    view = make_view(qtbot, bridge)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    delegate, model = view.message_delegate, view.model()
    paint_row = delegate.paint_row
    failed_with = []

    def failing_on_step_31(painter, option, rows, row, selected):
        if rows.entry(row).seq == 31:
            failed_with.append(painter)  # (held, as an error's traceback would hold it)
            raise ValueError("a body no one thought of")
        paint_row(painter, option, rows, row, selected)

    delegate.paint_row = failing_on_step_31
    with qtbot.capture_exceptions() as errors:
        add_messages(qtbot, qloop, session, [message(31, "team", "step 31 done")])
        qtbot.waitUntil(lambda: bool(failed_with), timeout=5000)
    assert errors == []  # handled by the view…
    logged = [record for record in caplog.records if record.exc_info and record.exc_info[0] is ValueError]
    assert len(logged) == 1 and str(logged[0].exc_info[1]) == "a body no one thought of"  # …and logged
    assert not failed_with[0].isActive()
    del delegate.paint_row  # the bug fixed: the class's own again
    with qtbot.capture_exceptions() as errors:
        add_messages(qtbot, qloop, session, [message(32, "team", "step 32 done")])
        qtbot.waitUntil(lambda: model.rowCount() == 32 and at_bottom(view), timeout=5000)
    assert errors == []
    row = view.viewport().grab(view.visualRect(model.index(31))).toImage()
    assert len({row.pixel(x, y) for x in range(row.width()) for y in range(row.height())}) > 1  # its text is there


def choose_from_the_menu_key(qtbot, view: TimelineView, row: int, label: str) -> None:
    """Make ``row`` current, press the Menu key, choose ``label`` (Return)."""
    view.setFocus()
    view.setCurrentIndex(view.model().index(row))
    QTest.keyClick(view, Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=2000)
    menu = QApplication.activePopupWidget()
    menu.setActiveAction(next(a for a in menu.actions() if a.text() == label))
    QTest.keyClick(menu, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)


def test_what_a_click_on_a_row_does_its_menu_offers_the_keyboard(qtbot, qloop, session, bridge):
    """No painted button is out of the keyboard's reach: a failed post's Retry and Discard, a
    file card's Save…, a body's links, a reply's "in reply to" are in the row's menu (the Menu
    key)."""
    file_part = {"kind": "com.parler.file", "blob": "b" * 64, "name": "report.pdf", "size": 2048}
    add_messages(qtbot, qloop, session, [
        message(1, "team", "the question"),
        replace(message(2, "team"), parts=({"kind": "text", "text": "the report"}, file_part)),
        message(3, "team", "the answer, see [the docs](https://docs.example.com/a) or file:///etc/passwd", reply_to="m1"),
        *(message(seq, "team") for seq in range(4, 31)),
    ])
    read_up_to(qtbot, qloop, session, 30)
    view = make_view(qtbot, bridge)
    session.emit(OutboxChanged(OutboxItem("c1", "team", ({"kind": "text", "text": "hello"},), 1_700_000_100.0, OutboxStatus.FAILED, error="too large")))
    model = view.model()
    assert model.rowCount() == 31
    with qtbot.waitSignal(view.message_delegate.retryRequested) as retry:
        choose_from_the_menu_key(qtbot, view, 30, "Retry sending")
    assert retry.args == ["c1"]
    with qtbot.waitSignal(view.message_delegate.discardRequested) as discard:
        choose_from_the_menu_key(qtbot, view, 30, "Discard")
    assert discard.args == ["c1"]
    with qtbot.waitSignal(view.message_delegate.saveRequested) as save:
        choose_from_the_menu_key(qtbot, view, 1, "Save “report.pdf (2.0 KiB)”…")
    assert save.args[0].file_name == "report.pdf"
    opened: list[QUrl] = []
    view.open_url = lambda url: opened.append(url) or True
    choose_from_the_menu_key(qtbot, view, 2, "Open link “https://docs.example.com/a”")
    assert opened == [QUrl("https://docs.example.com/a")]
    choose_from_the_menu_key(qtbot, view, 2, "Go to the message it replies to")
    qtbot.waitUntil(lambda: view.currentIndex().row() == 0, timeout=5000)


def test_the_rows_laid_out_for_a_room_go_when_another_is_shown(qtbot, qloop, session, bridge, monkeypatch):
    """Issue 42: the delegate's row sizes held up to 20,000 laid-out rows (each with its body's
    document) of every room shown, and the layout cache 1,500 bodies: a room scrolled back
    through was never given back."""
    from parler_desktop.ui.timeline import timeline_view

    add_messages(qtbot, qloop, session, [message(seq, "team") for seq in range(1, 200)])
    add_messages(qtbot, qloop, session, [message(seq, "other") for seq in range(200, 205)])
    read_up_to(qtbot, qloop, session, 199)
    view = make_view(qtbot, bridge)
    model = view.model()
    scroll_back_to_the_first(qtbot, view, timeout=10_000)
    sizes, layouts = view.message_delegate.sizes, view.message_delegate.layouts
    assert len(sizes._known) == 199 and len(layouts._documents) == 199
    monkeypatch.setattr(timeline_view, "KEPT_LAYOUTS", 50)
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.open_room("other")
    qtbot.waitUntil(lambda: len(sizes._known) == 5, timeout=5000)  # the rows of the room shown, only
    assert len(layouts._documents) <= 50 + 5 and len(layouts._rows) <= 50 + 5  # and the bodies used last
    with qtbot.waitSignal(model.roomLoaded, timeout=5000):
        model.load_latest()  # the same room again: what is known stays
    assert len(sizes._known) == 5
