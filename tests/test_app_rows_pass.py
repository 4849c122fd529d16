"""RowsPass: the Agents view's rows worked out a slice at a time, the loop running between slices
(issue 43: a switch by room at 1,000 agents held the loop), the rows handed over once, and a pass
started again mid-way handing over only the new rows."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from parler_desktop.app.agents.fleet_rows import NO_GROUP, FleetRows
from parler_desktop.app.agents.fleet_state import AgentRecord
from parler_desktop.app.agents.rows_pass import SLICE_MS, RowsPass

WORK_MS = 0.05  # what placing one agent costs here: 1,000 agents are 50 ms, several slices


def agents(count: int, prefix: str = "a") -> dict[tuple[str, str], AgentRecord]:
    return {("h", f"{prefix}{n:03d}"): AgentRecord("h", f"{prefix}{n:03d}", name=f"{prefix}{n:03d}") for n in range(count)}


def slow_place(agent: AgentRecord) -> tuple[str, tuple]:
    until = time.perf_counter() + WORK_MS / 1000
    while time.perf_counter() < until:
        pass
    return (agent.name, (NO_GROUP,))


def test_a_long_pass_lets_the_loop_run_between_slices_and_shows_its_rows_once(qtbot):
    shown: list[FleetRows] = []
    turns: list[float] = []
    rows_pass = RowsPass(slow_place, lambda group: group[2], shown.append)
    ticker = QTimer(interval=1, timeout=lambda: turns.append(time.perf_counter()))  # the loop's other work
    ticker.start()
    try:
        rows_pass.start(agents(1000))
        assert rows_pass.running and not shown  # 50 ms of work: not all in this turn
        qtbot.waitUntil(lambda: bool(shown), timeout=5000)
        assert not rows_pass.running and len(shown) == 1
        assert shown[0].rows == sorted(agents(1000))
        assert len(turns) >= 1000 * WORK_MS / SLICE_MS / 2  # the loop ran between slices
    finally:
        ticker.stop()


def test_a_pass_started_again_shows_only_the_new_rows_and_a_short_one_ends_at_once(qtbot):
    shown: list[FleetRows] = []
    rows_pass = RowsPass(slow_place, lambda group: group[2], shown.append)
    rows_pass.start(agents(1000))
    assert rows_pass.running
    rows_pass.start(agents(1000, prefix="b"))  # the view switched again meanwhile
    qtbot.waitUntil(lambda: not rows_pass.running, timeout=5000)
    qtbot.wait(50)  # (a turn on: nothing more comes of the first pass)
    assert [layout.rows[0] for layout in shown] == [("h", "b000")]

    def preempted_place(agent: AgentRecord) -> tuple[str, tuple]:  # a busy machine: the thread waits for a core
        time.sleep(SLICE_MS / 1000)
        return (agent.name, (NO_GROUP,))

    quick = RowsPass(preempted_place, lambda group: group[2], shown.append)
    quick.start(agents(3))  # over the slice, but a few agents: still over in this turn
    assert not quick.running and shown[-1].rows == sorted(agents(3))
