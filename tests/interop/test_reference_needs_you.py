"""Needs you with the reference agent CLI (``parler``), on our hub and on the reference hub: a
``parler handoff --for supervisor`` and a ``parler task awaiting`` on the human's own request are
counted in the title and cleared from the queue with the keyboard; ``parler recv`` prints each
answer once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

from test_reference_agent import refbot_in_open_room
from test_reference_handoff import recv_after
from test_window import type_and_enter

pytestmark = pytest.mark.timeout(90)


def test_a_reference_agents_handoff_and_question_are_cleared_from_the_queue(qtbot, qloop, desktop, ref_agent, hub):
    agent, team = refbot_in_open_room(qtbot, qloop, desktop, ref_agent, hub)
    window = desktop.window
    model = window.timeline_model
    type_and_enter(qtbot, window, "please deploy it")
    qtbot.waitUntil(lambda: (e := model.entry(model.rowCount() - 1)) is not None and e.mine and e.message_id is not None, timeout=10_000)
    request = model.entry(model.rowCount() - 1).message_id
    run_coroutine(qtbot, qloop, agent.ok("handoff", "--room", team, "--next", "rotate the keys", "--for", "supervisor"))
    run_coroutine(qtbot, qloop, agent.ok("task", "awaiting", "--room", team, "--task", request, "--note", "which region?"))
    qtbot.waitUntil(lambda: window.windowTitle().startswith("Parler — 2 need you"), timeout=10_000)

    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    view = window.needs_you.view
    qtbot.waitUntil(view.list.hasFocus, timeout=5000)
    QTest.keyClick(view.list, Qt.Key.Key_D)  # the handoff: done
    QTest.keyClick(view.list, Qt.Key.Key_R)  # the question: a reply
    qtbot.waitUntil(view.composer.hasFocus, timeout=2000)
    qtbot.keyClicks(view.composer, "eu-west-1")
    QTest.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "need you" not in window.windowTitle(), timeout=10_000)
    lines = [line.split(" ", 1)[1] for line in recv_after(qtbot, qloop, agent, team, 5)]
    assert lines.count("boss (supervisor): @refbot done: rotate the keys") == 1, lines
    assert lines.count("boss (supervisor): eu-west-1") == 1, lines
