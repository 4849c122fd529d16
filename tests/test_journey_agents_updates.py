"""The Agents view under traffic (issue 43, its scale line): an agent's presence changing repaints
that agent's row, not every row, and does not reset the model (a reset drops the table's spans,
its scroll and selection, and at 1,000 agents cost ~44 ms a pass on the window's thread)."""

from __future__ import annotations

import pytest
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_agents import open_agents_view, shown

from parler_desktop.app.agents.fleet_model import COLUMNS

pytestmark = pytest.mark.timeout(60)


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
        resets, repainted = [], []
        model.modelReset.connect(lambda: resets.append(1))
        model.dataChanged.connect(lambda top, bottom, *_: repainted.append((top.row(), bottom.row(), top.column(), bottom.column())))

        run_coroutine(qtbot, qloop, peer.ok({"op": "presence", "status": "working", "activity": "writing the plan"}, "presence_ok"))
        qtbot.waitUntil(lambda: shown(view)["alice"]["Presence"] == "working — writing the plan" and not model.update_due, timeout=10_000)
        presence = COLUMNS.index("Presence")
        rows = {row for top, bottom, left, right in repainted if left <= presence <= right for row in range(top, bottom + 1)}
        assert not resets
        assert rows == {model.row_of(next(k for k in model.state.agents if k[1] == peer.id))}  # alice's row alone
        assert view.list.currentIndex().row() == model.row_of(next(k for k in model.state.agents if k[1] == others[0].id))
    finally:
        for other in others:
            run_coroutine(qtbot, qloop, other.close())
