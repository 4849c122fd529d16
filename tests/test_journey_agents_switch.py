"""Switching the Agents view's filter and grouping through its real controls (Alt+S, Alt+G, the
arrow keys), an agent far down the list selected (issue 43): each switch shows the right rows,
and the selected agent stays selected and in sight, even after a filter hid it for a while."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from support.desktop_fixtures import join_room, post_as
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_agents import headings, open_agents_view, shown

from parler_desktop.ui.agents.agents_view import AgentsView

pytestmark = pytest.mark.timeout(90)
NAMES = ("ada", "bea", "cal", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou", "max", "ned", "oda", "zed")
WORKING = {*NAMES[::2], "zed"}
ROLES = {name: ("coder", "reviewer")[n % 2] for n, name in enumerate(NAMES)}  # zed: a reviewer


def selected(view: AgentsView) -> tuple[str | None, bool]:
    """The selected agent's name, and whether its row is in sight in the list."""
    rows = view.list.selectionModel().selectedRows()
    if len(rows) != 1:
        return None, False
    return rows[0].data().removesuffix(" ✓"), in_sight(view, rows[0].row())


def in_sight(view: AgentsView, row: int) -> bool:
    """Whether ``row`` is in sight, top to bottom, in the list."""
    rect = view.list.visualRect(view.list.model().index(row, 0))
    return rect.isValid() and 0 <= rect.top() and rect.bottom() <= view.list.viewport().height()


def in_order(view: AgentsView) -> list[str]:
    """Every row top to bottom: a heading as "# title", an agent by its name."""
    model = view.list.model()
    return [
        (f"# {text}" if text in headings(view) else text.removesuffix(" ✓"))
        for text in (model.index(row, 0).data() for row in range(model.rowCount()))
    ]


def switch(qtbot, view: AgentsView, key: Qt.Key, shows: Any) -> None:
    """Press ``key`` in the focused combo box; wait until ``shows()`` is true of the new rows."""
    qtbot.keyClick(view.focusWidget(), key)
    qtbot.waitUntil(shows, timeout=10_000)
    assert selected(view) == ("zed", True)


def test_switching_filter_and_grouping_keeps_the_selected_agent_selected_and_in_sight(qtbot, qloop, desktop, hub, qtmodeltester):
    agents: list[RawAgent] = []
    try:
        for name in NAMES:
            agent = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name=name, role=ROLES[name]))
            agents.append(agent)
            run_coroutine(qtbot, qloop, agent.register(name, role=ROLES[name]))
            status = "working" if name in WORKING else "idle"
            run_coroutine(qtbot, qloop, agent.ok({"op": "presence", "status": status}, "presence_ok"))
        join_room(qtbot, qloop, desktop, agents[0], "build")  # ada's room with the human
        post_as(qtbot, qloop, agents[1], join_room(qtbot, qloop, desktop, agents[1], "review"), "hello")  # bea's (said there)
        view = open_agents_view(qtbot, desktop)
        view.resize(900, 320)  # a few rows in sight: the rest scroll
        model = desktop.agents.model
        qtbot.waitUntil(lambda: set(shown(view)) == set(NAMES) and not model.update_due, timeout=15_000)
        qtmodeltester.check(model)  # (and as the rows change from here on)
        qtbot.waitUntil(lambda: sum(row["Presence"] == "working" for row in shown(view).values()) == len(WORKING), timeout=10_000)
        view.activateWindow()
        qtbot.waitUntil(view.isActiveWindow, timeout=5000)
        view.list.setFocus()
        qtbot.keyClick(view.list, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)  # the last agent, far down the list
        assert selected(view) == ("zed", True)
        assert not in_sight(view, 0)  # (the top is scrolled out of sight)

        qtbot.keyClick(view, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # Show…
        switch(qtbot, view, Qt.Key.Key_Down, lambda: in_order(view) == sorted(WORKING))  # working
        qtbot.keyClick(view.filter, Qt.Key.Key_Down)  # waiting on me: no one (zed hidden)
        qtbot.waitUntil(lambda: in_order(view) == [], timeout=10_000)
        assert selected(view) == (None, False)
        switch(qtbot, view, Qt.Key.Key_Home, lambda: in_order(view) == list(NAMES))  # all: zed again

        label = desktop.hubs.entry(hub.url).label
        qtbot.keyClick(view, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)  # Group by…
        switch(qtbot, view, Qt.Key.Key_Down, lambda: in_order(view) == [f"# {label} — 16 agents", *NAMES])  # hub
        by_room = [f"# build · {label} — 1 agent", "ada", "# No shared room — 14 agents", *NAMES[2:], f"# review · {label} — 1 agent", "bea"]
        switch(qtbot, view, Qt.Key.Key_Down, lambda: in_order(view) == by_room)  # room
        coders, reviewers = ([name for name in NAMES if ROLES[name] == role] for role in ("coder", "reviewer"))
        by_role = ["# coder — 8 agents", *coders, "# reviewer — 8 agents", *reviewers]
        switch(qtbot, view, Qt.Key.Key_Down, lambda: in_order(view) == by_role)  # role
    finally:
        for agent in agents:
            run_coroutine(qtbot, qloop, agent.close())
