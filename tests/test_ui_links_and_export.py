"""Links to messages and room export in the real window: Copy link puts a parler:// link on the
clipboard; that link clicked in a message, given at launch or by a later launch shows the
message; a link to another hub says so; a room exports to Markdown or NDJSON with progress, a
range included."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu
from support.desktop_fixtures import click_room, join_room, post_as, start_desktop, stop_desktop
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.stored_session import add_messages, message, session, store  # noqa: F401 - fixtures
from test_instance_channel import finished, home_of, later_launch
from test_ui_window import link_point

from parler_desktop.app.timeline.room_export import ExportFormat, export_room
from parler_desktop.client.message_link import message_link
from parler_desktop.instance_lock import lock_home
from parler_desktop.ui.desktop import DesktopApp

pytestmark = pytest.mark.timeout(60)


def choose_from_context_menu(qtbot, widget, point: QPoint, text: str) -> None:
    """Right-click ``point`` and click the menu item ``text``."""
    QApplication.sendEvent(widget, QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, widget.mapToGlobal(point)))
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=2000)
    menu = QApplication.activePopupWidget()
    action = next(a for a in menu.actions() if a.text() == text)
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def current_seq(window) -> int | None:
    entry = window.timeline_model.entry(window.timeline.currentIndex().row())
    return entry.seq if entry is not None else None


def test_copy_link_then_clicking_it_in_a_message_opens_that_message(qtbot, qloop, desktop, peer):
    ops = join_room(qtbot, qloop, desktop, peer, "ops")
    chat = join_room(qtbot, qloop, desktop, peer, "chat")
    wanted = post_as(qtbot, qloop, peer, ops, "the decision we need")
    for n in range(130):
        post_as(qtbot, qloop, peer, ops, f"later {n}")
    window = desktop.window
    click_room(qtbot, desktop, ops)
    model, view = window.timeline_model, window.timeline
    qtbot.waitUntil(lambda: wanted["id"] in {model.entry(r).message_id for r in range(model.rowCount())}, timeout=5000)
    row = next(r for r in range(model.rowCount()) if model.entry(r).seq == wanted["seq"])  # it opened at the first unread
    view.scrollTo(model.index(row))
    choose_from_context_menu(qtbot, view.viewport(), view.visualRect(model.index(row)).center(), "Copy link")
    link = QGuiApplication.clipboard().text()
    assert link == message_link(desktop.bridge.hub_url, ops, wanted["seq"]) and link.startswith("parler://127.0.0.1:")
    post_as(qtbot, qloop, peer, chat, f"see {link} for context")
    click_room(qtbot, desktop, chat)
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=5000)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link_point(view, 0, link))
    qtbot.waitUntil(lambda: model.room == ops and current_seq(window) == wanted["seq"], timeout=10_000)
    other_hub = link.replace("127.0.0.1", "127.0.0.2")
    desktop.message_links.open(other_hub)
    assert "another hub" in window.statusBar().currentMessage()


def test_open_on_launch_shows_the_message(qtbot, qloop, tmp_path: Path, hub, peer):
    first = start_desktop(qtbot, qloop, tmp_path / "home", hub.url)
    room = join_room(qtbot, qloop, first, peer, "ops")
    sent = post_as(qtbot, qloop, peer, room, "look here")
    qtbot.waitUntil(
        lambda: first.window.rooms.summary(room) is not None and first.window.rooms.summary(room).unread == 1,
        timeout=5000,
    )
    stop_desktop(qtbot, qloop, first)
    app = DesktopApp(first.home, hub.url, link=message_link(hub.url, room, sent["seq"]))
    task = qloop.create_task(app.run())
    try:
        qtbot.waitUntil(
            lambda: app.window.timeline_model.room == room and current_seq(app.window) == sent["seq"], timeout=15_000
        )
    finally:
        app.quit()
        qtbot.waitUntil(task.done, timeout=15_000)
        app.window.deleteLater()


def test_a_message_link_opened_by_a_later_launch_shows_it_in_the_running_window(qtbot, qloop, desktop, peer):
    room = join_room(qtbot, qloop, desktop, peer, "ops")
    sent = post_as(qtbot, qloop, peer, room, "this one")
    post_as(qtbot, qloop, peer, room, "not this one")
    qtbot.waitUntil(lambda: (s := desktop.window.rooms.summary(room)) is not None and s.unread == 2, timeout=5000)
    assert desktop.links.instances.listen()
    with lock_home(desktop.home):  # as the running window holds it
        code, err = finished(qtbot, later_launch(home_of(desktop), message_link(desktop.bridge.hub_url, room, sent["seq"])))
    assert code == 0, err
    qtbot.waitUntil(lambda: desktop.window.timeline_model.room == room and current_seq(desktop.window) == sent["seq"], timeout=10_000)


def test_export_a_room_to_ndjson_and_markdown_from_the_room_menu(
    qtbot, qloop, desktop, peer, tmp_path: Path
):
    room = join_room(qtbot, qloop, desktop, peer, "ops")
    sent = [post_as(qtbot, qloop, peer, room, f"line **{n}**") for n in range(5)]
    window = desktop.window
    qtbot.waitUntil(
        lambda: window.rooms.summary(room) is not None and window.rooms.summary(room).unread == 5, timeout=5000
    )
    target = tmp_path / "ops.ndjson"
    dialog = desktop.attention.room_menu.export(room)
    dialog.format.setCurrentIndex(dialog.format.findData(ExportFormat.NDJSON))
    dialog.first.setValue(sent[1]["seq"])
    dialog.last.setValue(sent[3]["seq"])
    QTest.keyClick(dialog, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.save_as is not None and dialog.save_as.isVisible(), timeout=5000)
    name = dialog.save_as.findChild(QLineEdit, "fileNameEdit")  # the file dialog's name field
    name.setText(str(target))  # (typed, its completer's popup would take the Return)
    QTest.keyClick(name, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: target.exists() and dialog.task.done(), timeout=10_000)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["seq"] for line in lines] == [s["seq"] for s in sent[1:4]]
    assert lines[0]["parts"] == [{"kind": "text", "text": "line **1**"}]
    assert window.statusBar().currentMessage() == f"Exported 3 messages of {room} to {target}"


def test_export_pages_through_a_big_room_with_progress_and_cancel_leaves_no_file(
    qtbot, qloop, session, store, tmp_path: Path
):
    add_messages(qtbot, qloop, session, [message(seq, "big", f"message {seq}") for seq in range(1, 2501)])
    seen: list[tuple[int, int]] = []
    target = tmp_path / "big.md"
    count = run_coroutine(
        qtbot,
        qloop,
        export_room(store, "big", target, ExportFormat.MARKDOWN, progress=lambda d, t: seen.append((d, t))),
    )
    assert count == 2500 and seen == [(1000, 2500), (2000, 2500), (2500, 2500)]
    text = target.read_text()
    assert text.startswith("# big\n") and text.count("\n---\n") == 2501 and "**alice** (planner) · " in text
    assert "message 2500" in text and not (tmp_path / "big.md.part").exists()
    cancelled = tmp_path / "cancelled.md"

    async def cancel_after_first_page() -> None:
        task = asyncio.current_task()
        await export_room(store, "big", cancelled, ExportFormat.MARKDOWN, progress=lambda d, t: task.cancel())

    with pytest.raises(asyncio.CancelledError):
        run_coroutine(qtbot, qloop, cancel_after_first_page())
    assert not cancelled.exists() and not (tmp_path / "cancelled.md.part").exists()
