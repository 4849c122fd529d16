"""Agents at a glance in the real window: the room list's dot for the most urgent agent state,
the room header's stuck and loop warnings, and their notification (governed by the rules), on a
clock the test moves."""

from __future__ import annotations

import time

import pytest
from PySide6.QtGui import QColor
from support.desktop_fixtures import click_room, join_room, post_as
from support.private_bus import bus_address, needs_dbus, server, settled, watching  # noqa: F401 - fixtures
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent

from parler_desktop.app import roles
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


def test_states_show_as_dots_and_a_quiet_working_agent_is_flagged_once(qtbot, qloop, server, watching, peer, hub):
    work = join_room(qtbot, qloop, watching, peer, "work")
    other = join_room(qtbot, qloop, watching, peer, "other")
    agents = watching.attention.agents
    now = [0.0]
    agents.clock = lambda: now[0]
    posted_at = time.time()  # the hub stamps messages with its wall clock, this machine's
    task(qtbot, qloop, peer, work, "working")
    now[0] = posted_at + 60
    qtbot.waitUntil(lambda: agents.state(hub.url, work) is AgentState.WORKING, timeout=5000)
    assert agents.hints(hub.url, work) == ()
    asked = human_request(qtbot, qloop, watching.bridge, peer, other, "please migrate the db")
    task_on(qtbot, qloop, peer, other, asked, "awaiting", "which db?")  # waits on the human (§4b): Needs you says so
    qtbot.waitUntil(lambda: agents.state(hub.url, other) is AgentState.WAITING, timeout=5000)
    qtbot.waitUntil(lambda: dot_colour(watching, work) == QColor(theme.colours.agent_dots[AgentState.WORKING]), timeout=5000)
    assert dot_colour(watching, other) == QColor(theme.colours.agent_dots[AgentState.WAITING])
    now[0] = posted_at + 11 * 60  # eleven minutes without a word from the worker
    post_as(qtbot, qloop, peer, other, "meanwhile, elsewhere")  # any arrival makes the watch look again
    qtbot.waitUntil(lambda: [hint.kind for hint in agents.hints(hub.url, work)] == ["stuck"], timeout=5000)
    qtbot.waitUntil(
        lambda: settled(watching) and any("stuck" in s.summary for s in server.shown.values()), timeout=10_000
    )
    (stuck,) = [s for s in server.shown.values() if "stuck" in s.summary]
    assert (stuck.summary, stuck.body) == (
        f"{work}: an agent may be stuck",
        "alice has shown “working” for 11 min without a message: it may be stuck",
    )
    calls = server.notify_calls
    post_as(qtbot, qloop, peer, other, "and again")  # still stuck: not announced twice
    qtbot.waitUntil(lambda: "and again" in (watching.window.rooms.summary(other).last_preview or ""), timeout=5000)
    qtbot.waitUntil(lambda: settled(watching), timeout=5000)  # the watch has looked again by now
    assert server.notify_calls == calls
    click_room(qtbot, desktop=watching, room=work)
    bar = watching.attention.hint_bar
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert bar.text() == "⚠ alice has shown “working” for 11 min without a message: it may be stuck"
    click_room(qtbot, desktop=watching, room=other)
    qtbot.waitUntil(lambda: not bar.isVisible(), timeout=5000)


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
