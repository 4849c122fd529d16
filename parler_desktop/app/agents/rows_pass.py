"""RowsPass: the Agents view's rows worked out again without holding the window's loop. Where
each agent goes under the filter and grouping (its flags, its groups) is asked a slice of agents
at a time, each turn of the loop spending at most about ``SLICE_MS`` of the Qt thread; the rows are
then laid out, and handed over in a turn of their own (the model swaps them in and the view paints
them: 10-20 ms at rest). A pass of a few agents (no more than ``CHECK_EVERY``: every test's) ends
at once, however busy the machine.

Worked out in one go, a switch by room at 1,000 agents (11,400 rows), with its reset and paint,
held the loop 40-80 ms on a shared machine (bench/bench_agents.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from PySide6.QtCore import QObject, QTimer

from parler_desktop.app.agents.fleet_rows import FleetRows, Group, Key, Placement
from parler_desktop.app.agents.fleet_state import AgentRecord

SLICE_MS = 8.0
CHECK_EVERY = 50  # agents placed between looks at the clock; a pass of no more is over in one turn


class RowsPass(QObject):
    def __init__(
        self, place: Callable[[AgentRecord], Placement], title: Callable[[Group], str], show: Callable[[FleetRows], None],
        parent: QObject | None = None,
    ) -> None:
        """``place`` says where an agent goes, ``title`` names a group, ``show`` takes the rows."""
        super().__init__(parent)
        self._place, self._title, self._show = place, title, show
        self._turn = QTimer(self, singleShot=True, interval=0, timeout=self._run)
        self._agents: Mapping[Key, AgentRecord] = {}
        self._keys: list[Key] = []
        self._at = 0
        self._placed: dict[Key, Placement] = {}
        self._laid_out: FleetRows | None = None
        self._waited = False  # for a turn of the loop

    @property
    def running(self) -> bool:
        """A pass waits for its next turn of the loop."""
        return self._turn.isActive()

    def start(self, agents: Mapping[Key, AgentRecord]) -> None:
        """Work the rows out again for ``agents`` (a pass under way starts over); an agent gone
        before its turn is left out (the change that took it asks for another pass)."""
        self._turn.stop()
        self._agents, self._keys, self._at, self._placed, self._laid_out = agents, list(agents), 0, {}, None
        self._waited = False
        self._run()

    def _run(self) -> None:
        deadline = time.perf_counter() + SLICE_MS / 1000
        keys, agents, placed, place = self._keys, self._agents, self._placed, self._place
        while self._at < len(keys):
            for key in keys[self._at : self._at + CHECK_EVERY]:
                agent = agents.get(key)
                if agent is not None:
                    placed[key] = place(agent)
            self._at += CHECK_EVERY
            if self._at < len(keys) and time.perf_counter() > deadline:
                self._next_turn()
                return
        if self._laid_out is None:
            self._laid_out = FleetRows.laid_out(placed, self._title)
            if self._waited or len(keys) > CHECK_EVERY:  # (the swap and its paint: a turn of their own)
                self._next_turn()
                return
        laid_out, self._laid_out, self._agents, self._placed = self._laid_out, None, {}, {}
        self._show(laid_out)

    def _next_turn(self) -> None:
        self._waited = True
        self._turn.start()
