"""What a screen reader finds in the real window, read through Qt's accessibility interface
(``QAccessible``: what AT-SPI, UI Automation and NSAccessibility are served from): every visible
control named, rows that say what a sighted person reads off them, and live changes announced."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAccessibleActionInterface, QAccessibleInterface
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QWidget
from support.desktop_fixtures import activate, click_action, click_room, join_room, post_as, row_menu, start_desktop, stop_desktop
from support.peer_ops import hub_history
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.ui import accessibility

pytestmark = pytest.mark.timeout(60)

Role = QAccessible.Role
CONTROLS = {
    Role.Button, Role.CheckBox, Role.RadioButton, Role.ComboBox, Role.EditableText, Role.List, Role.ListItem,
    Role.Table, Role.Tree, Role.TreeItem, Role.PageTab, Role.Slider, Role.SpinBox, Role.Link, Role.MenuItem,
    Role.Grip, Role.ButtonMenu, Role.ButtonDropDown,
}  # what a person acts on (text, panels and scroll bars are read or passed through)
NAME = QAccessible.Text.Name
TIME = r"(?:\d\d \w+ )?\d\d:\d\d"  # a message's time as its header shows it (the date too, once it is not today)


def walk(interface: QAccessibleInterface | None) -> Iterator[QAccessibleInterface]:
    """``interface`` and every shown descendant (a hidden one's subtree is not on screen)."""
    if interface is None or not interface.isValid() or interface.state().invisible:
        return
    yield interface
    for number in range(interface.childCount()):
        yield from walk(interface.child(number))


def unnamed_controls(top: QWidget) -> list[str]:
    """Controls on screen without a name: in the accessible tree of ``top``, and among its
    shown widgets (an overlay on a list's viewport is not in the list's tree)."""
    found = list(walk(QAccessible.queryAccessibleInterface(top)))
    found += [QAccessible.queryAccessibleInterface(w) for w in top.findChildren(QWidget) if w.isVisible()]
    return sorted(
        {
            f"{iface.role().name} {type(iface.object()).__name__ if iface.object() else 'item'} {iface.rect()}"
            for iface in found
            if iface is not None and iface.role() in CONTROLS and not iface.text(NAME).strip()
        }
    )


def terse_buttons(top: QWidget) -> list[str]:
    """Buttons on screen named in one word (Send, Done…) that say no more in a description."""
    buttons = [i for i in walk(QAccessible.queryAccessibleInterface(top)) if i.role() == Role.Button]
    return [i.text(NAME) for i in buttons if len(i.text(NAME).split()) == 1 and not i.text(QAccessible.Text.Description)]


def item_named(view: QWidget, start: str) -> QAccessibleInterface:
    """The child of ``view``'s accessible list whose name begins with ``start``."""
    names = []
    for child in walk(QAccessible.queryAccessibleInterface(view)):
        names.append(child.text(NAME))
        if child.role() == Role.ListItem and child.text(NAME).startswith(start):
            return child
    raise AssertionError(f"no item named {start!r}… in {names}")


@pytest.fixture
def other_hub(hub_factory):
    return hub_factory()


@pytest.fixture
def two_hubs(qtbot, qloop, tmp_path: Path, hub, other_hub):
    """The window holding ``other_hub`` first and ``hub`` second, shown (headings in the room list)."""
    app = start_desktop(qtbot, qloop, tmp_path / "home", hub.url, beside=other_hub.url)
    yield app
    stop_desktop(qtbot, qloop, app)


@pytest.fixture
def listening():
    """A screen reader listening (Qt's accessibility active, as once one has asked for the tree):
    only then do views tell the tree of their rows' changes, which keeps its items current."""
    QAccessible.setActive(True)
    yield
    QAccessible.setActive(False)


def type_and_send(qtbot, window, text: str) -> None:
    window.composer.edit.setFocus()
    qtbot.keyClicks(window.composer.edit, text)
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)


def test_every_visible_control_of_the_window_and_the_search_has_a_name(qtbot, qloop, two_hubs, peer):
    desktop = two_hubs
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "build")
    click_room(qtbot, desktop, room)
    post_as(qtbot, qloop, peer, room, "over to you", parts=[
        {"kind": "text", "text": "over to you"}, {"kind": "com.parler.handoff", "next": "review the notes", "to": "boss"},
    ])
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    window.composer.set_reply(window.timeline_model.entry(0))  # its ✕ shows
    window.timeline.setCurrentIndex(window.timeline_model.index(0))  # the request's buttons show
    qtbot.waitUntil(window.request_bar.isVisible, timeout=2000)
    window.resize(1100, 700)
    assert unnamed_controls(window) == []
    assert terse_buttons(window) == []
    state = QAccessible.queryAccessibleInterface(window.findChild(QWidget, "connectionText"))
    assert state.text(NAME).startswith("Connected to ") and "<" not in state.text(QAccessible.Text.Description)  # no tooltip markup
    assert QAccessible.queryAccessibleInterface(window.composer.edit).text(NAME) == "Message"
    assert QAccessible.queryAccessibleInterface(window.composer).text(NAME) == "Composer"  # its group, as the panels are named
    assert QAccessible.queryAccessibleInterface(window.room_panel.filter).text(NAME) == "Filter rooms"
    window.room_panel.filter.setText("bu")  # its clear button shows
    assert unnamed_controls(window) == []
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: any(w.objectName() == "searchDialog" and w.isVisible() for w in window.findChildren(QWidget)), timeout=5000)
    dialog = next(w for w in window.findChildren(QWidget) if w.objectName() == "searchDialog")
    qtbot.keyClicks(dialog.query, "over")
    qtbot.waitUntil(lambda: dialog.results.model().rowCount() == 1, timeout=5000)
    assert unnamed_controls(dialog) == []
    combos = [i for i in walk(QAccessible.queryAccessibleInterface(dialog)) if i.role() == Role.ComboBox]
    labels = {i.object().objectName(): [label.text(NAME) for label, _ in i.relations(QAccessible.RelationFlag.Label)] for i in combos}
    assert labels == {"searchRoom": ["Room"], "searchKind": ["Kind"]}  # AT-SPI names a combo box by its value: the label says what it is
    (result,) = [i for i in walk(QAccessible.queryAccessibleInterface(dialog.results)) if i.role() == Role.ListItem]
    place = f"build on {window.shown_hub.label}, alice"
    assert re.fullmatch(rf"{place}, \d{{4}}-\d\d-\d\d \d\d:\d\d: over to you review the notes boss", result.text(NAME))  # no marks
    dialog.close()


def test_rows_read_what_a_sighted_person_sees(qtbot, qloop, hub, two_hubs, peer, listening):
    """Room rows with their counts (a handoff to the human's role counts as a mention, as on its
    badge) and their agents' dot, a hub's heading with its connection line, members with their
    presence and role, messages as rendered
    with their author, time and cards, the human's own posts with their state."""
    desktop, window = two_hubs, two_hubs.window
    build = join_room(qtbot, qloop, desktop, peer, "build")
    other = join_room(qtbot, qloop, desktop, peer, "other")
    click_room(qtbot, desktop, other)
    post_as(qtbot, qloop, peer, build, "the **build** is `green` now")
    post_as(qtbot, qloop, peer, build, "@boss have a look", mentions=["boss"])
    post_as(qtbot, qloop, peer, build, "next.", parts=[
        {"kind": "text", "text": "next."}, {"kind": "com.parler.handoff", "next": "review the release notes", "to": "supervisor"},
    ])
    rooms = window.room_panel.view
    qtbot.waitUntil(lambda: window.rooms.summary(build) is not None and window.rooms.summary(build).unread == 3, timeout=10_000)
    # the handoff to the human's role is a Needs you item: the row's dot says so too
    qtbot.waitUntil(lambda: item_named(rooms, "build").text(NAME) == "build, 3 unread, 2 mentions, an agent is waiting on you", timeout=10_000)
    label = window.shown_hub.label
    assert item_named(rooms, f"{label} hub").text(NAME) == f"{label} hub, Live as boss, 3 unread, 2 mentions"
    assert item_named(rooms, "build").text(QAccessible.Text.Description).startswith("alice: ")  # its preview
    asked = human_request(qtbot, qloop, window.bridge, peer, other, "please deploy")  # a question on the human's request waits on them
    task_on(qtbot, qloop, peer, other, asked, "awaiting", "which region?")
    qtbot.waitUntil(lambda: item_named(rooms, "other").text(NAME) == "other, an agent is waiting on you", timeout=5000)  # its dot

    click_room(qtbot, desktop, build)
    assert QAccessible.queryAccessibleInterface(window.timeline).text(NAME) == "Messages in build"
    window.resize(1300, 800)  # the members panel shows
    qtbot.waitUntil(lambda: item_named(window.roster_panel.view, "alice").text(NAME) == "alice, idle, planner", timeout=5000)
    timeline = window.timeline
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 3, timeout=5000)
    assert re.fullmatch(rf"alice, planner, {TIME}: the build is green now", item_named(timeline, "alice").text(NAME))
    names = [QAccessible.queryAccessibleInterface(timeline).child(row).text(NAME) for row in range(3)]
    assert re.fullmatch(rf"alice, planner, {TIME}, mentions you: @boss have a look", names[1])
    assert re.fullmatch(rf"alice, planner, {TIME}, mentions you: next\. handoff to supervisor: review the release notes", names[2])

    type_and_send(qtbot, window, "hello **you**")
    mine = lambda: QAccessible.queryAccessibleInterface(timeline).child(window.timeline_model.rowCount() - 1).text(NAME)  # noqa: E731
    qtbot.waitUntil(lambda: re.fullmatch(rf"boss, supervisor, you, {TIME}, sent: hello you", mine()) is not None, timeout=10_000)
    hub.stop()
    qtbot.waitUntil(lambda: not desktop.bridge.is_live, timeout=10_000)
    qtbot.waitUntil(lambda: "Live" not in item_named(rooms, f"{label} hub").text(NAME), timeout=10_000)
    type_and_send(qtbot, window, "later")
    qtbot.waitUntil(lambda: re.fullmatch(rf"boss, you, {TIME}, queued, waiting for the connection: later", mine()) is not None, timeout=10_000)


def test_new_messages_and_connection_changes_are_announced(qtbot, qloop, two_hubs, other_hub, peer, listening):
    desktop, window = two_hubs, two_hubs.window
    room = join_room(qtbot, qloop, desktop, peer, "build")
    click_room(qtbot, desktop, room)
    activate(qtbot, desktop)
    with qtbot.waitSignal(window.timeline.announcer.announced, timeout=10_000) as said:
        post_as(qtbot, qloop, peer, room, "the **build** is green now")
    assert re.fullmatch(rf"alice, planner, {TIME}: the build is green now", said.args[0])
    heard: list[str] = []
    window.timeline.announcer.announced.connect(heard.append)
    for step in range(6):  # a burst is announced at most once a second, not message by message
        post_as(qtbot, qloop, peer, room, f"step {step}")
    qtbot.waitUntil(lambda: any("step 5" in sentence for sentence in heard), timeout=10_000)
    assert len(heard) <= 2 and heard[-1].endswith("step 5"), heard  # (two: a slow machine straddling a second)
    other = desktop.hubs.entries[0]
    with qtbot.waitSignal(window.connection_announcements.announcer.announced, timeout=15_000) as said:
        other_hub.stop()
    assert said.args[0].startswith(f"{other.label}: ") and "Live" not in said.args[0]


def test_a_requests_actions_are_buttons_a_screen_reader_presses(qtbot, qloop, desktop, peer, listening):
    """The current message is a handoff to the human: its Reply / Hand back / Done are in the
    tree as buttons; pressing Done through the accessibility interface answers it once."""
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    click_room(qtbot, desktop, room)
    request = post_as(qtbot, qloop, peer, room, "over to you", parts=[
        {"kind": "text", "text": "over to you"}, {"kind": "com.parler.handoff", "next": "review the release notes", "to": "boss"},
    ])
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    buttons = lambda: {i.text(NAME): i for i in walk(QAccessible.queryAccessibleInterface(window)) if i.role() == Role.Button}  # noqa: E731
    assert "Done" not in buttons()  # no request is the current message yet
    window.timeline.setFocus()
    QTest.keyClick(window.timeline, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.timeline.currentIndex().row() == 0, timeout=2000)
    qtbot.waitUntil(lambda: {"Reply", "Hand back", "Done"} <= buttons().keys(), timeout=2000)
    asks = "alice asks you: handoff to boss: review the release notes"
    assert window.request_bar.label.full_text == asks
    assert asks in [i.text(NAME) for i in walk(QAccessible.queryAccessibleInterface(window.request_bar))]
    window.activateWindow()
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Tab)  # next in the layout's order: the bar's first button
    assert QApplication.focusWidget() is window.request_bar.buttons["Reply"]
    done = buttons()["Done"]
    assert done.text(QAccessible.Text.Description) == "Done: alice's request"
    actions = done.actionInterface()
    assert QAccessibleActionInterface.pressAction() in actions.actionNames()
    actions.doAction(QAccessibleActionInterface.pressAction())
    answers = lambda: [m for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m.get("replyTo") == request["id"]]  # noqa: E731
    qtbot.waitUntil(lambda: len(answers()) == 1, timeout=10_000)
    qtbot.waitUntil(lambda: "Done" not in buttons(), timeout=5000)  # answered: the actions go
    assert answers()[0]["parts"][0] == {"kind": "text", "text": "@alice done: review the release notes"}
    again = post_as(qtbot, qloop, peer, room, "and this", parts=[
        {"kind": "text", "text": "and this"}, {"kind": "com.parler.handoff", "next": "rotate the keys", "to": "boss"},
    ])
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 3, timeout=5000)
    timeline = QAccessible.queryAccessibleInterface(window.timeline)
    timeline.selectionInterface().select(timeline.child(2))  # as a screen reader selects an item
    qtbot.waitUntil(lambda: "Hand back" in buttons(), timeout=2000)
    buttons()["Hand back"].actionInterface().doAction(QAccessibleActionInterface.pressAction())
    qtbot.waitUntil(lambda: [m for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m.get("replyTo") == again["id"]] != [], timeout=10_000)


def test_the_dialogs_name_every_control(qtbot, qloop, desktop, peer):
    """Each dialog the window opens, opened as a person does (its menu item or button)."""
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "build")
    click_room(qtbot, desktop, room)
    click_action(qtbot, row_menu(qtbot, desktop, room), "Export…")
    QTest.mouseClick(window.findChild(QWidget, "handoffButton"), Qt.MouseButton.LeftButton)
    menus = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions() if a.menu() is not None}
    hub_items = {a.text().replace("&", ""): a for a in menus["Hub"].actions()}
    for item in ("Join requests…", "Connect your agents…", "Connect…"):
        hub_items[item].trigger()
    next(a for a in menus["Notifications"].actions() if a.text().replace("&", "").startswith("Notification settings")).trigger()
    opened = lambda: {type(d).__name__: d for d in QApplication.topLevelWidgets() if isinstance(d, QDialog) and d.isVisible()}  # noqa: E731
    expected = {"ExportDialog", "HandoffDialog", "JoinRequestsDialog", "ConnectAgentsDialog", "ConnectDialog", "NotificationSettingsDialog"}
    qtbot.waitUntil(lambda: expected <= opened().keys(), timeout=5000)
    assert {name: unnamed_controls(dialog) for name, dialog in opened().items()} == {name: [] for name in opened()}
    for dialog in opened().values():
        dialog.close()


def test_announcements_before_qt_6_8_change_the_description(qtbot, monkeypatch, listening):
    """Without QAccessibleAnnouncementEvent the sentence becomes the widget's accessible
    description (with its change event), which a screen reader following it reads."""
    monkeypatch.setattr(accessibility, "_ANNOUNCEMENT", None)
    widget = QWidget()
    qtbot.addWidget(widget)
    announcer = accessibility.Announcer(widget)
    with qtbot.waitSignal(announcer.announced) as said:
        announcer.say("local: Live as boss")
    assert said.args == ["local: Live as boss"]
    assert QAccessible.queryAccessibleInterface(widget).text(QAccessible.Text.Description) == "local: Live as boss"


def test_a_cards_details_open_from_the_keyboard_and_are_read(qtbot, qloop, desktop, peer, listening):
    """A card with more to say opens from the message's menu (what a click on it does), and its
    details are then read with the message."""
    window = desktop.window
    room = join_room(qtbot, qloop, desktop, peer, "ops")
    click_room(qtbot, desktop, room)
    post_as(qtbot, qloop, peer, room, "status", parts=[
        {"kind": "text", "text": "status"}, {"kind": "com.parler.task", "status": "working", "task": "deploy-42", "note": "halfway"},
    ])
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 1, timeout=5000)
    row = lambda: QAccessible.queryAccessibleInterface(window.timeline).child(0).text(NAME)  # noqa: E731
    assert row().endswith("status. task working (deploy-42), halfway")
    window.activateWindow()
    window.timeline.setFocus()
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.timeline.currentIndex().row() == 0, timeout=2000)
    QTest.keyClick(window.windowHandle(), Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=2000)
    menu = QApplication.activePopupWidget()
    (details,) = [a for a in menu.actions() if a.text().startswith("Show the details of")]
    assert details.text() == "Show the details of “task working (deploy-42)”"
    menu.setActiveAction(details)
    QTest.keyClick(menu, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "note: halfway" in row(), timeout=2000)
    assert row().endswith("task working (deploy-42), note: halfway, status: working, task: deploy-42")
