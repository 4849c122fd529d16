"""Agents at a glance in the real window: the room list's dot for the most urgent agent state,
the room header's warnings (what waits on the human there, from Needs you; a loop) and the loop's
notification (governed by the rules), on a clock the test moves."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest
from support.desktop_fixtures import activate, click_room, join_room, post_as
from support.private_bus import bus_address, needs_dbus, server, settled, watching  # noqa: F401 - fixtures
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.app import roles
from parler_desktop.app.needs_you.needs_rules import NeedKind
from parler_desktop.app.room_list.agent_activity import AgentState
from parler_desktop.app.attention.attention_settings import Level, with_level
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.room_list.agent_glance import dot_rect

pytestmark = [needs_dbus, pytest.mark.timeout(60)]


def task(qtbot, qloop, peer, room: str, status: str) -> dict:
    part = {"kind": "com.parler.task", "status": status, "task": "migrate-db"}
    return post_as(qtbot, qloop, peer, room, f"task {status}", parts=[{"kind": "text", "text": f"task {status}"}, part])


def dot_colour(desktop, room: str) -> QColor:
    """The colour in the middle of the room's dot, as painted in the room list."""
    panel = desktop.window.room_panel
    row = next(r for r in range(panel.proxy.rowCount()) if panel.proxy.index(r, 0).data(roles.ROOM_NAME) == room)
    rect = panel.view.visualRect(panel.proxy.index(row, 0))
    line = panel.view.fontMetrics().height()
    image = panel.view.viewport().grab().toImage()
    return image.pixelColor(dot_rect(rect, line).center())


def test_the_dots_and_the_warning_above_the_timeline_say_what_the_queue_says(qtbot, qloop, server, watching, peer, hub):
    """The dots and the warning above the timeline say what the Needs you queue says (design.md
    §4b), not the first guess (any "awaiting" waits on the human, any quiet worker is stuck): an
    agent quiet on someone else's task, and a question on someone else's task, are no item."""
    window = watching.window
    work = join_room(qtbot, qloop, watching, peer, "work")
    other = join_room(qtbot, qloop, watching, peer, "other")
    agents, needs = watching.attention.agents, window.needs
    offset = [0.0]
    agents.clock = needs.clock = lambda: time.time() + offset[0]  # the hub stamps messages with this machine's clock
    bar = watching.attention.hint_bar
    waiting = QColor(theme.colours.agent_dots[AgentState.WAITING])
    task_on(qtbot, qloop, peer, work, "someone-elses-request", "awaiting", "which db?")  # a question, not to the human
    task(qtbot, qloop, peer, work, "working")  # someone else's task ("migrate-db" is no message of the human's)
    qtbot.waitUntil(lambda: dot_colour(watching, work) == QColor(theme.colours.agent_dots[AgentState.WORKING]), timeout=5000)
    asked = human_request(qtbot, qloop, watching.bridge, peer, other, "please migrate the db")
    task_on(qtbot, qloop, peer, other, asked, "awaiting", "which db?")  # waits on the human (§4b): Needs you says so
    qtbot.waitUntil(lambda: dot_colour(watching, other) == waiting, timeout=5000)
    assert [(f.item.kind, f.item.room) for f in needs.items()] == [(NeedKind.QUESTION, other)]
    click_room(qtbot, desktop=watching, room=other)
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert bar.text() == "⚠ alice (planner) waits on you: Question — which db? · waiting under 1 min (Ctrl+I opens Needs you)"

    offset[0] = 11 * 60  # eleven minutes without a word from the worker on "migrate-db": not the human's work
    needs.refresh()
    agents.watch(hub.url).check()  # (what their timers do)
    click_room(qtbot, desktop=watching, room=work)
    assert not bar.isVisible() and [f.item.room for f in needs.items()] == [other]  # no warning the queue does not hold
    assert dot_colour(watching, work) == QColor(theme.colours.agent_dots[AgentState.WORKING])

    activate(qtbot, watching)  # the human comes to the window and answers in the queue
    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    view = window.needs_you.view
    qtbot.waitUntil(view.list.hasFocus, timeout=5000)
    QTest.keyClick(view.list, Qt.Key.Key_R)
    qtbot.keyClicks(view.composer, "postgres")
    QTest.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not needs.items(), timeout=10_000)
    qtbot.waitUntil(lambda: dot_colour(watching, other) != waiting, timeout=5000)  # answered: not waiting any more

    indexing = human_request(qtbot, qloop, watching.bridge, peer, other, "please index everything")
    task_on(qtbot, qloop, peer, other, indexing, "working")
    offset[0] = 16 * 60  # silent on the human's work for 16 minutes (from its "working"): §4b's item, and the warning
    needs.refresh()
    agents.watch(hub.url).check()
    qtbot.waitUntil(lambda: [f.item.kind for f in needs.items()] == [NeedKind.SILENT], timeout=5000)
    qtbot.waitUntil(lambda: dot_colour(watching, other) == waiting, timeout=5000)
    click_room(qtbot, desktop=watching, room=other)
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert bar.text() == "⚠ alice has posted nothing for 16 min on your request: it may be stuck"
    qtbot.waitUntil(lambda: settled(watching) and any("Silent on your work" in s.summary for s in server.shown.values()), timeout=10_000)
    assert [s.summary for s in server.shown.values() if "stuck" in s.summary] == []  # told once, by Needs you alone

    QTest.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(view.list.hasFocus, timeout=5000)
    QTest.keyClick(view.list, Qt.Key.Key_D)  # acknowledged: the queue, the dot and the warning all clear
    qtbot.waitUntil(lambda: not needs.items(), timeout=5000)
    qtbot.waitUntil(lambda: dot_colour(watching, other) != waiting, timeout=5000)
    click_room(qtbot, desktop=watching, room=other)
    assert not bar.isVisible()


def test_two_agents_in_a_loop_are_flagged_unless_the_room_is_muted(qtbot, qloop, server, watching, peer, hub):
    chat = join_room(qtbot, qloop, watching, peer, "chat")
    muted = join_room(qtbot, qloop, watching, peer, "muted")
    preferences = watching.attention.preferences
    preferences.update(with_level(preferences.current(), hub.url, muted, Level.NONE))
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob", role="coder"))
    try:
        for room in (chat, muted):
            code = run_coroutine(qtbot, qloop, peer.ok({"op": "invite", "kind": "channel", "room": room}, "invited"))[
                "code"
            ]
            run_coroutine(qtbot, qloop, bob.ok({"op": "redeem", "code": code}))
            for n in range(21):
                post_as(qtbot, qloop, peer if n % 2 else bob, room, f"round {n}")
        agents = watching.attention.agents
        qtbot.waitUntil(
            lambda: [h.kind for h in agents.hints(hub.url, chat)] == ["loop"]
            and [h.kind for h in agents.hints(hub.url, muted)] == ["loop"],
            timeout=10_000,
        )
        qtbot.waitUntil(lambda: settled(watching), timeout=5000)
        assert [(s.summary, s.body) for s in server.shown.values()] == [
            (
                f"{chat}: agents may be in a loop",
                "alice and bob exchanged 21 messages in 5 min without a human: a loop?",
            )
        ]
    finally:
        run_coroutine(qtbot, qloop, bob.close())
