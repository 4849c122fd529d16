"""Hand-offs and task updates between a reference agent (``parler handoff``, ``parler task``) and
the window, on both hubs: the card shows with the actions of a request addressed to the human;
what the human answers with a click, and a hand-off made in the window, reach ``parler recv``
once, verified (no badge)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QPushButton
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog
from test_reference_agent import recv_lines, refbot_in_open_room
from test_ui_request_actions import card_buttons, click_button

pytestmark = pytest.mark.timeout(90)


def shown_live(qtbot, desktop, out: str) -> int:
    """The row of the message ``parler`` reports it sent (``seq N``), once the open room shows it."""
    seq = int(re.search(r"seq (\d+)", out)[1])
    model = desktop.window.timeline_model
    qtbot.waitUntil(lambda: model.newest_seq == seq, timeout=10_000)
    return model.rowCount() - 1


def recv_after(qtbot, qloop, agent, room: str, count: int) -> list[str]:
    """``parler recv``'s lines once it prints ``count`` of them."""
    lines: list[str] = []

    def printed() -> bool:
        lines[:] = recv_lines(qtbot, qloop, agent, room)
        return len(lines) >= count

    qtbot.waitUntil(printed, timeout=10_000)
    return lines


def test_a_reference_agents_handoffs_are_cards_the_human_answers_done_or_hands_back(qtbot, qloop, desktop, ref_agent, hub):
    agent, team = refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub)
    window = desktop.window
    first = shown_live(qtbot, desktop, run_coroutine(qtbot, qloop, agent.ok(
        "handoff", "--room", team, "--next", "approve the schema patch", "--summary", "built it", "--for", "boss",
    )))
    assert list(card_buttons(window, first)) == ["Reply", "Hand back", "Done"]  # addressed to the human's name
    second = shown_live(qtbot, desktop, run_coroutine(qtbot, qloop, agent.ok(
        "handoff", "--room", team, "--next", "rotate the keys", "--for", "supervisor",
    )))
    assert list(card_buttons(window, second)) == ["Reply", "Hand back", "Done"]  # to the human's role
    other = shown_live(qtbot, desktop, run_coroutine(qtbot, qloop, agent.ok(
        "handoff", "--room", team, "--next", "refactor", "--for", "carol",
    )))
    assert card_buttons(window, other) == {}

    click_button(qtbot, window, first, "Done")
    qtbot.waitUntil(lambda: card_buttons(window, first) == {}, timeout=10_000)
    click_button(qtbot, window, second, "Hand back")
    qtbot.waitUntil(lambda: card_buttons(window, second) == {}, timeout=10_000)
    lines = [line.split(" ", 1)[1] for line in recv_after(qtbot, qloop, agent, team, 5)]  # without "[seq]"
    assert lines == [
        "refbot: 🤝 handoff → boss: approve the schema patch  (done: built it)",
        "refbot: 🤝 handoff → supervisor: rotate the keys",
        "refbot: 🤝 handoff → carol: refactor",
        "boss (supervisor): @refbot done: approve the schema patch",
        "boss (supervisor): @refbot handing this back to you: rotate the keys"
        " 🤝 handoff → refbot: rotate the keys  (done: handed back by the supervisor)",
    ]  # each answer once, and verified by the reference (no ⚠ / ✗ UNVERIFIED)


def test_a_reference_agent_awaiting_input_gets_the_humans_reply(qtbot, qloop, desktop, ref_agent, hub):
    agent, team = refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub)
    window = desktop.window
    row = shown_live(qtbot, desktop, run_coroutine(qtbot, qloop, agent.ok(
        "task", "awaiting", "--room", team, "--task", "deploy-42", "--note", "which region?",
    )))
    assert "Reply" in card_buttons(window, row) and "Done" in card_buttons(window, row)
    click_button(qtbot, window, row, "Reply")
    composer = window.composer
    assert composer.edit.toPlainText() == "@refbot "
    qtbot.keyClicks(composer.edit, "eu-west-1")
    QTest.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: card_buttons(window, row) == {}, timeout=10_000)  # answered
    lines = recv_after(qtbot, qloop, agent, team, 2)
    assert lines[1].split(" ", 1)[1] == "boss (supervisor): @refbot eu-west-1", lines


def test_a_handoff_made_in_the_window_reaches_the_reference_agent(qtbot, qloop, desktop, ref_agent, hub):
    agent, team = refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub)
    window = desktop.window
    qtbot.waitUntil(lambda: window.roster.rowCount() == 2, timeout=10_000)  # refbot is offered as addressee
    qtbot.mouseClick(window.findChild(QPushButton, "handoffButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(isinstance(w, HandoffDialog) and w.isVisible() for w in QApplication.topLevelWidgets()))
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, HandoffDialog) and w.isVisible())
    dialog.to.setCurrentText("refbot")
    dialog.next.setFocus()
    qtbot.keyClicks(dialog.next, "ship the release notes")
    qtbot.keyClicks(dialog.summary, "reviewed the diff")
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    QTest.keyClick(window.composer.edit, Qt.Key.Key_Return)
    lines = recv_after(qtbot, qloop, agent, team, 1)
    assert [line.split(" ", 1)[1] for line in lines] == [
        "boss (supervisor): 🤝 handoff → refbot: ship the release notes  (done: reviewed the diff)"
    ], lines
