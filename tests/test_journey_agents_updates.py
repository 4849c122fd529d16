"""The Agents view under traffic (issue 43, its scale line): an agent's presence changing, or its
receipt arriving, repaints that agent's row (and its group's heading, which sums the cost), not
every row, and does not reset the model (a reset drops the table's spans, its scroll and
selection, and at 1,000 agents cost ~44 ms a pass on the window's thread)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import join_room
from support.needs_ops import human_request, task_on
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_agents import headings, open_agents_view, post_task, shown

from parler_desktop.app.agents.fleet_model import COLUMNS

pytestmark = pytest.mark.timeout(60)


def record_repaints(model) -> tuple[list[int], list[tuple[int, int, int, int]]]:
    """From now on: each model reset, and each dataChanged's (top, bottom, left, right)."""
    resets: list[int] = []
    repainted: list[tuple[int, int, int, int]] = []
    model.modelReset.connect(lambda: resets.append(1))
    model.dataChanged.connect(lambda top, bottom, *_: repainted.append((top.row(), bottom.row(), top.column(), bottom.column())))
    return resets, repainted


def rows_in(repainted: list[tuple[int, int, int, int]], column: str) -> set[int]:
    number = COLUMNS.index(column)
    return {row for top, bottom, left, right in repainted if left <= number <= right for row in range(top, bottom + 1)}


def test_a_presence_change_repaints_only_its_agents_row(qtbot, qloop, desktop, hub, peer):
    run_coroutine(qtbot, qloop, peer.register("alice", role="planner"))
    others = [run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name=name, role="coder")) for name in ("bob", "carol")]
    try:
        for other, name in zip(others, ("bob", "carol"), strict=True):
            run_coroutine(qtbot, qloop, other.register(name, role="coder"))
        view = open_agents_view(qtbot, desktop)
        model = desktop.agents.model
        qtbot.waitUntil(lambda: set(shown(view)) == {"alice", "bob", "carol"} and not model.update_due, timeout=10_000)
        view.list.select_key(next(k for k in model.state.agents if k[1] == others[0].id))  # bob's row selected
        resets, repainted = record_repaints(model)

        run_coroutine(qtbot, qloop, peer.ok({"op": "presence", "status": "working", "activity": "writing the plan"}, "presence_ok"))
        qtbot.waitUntil(lambda: shown(view)["alice"]["Presence"] == "working — writing the plan" and not model.update_due, timeout=10_000)
        assert not resets
        assert rows_in(repainted, "Presence") == {model.row_of(next(k for k in model.state.agents if k[1] == peer.id))}  # alice's alone
        assert view.list.currentIndex().row() == model.row_of(next(k for k in model.state.agents if k[1] == others[0].id))
    finally:
        for other in others:
            run_coroutine(qtbot, qloop, other.close())


def test_a_receipt_arriving_repaints_its_agents_row_and_its_hubs_heading_only(qtbot, qloop, desktop, hub, peer):
    run_coroutine(qtbot, qloop, peer.register("alice", role="planner"))
    bob, carol = (run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name=name, role="coder")) for name in ("bob", "carol"))
    try:
        room = join_room(qtbot, qloop, desktop, bob, "build")
        post_task(qtbot, qloop, bob, room, "accepted")
        run_coroutine(qtbot, qloop, carol.register("carol", role="coder"))
        view = open_agents_view(qtbot, desktop)
        model = desktop.agents.model
        qtbot.waitUntil(lambda: set(shown(view)) == {"alice", "bob", "carol"}, timeout=10_000)
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)  # Group by
        qtbot.keyClick(view.group, Qt.Key.Key_Down)  # hub
        qtbot.waitUntil(lambda: len(headings(view)) == 1 and not model.update_due, timeout=5000)
        resets, repainted = record_repaints(model)

        post_task(qtbot, qloop, bob, room, "done", tokens=300)
        qtbot.waitUntil(lambda: shown(view)["bob"]["Today"] == "1 task · 300 tok" and not model.update_due, timeout=10_000)
        assert headings(view)[0].endswith("today: 1 task, 0 failed (0%) · 300 tokens · time unknown")
        assert not resets
        bob_row = model.row_of(next(k for k in model.state.agents if k[1] == bob.id))
        assert rows_in(repainted, "Today") == {0, bob_row}  # the hub's heading and bob's row, not alice's or carol's
    finally:
        for agent in (bob, carol):
            run_coroutine(qtbot, qloop, agent.close())


def test_an_agent_silent_on_the_humans_request_is_flagged_without_any_traffic(qtbot, qloop, desktop, hub):
    bob = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="bob", role="coder"))
    try:
        room = join_room(qtbot, qloop, desktop, bob, "build")
        asked = human_request(qtbot, qloop, desktop.bridge, bob, room, "fix the parser")
        task_on(qtbot, qloop, bob, room, asked, "working")
        view = open_agents_view(qtbot, desktop)
        model, needs = desktop.agents.model, desktop.window.needs
        qtbot.waitUntil(lambda: "bob" in shown(view) and not model.update_due, timeout=10_000)
        resets, repainted = record_repaints(model)
        later = model.clock() + 16 * 60  # nothing from bob for 16 min on the human's request (§4b: 15), and nothing arrives
        model.clock = needs.clock = lambda: later
        needs.refresh()  # (what its timer does)
        bob_row = model.row_of(next(k for k in model.state.agents if k[1] == bob.id))
        qtbot.waitUntil(lambda: bob_row in rows_in(repainted, "Flags") and bob_row in rows_in(repainted, "Last seen"), timeout=5000)
        assert shown(view)["bob"]["Flags"] == "silent on your work" and shown(view)["bob"]["Last seen"] == "16 min ago"
        assert not resets
    finally:
        run_coroutine(qtbot, qloop, bob.close())
