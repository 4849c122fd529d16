"""Acting on an agent's request from its card, in the real window against a real hub: Done and
Hand back each post exactly once (a second click finds no button), Reply opens the composer
replying to the request, and a task awaiting input offers the same."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from support.desktop_fixtures import click_room, join_room, post_as
from support.peer_ops import hub_history
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

pytestmark = pytest.mark.timeout(60)


def send_parts(qtbot, qloop, peer, room: str, text: str, part: dict) -> dict:
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": text}, part]}
    return run_coroutine(qtbot, qloop, peer.ok(frame, "sent"))


def handoff(next_step: str, to: str) -> dict:
    return {"kind": "com.parler.handoff", "next": next_step, "to": to}


def awaiting(task: str) -> dict:
    return {"kind": "com.parler.task", "status": "awaiting", "task": task, "note": "need an answer"}


def card_buttons(window, row: int) -> dict:
    view = window.timeline
    return view.row_layout(window.timeline_model.index(row)).cards[0].actions


def click_button(qtbot, window, row: int, label: str) -> None:
    view = window.timeline
    rect = card_buttons(window, row)[label]
    point = view.visualRect(window.timeline_model.index(row)).topLeft() + rect.center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def answers(qtbot, qloop, peer, room: str, request_id: str) -> list[dict]:
    return [m for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m.get("replyTo") == request_id]


def test_done_and_hand_back_post_once_through_the_outbox(qtbot, qloop, desktop, peer):
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    window = desktop.window
    click_room(qtbot, desktop, room)
    first = send_parts(qtbot, qloop, peer, room, "over to you", handoff("approve the schema patch", "boss"))
    second = send_parts(qtbot, qloop, peer, room, "and this", handoff("rotate the keys", "supervisor"))
    send_parts(qtbot, qloop, peer, room, "not yours", handoff("refactor", "carol"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 3, timeout=5000)
    assert list(card_buttons(window, 0)) == ["Reply", "Hand back", "Done"]
    assert list(card_buttons(window, 1)) == ["Reply", "Hand back", "Done"]  # addressed to my role
    assert card_buttons(window, 2) == {}
    done_button = card_buttons(window, 0)["Done"]
    click_button(qtbot, window, 0, "Done")
    qtbot.waitUntil(lambda: card_buttons(window, 0) == {}, timeout=5000)
    click_button(qtbot, window, 1, "Hand back")
    qtbot.waitUntil(
        lambda: len(answers(qtbot, qloop, peer, room, first["id"])) == 1
        and len(answers(qtbot, qloop, peer, room, second["id"])) == 1,
        timeout=10_000,
    )
    (done,) = answers(qtbot, qloop, peer, room, first["id"])
    assert done["parts"][0] == {"kind": "text", "text": "@alice done: approve the schema patch"}
    assert done["mentions"] == ["alice"]
    (back,) = answers(qtbot, qloop, peer, room, second["id"])
    handoffs = [p for p in back["parts"] if p["kind"] == "com.parler.handoff"]
    assert handoffs == [
        {
            "kind": "com.parler.handoff",
            "next": "rotate the keys",
            "summary": "handed back by the supervisor",
            "to": "alice",
        }
    ]
    qtbot.waitUntil(lambda: card_buttons(window, 1) == {}, timeout=5000)
    view = window.timeline
    where_done_was = view.visualRect(window.timeline_model.index(0)).topLeft() + done_button.center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where_done_was)
    assert not [task for task in desktop.bridge.tasks.tasks if task.get_name() == "window:post"]  # nothing was sent
    assert len(answers(qtbot, qloop, peer, room, first["id"])) == 1


def test_reply_prefills_the_composer_and_a_task_awaiting_input_offers_done(qtbot, qloop, desktop, peer):
    room = join_room(qtbot, qloop, desktop, peer, "builds")
    window = desktop.window
    click_room(qtbot, desktop, room)
    asked = send_parts(qtbot, qloop, peer, room, "which region?", awaiting("deploy-42"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    click_button(qtbot, window, 0, "Reply")
    composer = window.composer
    assert composer.edit.toPlainText() == "@alice "
    qtbot.keyClicks(composer.edit, "eu-west-1")
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, asked["id"])) == 1, timeout=10_000)
    (reply,) = answers(qtbot, qloop, peer, room, asked["id"])
    assert reply["parts"][0] == {"kind": "text", "text": "@alice eu-west-1"}
    qtbot.waitUntil(lambda: card_buttons(window, 0) == {}, timeout=5000)  # answered: the buttons go
    again = send_parts(qtbot, qloop, peer, room, "and now?", awaiting("deploy-43"))
    qtbot.waitUntil(
        lambda: window.timeline_model.entry(window.timeline_model.rowCount() - 1).message_id == again["id"],
        timeout=5000,
    )
    row = window.timeline_model.rowCount() - 1
    click_button(qtbot, window, row, "Done")
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, again["id"])) == 1, timeout=10_000)
    (done,) = answers(qtbot, qloop, peer, room, again["id"])
    assert [p for p in done["parts"] if p["kind"] == "com.parler.task"] == [
        {"kind": "com.parler.task", "status": "done", "task": "deploy-43"}
    ]


def test_a_reply_from_another_client_of_the_human_takes_the_buttons_away(qtbot, qloop, hub, desktop, peer):
    """The same human answers from elsewhere (the command line, another machine): the reply
    arrives as one of the human's own stored messages, and the request counts as answered."""
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    window = desktop.window
    click_room(qtbot, desktop, room)
    request = send_parts(qtbot, qloop, peer, room, "over to you", handoff("approve the schema patch", "boss"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    assert list(card_buttons(window, 0)) == ["Reply", "Hand back", "Done"]
    elsewhere = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, identity=desktop.bridge.session.identity, name="boss"))
    post_as(qtbot, qloop, elsewhere, room, "approved", replyTo=request["id"])
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 2, timeout=5000)
    qtbot.waitUntil(lambda: card_buttons(window, 0) == {}, timeout=5000)
    run_coroutine(qtbot, qloop, elsewhere.close())


def menu_choose(qtbot, label: str) -> None:
    """In the open popup menu, move down to ``label`` with the arrow keys and press Return."""
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=2000)
    menu = QApplication.activePopupWidget()
    labels = [a.text().replace("&", "") for a in menu.actions() if a.isEnabled() and not a.isSeparator()]
    assert label in labels, labels
    for _step in range(len(menu.actions())):
        if menu.activeAction() is not None and menu.activeAction().text().replace("&", "") == label:
            break
        QTest.keyClick(menu, Qt.Key.Key_Down)
    QTest.keyClick(menu, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=2000)


def down_to(qtbot, window, row: int) -> None:
    """Arrow down through the timeline (which has the focus) to ``row``."""
    assert window.timeline.hasFocus()
    for _step in range(window.timeline_model.rowCount()):
        if window.timeline.currentIndex().row() == row:
            return
        QTest.keyClick(window.windowHandle(), Qt.Key.Key_Down)
    assert window.timeline.currentIndex().row() == row


def test_done_from_the_keyboard_menu_of_a_selected_message(qtbot, qloop, desktop, peer):
    """Issue 46.3 as tried: the message selected by keyboard (Shift+Tab from the composer into
    the timeline, an arrow key), the Menu key, Done: the agent gets the answer once. Shift+F10
    and Enter open the same actions; a task awaiting input offers them too."""
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    window = desktop.window
    click_room(qtbot, desktop, room)
    request = send_parts(qtbot, qloop, peer, room, "over to you", handoff("review the release notes", "supervisor"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    window.activateWindow()
    window.composer.edit.setFocus()
    qtbot.waitUntil(window.composer.edit.hasFocus, timeout=2000)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    view = window.timeline
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Up)
    qtbot.waitUntil(lambda: view.currentIndex().row() == 0, timeout=2000)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Menu)
    menu_choose(qtbot, "Done")
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, request["id"])) == 1, timeout=10_000)
    (done,) = answers(qtbot, qloop, peer, room, request["id"])
    assert done["parts"][0] == {"kind": "text", "text": "@alice done: review the release notes"}
    qtbot.waitUntil(lambda: card_buttons(window, 0) == {}, timeout=5000)  # answered: the actions go

    asked = send_parts(qtbot, qloop, peer, room, "which region?", awaiting("deploy-42"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() >= 3, timeout=5000)
    row = next(r for r in range(window.timeline_model.rowCount()) if window.timeline_model.entry(r).message_id == asked["id"])
    down_to(qtbot, window, row)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    menu_choose(qtbot, "Hand back")
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, asked["id"])) == 1, timeout=10_000)
    assert len(answers(qtbot, qloop, peer, room, request["id"])) == 1  # the first answer went once

    again = send_parts(qtbot, qloop, peer, room, "and now?", awaiting("deploy-43"))
    qtbot.waitUntil(lambda: window.timeline_model.entry(window.timeline_model.rowCount() - 1).message_id == again["id"], timeout=5000)
    down_to(qtbot, window, window.timeline_model.rowCount() - 1)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Return)
    menu_choose(qtbot, "Done")
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, again["id"])) == 1, timeout=10_000)


def test_a_slow_click_on_done_at_the_bottom_of_a_long_room_answers(qtbot, qloop, desktop, peer):
    """A press on Done makes the request the current message, whose actions the bar under the
    timeline offers; the bar must not shift the rows under the pointer before the release."""
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    window = desktop.window
    click_room(qtbot, desktop, room)
    for n in range(30):
        post_as(qtbot, qloop, peer, room, f"line {n}")
    request = send_parts(qtbot, qloop, peer, room, "over to you", handoff("approve the schema patch", "boss"))
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 31, timeout=10_000)
    view = window.timeline
    qtbot.waitUntil(lambda: view.at_bottom and view.verticalScrollBar().maximum() > 0, timeout=5000)
    row = 30
    point = view.visualRect(window.timeline_model.index(row)).topLeft() + card_buttons(window, row)["Done"].center()
    held_at = view.viewport().mapToGlobal(point)  # the pointer stays there on the screen while held
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: view.currentIndex().row() == row, timeout=2000)
    for _turn in range(3):  # what the window does while a person holds the button: it lays out
        QApplication.sendPostedEvents()
        QApplication.processEvents()
    # (a warning line shown above the timeline meanwhile moves the viewport down, and the rows with it)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=view.viewport().mapFromGlobal(held_at))
    qtbot.waitUntil(lambda: len(answers(qtbot, qloop, peer, room, request["id"])) == 1, timeout=10_000)
