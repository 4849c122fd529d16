"""Journeys: invites that need the owner's approval, in the real window on a real hub.

The person makes such an invite (Hub → Invite agents with approval…), sees who asked to join
(Hub → Join requests…) and approves or denies each with a click; or joins a gated room with a
code (Hub → Join with a code…), is told it waits, and the room opens once the owner approves (or
the window says it was turned away). The helpers are shared with tests/interop/, where the same
journeys run against the reference ``parler`` CLI on both hubs.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QInputDialog, QMessageBox
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_quitting import visible

from parler_desktop.protocol.values import SignatureState
from parler_desktop.ui.dialogs.join_requests_dialog import JoinRequestsDialog

pytestmark = pytest.mark.timeout(60)


def choose(qtbot, window, menu_title: str, item_text: str) -> None:
    """Click ``menu_title`` in the menu bar, then ``item_text`` in the menu it opens."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    item = next(a for a in menu.actions() if a.text().replace("&", "") == item_text)
    assert item.isEnabled(), item_text
    QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=5000)


def shown_box(qtbot, window, name: str, containing: str = "") -> QMessageBox:
    """The message box ``name`` the window shows (one whose text holds ``containing``)."""

    def found() -> QMessageBox | None:
        box = visible(window, QMessageBox, name)
        return box if box is not None and containing in box.text() else None

    qtbot.waitUntil(lambda: found() is not None, timeout=15_000)
    return found()


def ok(qtbot, box: QMessageBox) -> None:
    """Press the box's OK button, as a person does."""
    QTest.mouseClick(box.button(QMessageBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)


def new_room(qtbot, window, name: str) -> None:
    """Hub → New room…, the name typed, Enter: the room is made and opened, its invite shown."""
    choose(qtbot, window, "Hub", "New room…")
    qtbot.waitUntil(lambda: visible(window, QInputDialog, "newRoomDialog") is not None, timeout=5000)
    dialog = visible(window, QInputDialog, "newRoomDialog")
    qtbot.keyClicks(dialog.focusWidget(), name)
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.timeline_model.room == name, timeout=10_000)
    ok(qtbot, shown_box(qtbot, window, "inviteBox"))


def invite_with_approval(qtbot, window, room: str) -> str:
    """A new room ``room``, then Hub → Invite agents with approval…: the code the box shows."""
    new_room(qtbot, window, room)
    choose(qtbot, window, "Hub", "Invite agents with approval…")
    box = shown_box(qtbot, window, "inviteBox", "approve or deny it under Hub → Join requests…")
    code = re.search(r"clipboard\):\n\n(\S+)\n", box.text())[1]
    assert QGuiApplication.clipboard().text() == code
    ok(qtbot, box)
    return code


def open_join_requests(qtbot, window) -> JoinRequestsDialog:
    choose(qtbot, window, "Hub", "Join requests…")
    qtbot.waitUntil(lambda: visible(window, JoinRequestsDialog, "joinRequestsDialog") is not None, timeout=5000)
    return visible(window, JoinRequestsDialog, "joinRequestsDialog")


def listed(dialog: JoinRequestsDialog) -> list[str]:
    """The agent ids the dialog lists, top to bottom."""
    return [dialog.list.item(row).data(Qt.ItemDataRole.UserRole) for row in range(dialog.list.count())]


def answer(qtbot, dialog: JoinRequestsDialog, agent_id: str, approve: bool) -> None:
    """Click the agent's row, then Approve or Deny; wait until the hub's list no longer has it."""
    qtbot.waitUntil(lambda: agent_id in listed(dialog), timeout=10_000)
    row = listed(dialog).index(agent_id)
    rect = dialog.list.visualItemRect(dialog.list.item(row))
    QTest.mouseClick(dialog.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    button = dialog.approve_button if approve else dialog.deny_button
    qtbot.waitUntil(button.isEnabled, timeout=5000)
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.requests is not None and agent_id not in listed(dialog) and not dialog.answering, timeout=10_000)


def close(qtbot, dialog: JoinRequestsDialog) -> None:
    """Escape closes the dialog."""
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def join_with_code(qtbot, window, code: str) -> None:
    """Hub → Join with a code…, the code typed like a person, Enter."""
    choose(qtbot, window, "Hub", "Join with a code…")
    qtbot.waitUntil(lambda: visible(window, QInputDialog, "joinDialog") is not None, timeout=5000)
    dialog = visible(window, QInputDialog, "joinDialog")
    qtbot.keyClicks(dialog.focusWidget(), code)
    qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Return)


def members_shown(window) -> list[str]:
    roster = window.roster
    return [roster.index(row).data(Qt.ItemDataRole.DisplayRole) for row in range(roster.rowCount())]


def test_the_window_approves_one_join_request_and_denies_another(qtbot, qloop, desktop, peer, hub):
    window = desktop.window
    code = invite_with_approval(qtbot, window, "gated")
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob"))
    try:
        assert run_coroutine(qtbot, qloop, peer.ok({"op": "redeem", "code": code}, "join_pending"))["room"] == "gated"
        run_coroutine(qtbot, qloop, bob.ok({"op": "redeem", "code": code}, "join_pending"))
        dialog = open_join_requests(qtbot, window)
        qtbot.waitUntil(lambda: listed(dialog) == [peer.id, bob.id], timeout=10_000)  # oldest first
        assert dialog.list.item(0).text() == f"alice (planner) — {peer.id}"
        assert dialog.status.text() == "2 waiting to join gated:"

        answer(qtbot, dialog, peer.id, approve=True)
        assert dialog.status.text() == "alice is now a member of gated.\n1 waiting to join gated:"
        answer(qtbot, dialog, bob.id, approve=False)
        assert dialog.status.text() == "bob was turned away.\nNobody is waiting to join gated."
        assert not dialog.approve_button.isEnabled() and not dialog.deny_button.isEnabled()
        close(qtbot, dialog)

        assert run_coroutine(qtbot, qloop, peer.ok({"op": "redeem", "code": code}, "joined"))["room"] == "gated"
        refused = run_coroutine(qtbot, qloop, bob.request({"op": "redeem", "code": code}))
        assert refused["type"] == "error" and "denied" in refused["message"], refused
        qtbot.waitUntil(lambda: "alice" in members_shown(window), timeout=10_000)  # the members list, at once
        sent = run_coroutine(qtbot, qloop, peer.ok(
            {"op": "send", "target": {"kind": "room", "room": "gated"}, "parts": [{"kind": "text", "text": "in, thanks"}]}, "sent"))
        model = window.timeline_model
        qtbot.waitUntil(lambda: model.newest_seq == sent["seq"], timeout=10_000)
        assert model.entry(model.rowCount() - 1).text == "in, thanks"
    finally:
        run_coroutine(qtbot, qloop, bob.close())


def test_join_requests_of_a_room_the_window_does_not_own_say_why_not(qtbot, qloop, desktop, peer):
    from support.desktop_fixtures import join_room

    team = join_room(qtbot, qloop, desktop, peer, "team")  # alice's room
    window = desktop.window
    qtbot.waitUntil(lambda: window.timeline_model.room == team, timeout=10_000)
    dialog = open_join_requests(qtbot, window)
    qtbot.waitUntil(lambda: "owner" in dialog.status.text(), timeout=10_000)
    assert dialog.list.count() == 0 and dialog.status.text().endswith(".")


def test_the_window_waits_for_approval_then_opens_the_room_with_its_history(qtbot, qloop, desktop, peer):
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "gated", "requireApproval": True}, "invited"))
    before = run_coroutine(qtbot, qloop, peer.ok(
        {"op": "send", "target": {"kind": "room", "room": "gated"}, "parts": [{"kind": "text", "text": "before you came"}]}, "sent"))
    window = desktop.window
    join_with_code(qtbot, window, invited["code"])
    ok(qtbot, shown_box(qtbot, window, "roomActionMessage", "The owner of gated has to approve you first."))
    assert "gated" not in window.rooms.room_names()

    me = desktop.bridge.agent_id
    asked = run_coroutine(qtbot, qloop, peer.ok({"op": "join_requests", "room": "gated"}, "join_requests"))
    assert [(r["agent"], r["name"], r.get("role")) for r in asked["requests"]] == [(me, "boss", "supervisor")]
    run_coroutine(qtbot, qloop, peer.ok({"op": "resolve_join", "room": "gated", "agent": me, "approve": True}, "join_resolved"))
    model = window.timeline_model
    qtbot.waitUntil(lambda: model.room == "gated" and model.rowCount() == 1, timeout=15_000)
    assert (model.entry(0).seq, model.entry(0).text) == (before["seq"], "before you came")
    assert model.entry(0).signature is SignatureState.UNSIGNED  # raw, unsigned: as sent
    ok(qtbot, shown_box(qtbot, window, "roomActionMessage", "you are now a member of gated."))


def test_the_window_says_when_the_owner_denies_its_join_request(qtbot, qloop, desktop, peer):
    invited = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": "gated", "requireApproval": True}, "invited"))
    window = desktop.window
    join_with_code(qtbot, window, invited["code"])
    ok(qtbot, shown_box(qtbot, window, "roomActionMessage", "has to approve you first"))
    me = desktop.bridge.agent_id
    run_coroutine(qtbot, qloop, peer.ok({"op": "resolve_join", "room": "gated", "agent": me, "approve": False}, "join_resolved"))
    box = shown_box(qtbot, window, "roomActionMessage", "denied")
    assert box.windowTitle() == "Not admitted to gated" and box.icon() == QMessageBox.Icon.Critical
    assert box.text() == "Your request to join was denied by the host."
    ok(qtbot, box)
    assert "gated" not in window.rooms.room_names()
