"""Journeys: what a supervisor sees of agents' messages in the real window on a real hub,
selecting and copying part of one, and a message that trips a bug in painting."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QHelpEvent, QMouseEvent, QTextCursor, QTextFormat
from PySide6.QtWidgets import QApplication, QToolTip
from support.desktop_fixtures import activate, click_room, join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_ui_timeline_speed import on_screen, settle

from parler_desktop.app import roles
from parler_desktop.app.timeline.timeline_entry import TimelineEntry, row_context
from parler_desktop.protocol.canonical import SignatureState, sign_parts
from parler_desktop.protocol.values import RoomTarget
from parler_desktop.ui.timeline.inline_markdown import inline_runs
from parler_desktop.ui.timeline.message_delegate import MessageDelegate
from parler_desktop.ui.timeline.message_layout import PAD

pytestmark = pytest.mark.timeout(60)


def rows(window) -> int:
    return window.timeline_model.rowCount()


def tooltip_at(view, point: QPoint) -> str:
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)))
    text = QToolTip.text()
    QToolTip.hideText()
    return text


def row_point(view, row: int, local: QPoint) -> QPoint:
    return view.visualRect(view.model().index(row)).topLeft() + local


def shown_alone(qtbot, qloop, desktop, peer, text: str):  # noqa: ANN201
    """The window and its timeline, with ``text`` posted by ``peer`` as the only message of the
    room the supervisor clicked."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    post_as(qtbot, qloop, peer, team, text)
    qtbot.waitUntil(lambda: rows(window) == 1, timeout=5000)
    return window, window.timeline


def post_as_newcomer(qtbot, qloop, hub, peer: RawAgent, room: str, name: str, role: str, text: str) -> None:  # noqa: ANN001
    """A new agent named ``name`` joins ``room`` on ``peer``'s invite, posts ``text`` and leaves."""
    newcomer = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name=name, role=role))
    try:
        invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": room}, "invited"))
        run_coroutine(qtbot, qloop, newcomer.ok({"op": "redeem", "code": invited["code"]}, "joined"))
        post_as(qtbot, qloop, newcomer, room, text)
    finally:
        run_coroutine(qtbot, qloop, newcomer.close())


def signed_send(qtbot, qloop, agent: RawAgent, room: str, text: str, tamper: str | None = None) -> dict:
    parts = list(sign_parts(agent.id, RoomTarget(room), [{"kind": "text", "text": text}], None, agent.identity.sign))
    if tamper is not None:
        parts[0] = {"kind": "text", "text": tamper}
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": parts}
    return run_coroutine(qtbot, qloop, agent.ok(frame, "sent"))


def test_line_breaks_grouping_roles_and_times_read_as_in_a_chat(qtbot, qloop, desktop, peer, hub):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view = desktop.window, desktop.window.timeline
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    post_as(qtbot, qloop, peer, team, "plan:\nrotate the keys\nship the login page")
    post_as(qtbot, qloop, peer, team, "and one more thing")
    post_as_newcomer(qtbot, qloop, hub, peer, team, "dana", "dana", "agreed")
    qtbot.waitUntil(lambda: rows(window) == 3, timeout=5000)
    first, second, third = (view.row_layout(window.timeline_model.index(r)) for r in range(3))
    assert first.body.toPlainText().splitlines() == ["plan:", "rotate the keys", "ship the login page"]
    assert not first.context.grouped and second.context.grouped and not third.context.grouped  # one header for alice
    assert second.time_rect is None and third.time_rect is not None
    assert first.context.day == "Today" and not second.context.day
    header = first.time_rect
    assert header.left() > view.fontMetrics().horizontalAdvance("alice planner")  # alice's role shows…
    assert third.time_rect.left() < view.fontMetrics().horizontalAdvance("dana dana ")  # …dana's ("dana") does not
    tip = tooltip_at(view, row_point(view, 0, first.time_rect.center()))
    assert time.strftime("%Y") in tip and ":" in tip and "day" in tip  # e.g. "Tuesday 01 December 2026, 00:46:07"
    qtbot.waitUntil(lambda: "3 members" in window.room_title.text().split("  ·  "), timeout=5000)  # dana joined and spoke


def test_pointing_below_the_last_message_shows_no_tooltip(qtbot, qloop, desktop, peer):
    window, view = shown_alone(qtbot, qloop, desktop, peer, "the only message")
    below = view.visualRect(window.timeline_model.index(0)).bottomLeft() + QPoint(20, 40)
    assert below.y() < view.viewport().height() and not view.indexAt(below).isValid()
    assert tooltip_at(view, below) == ""  # (and no error from the delegate, asked about no row)


def test_a_date_separator_sits_above_the_first_message_of_a_day():
    def entry(ts_ms: int, sender: str = "U1") -> TimelineEntry:
        return TimelineEntry("k", "r", 1, "k", sender, "alice", None, ts_ms, (), (), None, False)

    # Noon today, not the clock's time: in the first minute after midnight a minute earlier was
    # yesterday, and the test failed.
    today = time.localtime()
    now = int(time.mktime((today.tm_year, today.tm_mon, today.tm_mday, 12, 0, 0, 0, 0, -1)) * 1000)
    assert row_context(entry(now - 3 * 86_400_000), entry(now), False).day == "Today"
    assert row_context(entry(now - 60_000), entry(now), False).grouped
    assert not row_context(entry(now - 600_000), entry(now), False).grouped  # ten minutes apart
    assert not row_context(entry(now - 60_000), entry(now), True).grouped  # the divider starts a new group


def test_verified_is_quiet_and_an_invalid_signature_is_loud(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view = desktop.window, desktop.window.timeline
    activate(qtbot, desktop)
    click_room(qtbot, desktop, team)
    signed_send(qtbot, qloop, peer, team, "all checks passed")
    signed_send(qtbot, qloop, peer, team, "looks fine", tamper="go ahead and drop the table")
    qtbot.waitUntil(lambda: rows(window) == 2, timeout=5000)
    model = window.timeline_model
    good, bad = view.row_layout(model.index(0)), view.row_layout(model.index(1))
    assert good.signature is SignatureState.VALID and good.band is None
    assert "Verified: signed by the sender" in tooltip_at(view, row_point(view, 0, good.icon_rect.center()))
    assert bad.signature is SignatureState.INVALID and bad.band is not None and bad.band.width() == view.viewport().width()
    assert bad.body is None and bad.toggle_text == "Show anyway"  # the suspect text is not shown
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(view, 1, bad.toggle.center()))
    qtbot.waitUntil(lambda: view.row_layout(model.index(1)).body is not None, timeout=5000)
    assert view.row_layout(model.index(1)).body.toPlainText() == "go ahead and drop the table"
    assert view.row_layout(model.index(1)).band is not None  # still marked while shown


def test_code_is_shaded_and_its_long_lines_wrap(qtbot, qloop, desktop, peer):
    long_line = "cc -O2 " + " ".join(f"src/module_{n}.c" for n in range(60))
    window, view = shown_alone(qtbot, qloop, desktop, peer, f"log:\n```\n{long_line}\n```\nrun `make check`")
    body = view.row_layout(window.timeline_model.index(0)).body
    assert body.size().width() <= view.viewport().width()  # nothing runs off to the right…
    code = body.findBlock(body.toPlainText().index("cc -O2"))
    assert code.layout().lineCount() > 1  # …the long line wraps
    assert code.blockFormat().hasProperty(QTextFormat.Property.BackgroundBrush)
    inline = body.findBlock(body.toPlainText().index("make check"))
    assert any(it.fragment().charFormat().hasProperty(QTextFormat.Property.BackgroundBrush) for it in _iterate(inline))


def _iterate(block):
    it = block.begin()
    while not it.atEnd():
        yield it
        it += 1


def test_clicking_in_reply_to_goes_to_the_original(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view = desktop.window, desktop.window.timeline
    original = post_as(qtbot, qloop, peer, team, "the original question")
    for n in range(25):
        post_as(qtbot, qloop, peer, team, f"chatter {n}\nsecond line")
    post_as(qtbot, qloop, peer, team, "my answer", replyTo=original["id"])
    click_room(qtbot, desktop, team)
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 27, timeout=5000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    last = model.rowCount() - 1
    qtbot.waitUntil(lambda: view.viewport().rect().contains(view.visualRect(model.index(last))), timeout=5000)
    assert view.visualRect(model.index(0)).bottom() < 0  # the original is scrolled away
    reply = view.row_layout(model.index(last)).reply_rect
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(view, last, reply.center() - QPoint(reply.width() // 2 - 20, 0)))
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).top() in range(-2, 40), timeout=5000)
    assert view.currentIndex().row() == 0 and model.entry(0).text == "the original question"


def test_cards_expand_and_the_room_list_says_what_a_part_is(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window, view = desktop.window, desktop.window.timeline
    click_room(qtbot, desktop, team)
    tool = {"kind": "com.parler.observation", "tool_name": "bash", "status": "ok", "input": "pytest -q", "output": "885 passed"}
    run_coroutine(qtbot, qloop, peer.ok({"op": "send", "target": {"kind": "room", "room": team}, "parts": [tool]}, "sent"))
    handoff = {"kind": "com.parler.handoff", "next": "review the login PR", "to": "dana"}
    run_coroutine(qtbot, qloop, peer.ok({"op": "send", "target": {"kind": "room", "room": team}, "parts": [handoff]}, "sent"))
    qtbot.waitUntil(lambda: rows(window) == 2, timeout=5000)
    qtbot.waitUntil(lambda: "handoff → dana: review the login PR" in window.rooms.summary(team).last_preview, timeout=5000)
    model = window.timeline_model
    card = view.row_layout(model.index(0)).cards[0]
    assert not card.expanded and card.card.detail == "ok"
    folded = view.visualRect(model.index(0)).height()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(view, 0, card.box.center()))
    qtbot.waitUntil(lambda: view.visualRect(model.index(0)).height() > folded, timeout=5000)
    opened = view.row_layout(model.index(0)).cards[0]
    assert opened.expanded and "input: pytest -q" in opened.card.more and "output: 885 passed" in opened.card.more


def test_part_of_a_message_is_selected_with_the_mouse_and_copied(qtbot, qloop, desktop, peer):
    window, view = shown_alone(qtbot, qloop, desktop, peer, "deploy the build to staging tonight")
    layout = view.row_layout(window.timeline_model.index(0))
    line = layout.body.begin().layout().lineAt(0)
    y = layout.body_top + int(line.y() + line.height() / 2)
    start_x = 8 + round(line.cursorToX(7)[0])  # before "the build"
    end_x = 8 + round(line.cursorToX(16)[0])  # after it
    start, end = row_point(view, 0, QPoint(start_x, y)), row_point(view, 0, QPoint(end_x, y))
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    # QTest moves the pointer without a button held: the drag is sent as the event a mouse makes
    drag = QMouseEvent(QEvent.Type.MouseMove, QPointF(end), view.viewport().mapToGlobal(QPointF(end)), Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view.viewport(), drag)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert view.selected_text() == "the build"
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "the build"


def first_line_looks(body) -> list[tuple[str, int, bool, bool, bool]]:
    """Each character of the body's first line with its weight, italics, fixed pitch and shading."""
    line, cursor, looks = body.begin().text().split("\u2028")[0], QTextCursor(body), []
    for position, character in enumerate(line):
        cursor.setPosition(position + 1)  # the format of the character before the cursor
        look = cursor.charFormat()
        looks.append((character, look.fontWeight(), look.fontItalic(), look.fontFixedPitch(), look.hasProperty(QTextFormat.Property.BackgroundBrush)))
    return looks


def test_an_everyday_line_looks_the_same_typed_alone_or_with_a_second_line(qtbot, qloop, desktop, peer):
    """Sent as one line, a message's document is built without Qt's Markdown importer; with a
    second line, through it. The human types the first, an agent sends the second: the same
    words are strong, emphasised and shaded alike."""
    line = "the **build** is green, *maybe* `test_x_y` too"
    assert inline_runs(line) is not None and inline_runs(line + "\nsecond") is None  # one way each
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    composer = window.composer.edit
    qtbot.keyClicks(composer, line)
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    assert run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))["parts"][0]["text"] == line
    post_as(qtbot, qloop, peer, team, line + "\n(and a second line)")
    model = window.timeline_model
    qtbot.waitUntil(lambda: rows(window) == 2 and model.entry(0).message is not None, timeout=10_000)
    typed, sent = (first_line_looks(window.timeline.row_layout(model.index(row)).body) for row in (0, 1))
    assert typed == sent
    assert "".join(c for c, weight, *_ in typed if weight > 400) == "build"
    assert "".join(c for c, _, italic, *_ in typed if italic) == "maybe"
    assert "".join(c for c, *_, fixed, shaded in typed if fixed and shaded) == "test_x_y"
    assert not any(shaded for c, *_, shaded in typed if c not in "test_x_y")


def test_a_shift_enter_line_break_survives_posting_and_rendering(qtbot, qloop, desktop, peer):
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    composer = window.composer.edit
    qtbot.keyClicks(composer, "step one done")
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer, "step two next")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    delivered = run_coroutine(qtbot, qloop, peer.recv_delivery(timeout=10))
    assert delivered["parts"][0]["text"] == "step one done\nstep two next"
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).message is not None, timeout=10_000)
    body = window.timeline.row_layout(model.index(0)).body
    assert body.toPlainText().splitlines() == ["step one done", "step two next"]


def test_a_message_that_trips_a_bug_in_painting_costs_only_its_own_row(qtbot, qloop, desktop, peer, monkeypatch):
    """A bug in painting one message used to leave every row below it blank, the newest included,
    for as long as it was on screen. Now that row says it could not be shown, the rows below and
    those arriving later are painted, and the error box shows the failure once."""
    paint_body = MessageDelegate._paint_body

    def trips_on_one(delegate, painter, option, entry, layout, tint):  # noqa: ANN001, ANN202
        if "trips a bug" in entry.text:
            painter.save()  # left unrestored, as a paint that raises midway leaves it
            painter.translate(0, 10_000)
            raise ValueError("a bug in painting this message")
        paint_body(delegate, painter, option, entry, layout, tint)

    monkeypatch.setattr(MessageDelegate, "_paint_body", trips_on_one)
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    view = window.timeline
    for text in ("before it", "this one trips a bug", "after it"):
        post_as(qtbot, qloop, peer, team, text)
    qtbot.waitUntil(lambda: rows(window) == 3, timeout=10_000)
    qtbot.waitUntil(lambda: desktop.errors.box is not None and desktop.errors.box.isVisible(), timeout=5000)
    assert "ValueError: a bug in painting this message" in desktop.errors.box.text()

    def painted(row: int) -> bool:
        """The row's pixels on screen are more than its background."""
        settle(view)
        image = on_screen(view).copy(view.visualRect(view.model().index(row)))
        return len({image.pixel(x, y) for x in range(0, image.width(), 2) for y in range(image.height())}) > 2

    assert painted(0) and painted(1) and painted(2)
    post_as(qtbot, qloop, peer, team, "and a new one while it is on screen")
    qtbot.waitUntil(lambda: rows(window) == 4, timeout=10_000)
    assert painted(3)
    view.viewport().repaint()
    assert "different errors" not in desktop.errors.box.text()  # one failure, however often painted


def test_the_first_message_of_an_empty_room_takes_the_place_of_no_messages_here_yet(qtbot, qloop, desktop, peer):
    """An empty room says so in the middle of the timeline. The first message's row was the only
    thing painted: "No messages here yet." stayed on screen below it."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    view = window.timeline
    qtbot.waitUntil(lambda: view.placeholder == "No messages here yet." and not window.timeline_model.loading, timeout=5000)
    settle(view)
    empty = on_screen(view)
    view.viewport().repaint()
    assert on_screen(view) == empty  # (the placeholder is on screen: painted afresh, it looks the same)
    post_as(qtbot, qloop, peer, team, "first words")
    qtbot.waitUntil(lambda: rows(window) == 1, timeout=10_000)
    settle(view)
    shown = on_screen(view)
    view.viewport().repaint()  # the whole timeline painted afresh
    assert on_screen(view) == shown


def test_bidirectional_and_control_characters_show_as_marks_in_the_order_sent(qtbot, qloop, desktop, peer, hub):
    """A right-to-left override made "\u202eelif.hs" read "sh.file", and an agent named
    "\u202etoor" read "root". Wherever the window shows a message or a name (the row, its
    accessible text, the room list; the members: ``test_app_models``), such controls and
    terminal escapes show as U+FFFD, in the order sent."""
    team = join_room(qtbot, qloop, desktop, peer, "team")
    window = desktop.window
    click_room(qtbot, desktop, team)
    post_as_newcomer(qtbot, qloop, hub, peer, team, "\u202etoor", "worker", "run \u202eelif.hs\u202c now \x1b[31mred")
    model = window.timeline_model
    qtbot.waitUntil(lambda: rows(window) == 1 and model.entry(0).message is not None, timeout=10_000)
    layout = window.timeline.row_layout(model.index(0))
    assert layout.body.toPlainText() == "run \ufffdelif.hs\ufffd now \ufffd[31mred"
    font, bold = window.timeline.font(), QFont(window.timeline.font())
    bold.setBold(True)
    name_ends = PAD + QFontMetrics(bold).horizontalAdvance("\ufffdtoor") + 8  # the name as painted
    assert layout.time_rect.left() == name_ends + QFontMetrics(font).horizontalAdvance("worker · ")  # the time's tooltip is on it
    assert model.index(0).data() == "\ufffdtoor: run \ufffdelif.hs\ufffd now \ufffd[31mred"
    rooms = window.rooms
    qtbot.waitUntil(lambda: rooms.index(rooms.room_names().index(team), 0).data(roles.ROOM_PREVIEW) == "\ufffdtoor: run \ufffdelif.hs\ufffd now \ufffd[31mred", timeout=5000)
    assert model.entry(0).text == "run \u202eelif.hs\u202c now \x1b[31mred"  # (kept as sent: copied, quoted, stored)
