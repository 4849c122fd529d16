"""Names a hostile hub gives its rooms, through the real window (issue 47, items 5 and 6).

The hub is the real one behind a proxy (``support/hostile_hub.py``) that calls a room by the
hostile name in everything it answers and pushes, and takes that name back for the real one in
what the window asks: the window meets a hub whose room is called so, and works with it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtGui
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent, QImage, QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QLineEdit, QPushButton, QToolTip
from support.desktop_fixtures import click_action, click_room, row_menu, start_desktop, stop_desktop, user_home  # noqa: F401 - fixture
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_rendering import row_point

from parler_desktop.app import roles
from parler_desktop.protocol.parts import FileRef

pytestmark = pytest.mark.timeout(60)

REAL_NAME = "named-by-the-hub"  # what the real hub behind the proxy calls the room


class RenamedRoom(Misbehaviour):
    """The hub calls its room ``REAL_NAME`` by ``shown`` in every reply and push, and takes
    ``shown`` for ``REAL_NAME`` in requests."""

    def __init__(self, shown: str, send_refusal: str | None = None) -> None:
        self.shown = shown
        self.send_refusal = send_refusal  # the error every send is answered with (None: sends go through)

    def request(self, link: Link, frame: dict[str, Any]) -> list | None:
        if frame.get("op") == "send" and self.send_refusal is not None:
            return [{"type": "error", "message": self.send_refusal}]
        frame.update(_renamed(frame, self.shown, REAL_NAME))
        return None

    def reply(self, link: Link, reply: dict[str, Any], request: dict[str, Any] | None) -> list:
        return [_renamed(reply, REAL_NAME, self.shown)]

    def push(self, link: Link, delivery: dict[str, Any]) -> list:
        return [_renamed(delivery, REAL_NAME, self.shown)]


def _renamed(value: Any, old: str, new: str) -> Any:
    """``value`` with every string ``old`` in it (at any depth) made ``new``."""
    if isinstance(value, dict):
        return {key: _renamed(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return new if value == old else value


@pytest.fixture
def room_named(qtbot, qloop, hub, tmp_path: Path, user_home: Path) -> Iterator[Callable[..., tuple[Any, RawAgent]]]:
    """``room_named(name, send_refusal=None)``: a window on a hub that calls the window's one
    room ``name`` (and refuses every send with ``send_refusal``, if given), that room open
    (clicked in the room list), and the agent that made the room (on the real hub: there the
    room is ``REAL_NAME``)."""
    opened: list[tuple[Any, HostileHub, RawAgent]] = []

    def make(name: str, send_refusal: str | None = None) -> tuple[Any, RawAgent]:
        owner = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="owner"))
        invited = run_coroutine(qtbot, qloop, owner.ok({"op": "invite", "kind": "channel", "room": REAL_NAME}, "invited"))
        proxy = HostileHub.in_thread(hub.url, RenamedRoom(name, send_refusal))
        app = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url)
        opened.append((app, proxy, owner))
        run_coroutine(qtbot, qloop, app.bridge.session.redeem(invited["code"]))
        qtbot.waitUntil(lambda: name in app.window.rooms.room_names(), timeout=15_000)
        click_room(qtbot, app, name)
        return app, owner

    yield make
    for app, proxy, owner in opened:
        stop_desktop(qtbot, qloop, app)
        proxy.stop()
        run_coroutine(qtbot, qloop, owner.close())


def shown_tooltip(qtbot, widget) -> str:
    """Hover ``widget`` (a tooltip event at its middle) and return the tooltip's text as a reader
    sees it (rich text rendered, as Qt renders what looks like HTML)."""
    middle = widget.rect().center()
    QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, middle, widget.mapToGlobal(middle)))
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    text = QToolTip.text()
    if QtGui.Qt.mightBeRichText(text):  # (QtGui adds it to the Qt namespace)
        document = QTextDocument()
        document.setHtml(text)
        text = document.toPlainText()
    return text


def tooltip_label() -> Any:
    return next(w for w in QApplication.topLevelWidgets() if w.objectName() == "qtooltip_label" and w.isVisible())


def test_a_room_named_with_a_megabyte_of_text_keeps_the_window_on_screen(qtbot, room_named):
    name = "long-" + "W" * 1_000_000
    app, _owner = room_named(name)
    window = app.window
    screen = window.screen().availableGeometry()
    qtbot.waitUntil(lambda: window.room_title.text() != "", timeout=5000)
    QApplication.processEvents()
    assert window.width() <= screen.width()  # was 32,767 px
    assert window.room_title.minimumSizeHint().width() <= screen.width()
    for widget in (window.room_panel, window.composer, window.composer.findChild(QPushButton, "sendButton")):
        right = widget.mapTo(window, QPoint(widget.width(), 0)).x()
        assert right <= window.width(), widget.objectName()  # Send, the sidebar: on screen
    shown = window.room_title.text()
    assert shown.startswith("long-WWW") and len(shown) < 1000  # elided, not the whole megabyte
    title = window.room_title
    assert shown.endswith("…") and title.fontMetrics().horizontalAdvance(shown) <= title.contentsRect().width()  # its "…" inside the padding
    view = window.room_panel.view
    row = next(r for r in range(view.model().rowCount()) if view.model().index(r, 0).data(roles.ROOM_NAME) == name)
    listed = view.model().index(row, 0).data(Qt.ItemDataRole.DisplayRole)  # laid out at every paint of the list
    assert listed.startswith("long-WWW") and listed.endswith("…") and len(listed) <= 120


def test_a_room_named_with_html_shows_it_as_text_and_loads_no_file(qtbot, room_named, tmp_path: Path):
    canary = tmp_path / "canary.png"
    image = QImage(400, 400, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(canary))
    name = f'<b>bold</b><img src="{canary.as_uri()}">'
    app, _owner = room_named(name)
    title = app.window.room_title
    assert title.textFormat() == Qt.TextFormat.PlainText and title.text().startswith('<b>bold</b><img src="file:')
    assert shown_tooltip(qtbot, title).startswith(f"{name}  ·  ")  # the tags as written, not rendered (then its kind, members, cost)
    assert tooltip_label().height() < 100  # no 400 px canary inside it
    QToolTip.hideText()
    view = app.window.room_panel.view
    row = next(r for r in range(view.model().rowCount()) if view.model().index(r, 0).data(roles.ROOM_NAME) == name)
    tip = view.model().index(row, 0).data(Qt.ItemDataRole.ToolTipRole)
    document = QTextDocument()
    document.setHtml(tip)
    assert document.toPlainText().startswith(name)


def test_a_room_named_with_a_right_to_left_override_reads_in_its_own_order(qtbot, room_named):
    name = "rtl-\u202egpj.exe"
    app, _owner = room_named(name)
    view = app.window.room_panel.view
    row = next(r for r in range(view.model().rowCount()) if view.model().index(r, 0).data(roles.ROOM_NAME) == name)
    listed = view.model().index(row, 0).data(Qt.ItemDataRole.DisplayRole)
    title = app.window.room_title.text()
    for shown in (listed, title, shown_tooltip(qtbot, app.window.room_title)):
        assert "\u202e" not in shown and "rtl-\ufffdgpj.exe" in shown  # the override shown, not obeyed
    QToolTip.hideText()


def test_export_of_a_room_named_as_a_path_proposes_a_bare_name_in_downloads(qtbot, room_named, tmp_path: Path, user_home: Path):
    escaped = tmp_path / "escaped"
    name = "../" * 16 + str(escaped).lstrip("/")  # from any working directory: tmp_path/escaped
    app, _owner = room_named(name)
    menu = row_menu(qtbot, app, name)
    click_action(qtbot, menu, "Export…")
    qtbot.waitUntil(lambda: app.window.findChild(QDialog, "exportDialog") is not None, timeout=2000)
    dialog = app.window.findChild(QDialog, "exportDialog")
    qtbot.waitUntil(dialog.isVisible, timeout=2000)
    QTest.keyClick(dialog, Qt.Key.Key_Return)  # Save
    qtbot.waitUntil(lambda: dialog.save_as is not None and dialog.save_as.isVisible(), timeout=5000)
    downloads = user_home / "Downloads"
    assert Path(dialog.save_as.directory().absolutePath()) == downloads
    proposed = dialog.save_as.findChild(QLineEdit, "fileNameEdit").text()
    assert "/" not in proposed and ".." not in proposed and not proposed.startswith(".") and proposed.endswith(".md")
    QTest.keyClick(dialog.save_as.findChild(QLineEdit, "fileNameEdit"), Qt.Key.Key_Return)  # the second Enter
    qtbot.waitUntil(lambda: dialog.task is not None and dialog.task.done(), timeout=10_000)
    assert [p.name for p in downloads.iterdir()] == [proposed]
    assert not list(tmp_path.glob("escaped*"))


def test_a_shared_file_is_proposed_bare_in_downloads_then_in_the_folder_chosen_last(qtbot, qloop, room_named, tmp_path: Path, user_home: Path):
    app, owner = room_named("files")
    data = b"export PATH=/evil:$PATH\n"
    digest = hashlib.sha256(data).hexdigest()
    target = {"kind": "room", "room": REAL_NAME}
    run_coroutine(qtbot, qloop, owner.ok({"op": "put_blob", "sha256": digest, "size": len(data), "target": target}, "blob_ready"))
    run_coroutine(qtbot, qloop, owner.send_bytes(data))
    assert run_coroutine(qtbot, qloop, owner.recv())["type"] == "blob_stored"
    part = FileRef(blob=digest, name="../../.bashrc", size=len(data)).to_part()
    run_coroutine(qtbot, qloop, owner.ok({"op": "send", "target": target, "parts": [part]}, "sent"))
    window, view = app.window, app.window.timeline
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)

    def click_save() -> Any:
        save = view.row_layout(window.timeline_model.index(0)).cards[0].save
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(view, 0, save.center()))
        qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(QFileDialog, "saveAs")), timeout=5000)
        return next(d for d in window.findChildren(QFileDialog, "saveAs") if d.isVisible())

    dialog = click_save()
    assert Path(dialog.directory().absolutePath()) == user_home / "Downloads"
    name_field = dialog.findChild(QLineEdit, "fileNameEdit")
    assert name_field.text() == "bashrc"  # not a hidden file, not a path
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    name_field.setText(str(chosen / "profile.txt"))
    QTest.keyClick(name_field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: (chosen / "profile.txt").exists() and (chosen / "profile.txt").read_bytes() == data, timeout=10_000)
    again = click_save()
    assert Path(again.directory().absolutePath()) == chosen  # the folder the human chose last
    again.reject()


def test_a_megabyte_refusal_of_a_post_leaves_retry_on_screen(qtbot, room_named):
    app, _owner = room_named("team", send_refusal="refused " + "W" * 1_000_000)
    window, view = app.window, app.window.timeline
    qtbot.keyClicks(window.composer.edit, "hello")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.rowCount() == 1 and model.entry(0).is_failed, timeout=10_000)
    layout = view.row_layout(model.index(0))
    assert layout.status_text.startswith("Not sent: refused WWW") and layout.status_text.endswith("…")
    retry = layout.buttons["retry"].translated(view.visualRect(model.index(0)).topLeft())
    assert view.viewport().rect().contains(retry)  # was millions of pixels to the right
    with qtbot.waitSignal(view.message_delegate.retryRequested):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=retry.center())
