"""Issue 43 items 1–3 with the reference agent CLI (``parler``), on our hub and the reference hub:
a card published with ``parler register`` shows in View → Agents with its skills; ``parler
presence working`` changes the agent's row live; a first message typed on the agent's card
reaches it in a DM (``parler rooms``, then ``parler recv --room`` on it); receipts posted with
``parler task done --tokens N --elapsed-ms M`` add up in the cost line."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import open_room
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_journey_agents import open_agents_view, shown
from test_reference_agent import agent_room, cli_url, recv_lines

pytestmark = pytest.mark.timeout(120)


def test_a_registered_reference_agent_shows_with_its_skills_its_presence_live_and_a_dm_from_its_card(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    room = agent_room(qtbot, qloop, desktop, agent, "team")
    run_coroutine(qtbot, qloop, agent.ok("register", "--skill", "code-review", "--tag", "ops", "--describe", "Reviews pull requests"))
    view = open_agents_view(qtbot, desktop)
    qtbot.waitUntil(lambda: "refbot" in shown(view), timeout=10_000)

    run_coroutine(qtbot, qloop, agent.ok("presence", "working", "--activity", "reviewing #12"))
    qtbot.waitUntil(lambda: shown(view)["refbot"]["Presence"].startswith("working — reviewing #12"), timeout=10_000)

    key = next(k for k in desktop.agents.model.state.agents if k[1] == agent.id)
    card = desktop.agents.open_card(key)
    qtbot.waitUntil(lambda: "code-review" in card.directory.text(), timeout=10_000)
    assert "Reviews pull requests" in card.directory.text() and "Tags: ops" in card.directory.text()
    qtbot.mouseClick(card.message_button, Qt.MouseButton.LeftButton)  # no DM yet: a first message makes one
    assert card.first_message.isVisible()
    qtbot.keyClicks(card.first_message, "hello refbot, from the card")
    qtbot.keyClick(card.first_message, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: (desktop.window.timeline_model.room or "").startswith("dm."), timeout=15_000)
    dm = desktop.window.timeline_model.room
    assert dm != room
    assert dm in run_coroutine(qtbot, qloop, agent.ok("rooms"))
    lines = recv_lines(qtbot, qloop, agent, dm)
    assert sum("hello refbot, from the card" in line for line in lines) == 1, lines


def test_receipts_from_parler_task_done_add_up_in_the_cost_line(qtbot, qloop, desktop, ref_agent, hub):
    agent = ref_agent(cli_url(hub.url), name="refbot")
    room = agent_room(qtbot, qloop, desktop, agent, "build")
    open_room(qtbot, desktop, room)
    run_coroutine(qtbot, qloop, agent.ok("task", "done", "--room", room, "--task", "t1", "--tokens", "1200", "--elapsed-ms", "60000"))
    run_coroutine(qtbot, qloop, agent.ok("task", "done", "--room", room, "--task", "t2", "--tokens", "300", "--elapsed-ms", "30000"))
    view = open_agents_view(qtbot, desktop)
    qtbot.waitUntil(lambda: "refbot" in shown(view), timeout=10_000)
    qtbot.waitUntil(lambda: view.costs.text().startswith("Today: 2 tasks"), timeout=10_000)
    assert view.costs.text().splitlines()[0] == "Today: 2 tasks, 0 failed (0%) · 1,500 tokens · 1 min"  # 90 s
    assert shown(view)["refbot"]["Today"] == "2 tasks · 1,500 tok"
