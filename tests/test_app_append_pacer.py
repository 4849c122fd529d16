"""AppendPacer on its own: how many rows each append of a burst takes, given what they cost.

The appends here cost what they are told to (a row's cost spent in a sleep, the stand-in for
laying out and painting it); machine noise can only make an append costlier than asked, so every
bound below holds however busy the machine is.
"""

from __future__ import annotations

import math
import time

import pytest

from parler_desktop.app.timeline.append_pacer import EASING, FIRST_ROWS, MAX_ROWS, MIN_ROWS, PREPARE_MS, TARGET_MS, AppendPacer

pytestmark = pytest.mark.timeout(30)


class Backlog:
    """``waiting`` rows, appended at ``row_ms[0]`` a row for the first ``costly`` appends, then at
    ``row_ms[1]``, one at a time and none begun past the deadline but the first (as
    ``TimelineModel`` does); notes how many rows each append was asked for, and took."""

    def __init__(self, waiting: int, row_ms: tuple[float, float], costly: int) -> None:
        self.waiting, self.row_ms, self.costly = waiting, row_ms, costly
        self.asked: list[int] = []
        self.taken: list[int] = []

    def append(self, rows: int, deadline: float) -> tuple[int, bool]:
        self.asked.append(rows)
        row_ms = self.row_ms[len(self.asked) > self.costly]
        taken = 0
        while taken < rows and self.waiting and (not taken or time.perf_counter() < deadline):
            time.sleep(row_ms / 1000)
            taken += 1
            self.waiting -= 1
        self.taken.append(taken)
        return taken, self.waiting > 0


def run(qtbot, backlog: Backlog) -> AppendPacer:  # noqa: ANN001
    pacer = AppendPacer(backlog.append)
    pacer.request()
    qtbot.waitUntil(lambda: backlog.waiting == 0, timeout=20_000)
    return pacer


def test_after_a_costly_append_the_next_ones_are_small_and_grow_back_only_gradually(qtbot):
    """A costly append (3 ms a row: 48 ms for the first 16) makes the next ones as small as
    allowed; once rows are cheap again, each append is at most 1/EASING times the last (the old
    pacer jumped to the largest append at once after one cheap one, and overshot its aim by more
    than twice when rows turned costly again)."""
    backlog = Backlog(2000, (3.0, 0.0), costly=3)
    run(qtbot, backlog)
    asked = backlog.asked
    assert asked[0] == FIRST_ROWS and asked[1:3] == [MIN_ROWS, MIN_ROWS]
    growing = asked[3:]
    assert max(growing) == MAX_ROWS  # cheap rows: the appends do grow back, to the largest
    for last, following in zip(growing, growing[1:]):
        assert following <= max(MIN_ROWS, math.floor(last / EASING) + 1)


def test_rows_of_a_steady_cost_are_appended_near_the_aim(qtbot):
    """At 1 ms a row, appends settle at about TARGET_MS rows (never above: a costlier append
    than asked only makes the next smaller)."""
    backlog = Backlog(300, (1.0, 1.0), costly=0)
    pacer = run(qtbot, backlog)
    assert all(rows <= TARGET_MS for rows in backlog.asked[1:])
    assert pacer.rows <= TARGET_MS and backlog.asked[-1] >= MIN_ROWS


def test_the_next_burst_starts_at_the_size_the_last_one_ended_with(qtbot):
    backlog = Backlog(200, (2.0, 2.0), costly=0)
    pacer = run(qtbot, backlog)
    learned = pacer.rows
    assert MIN_ROWS <= learned < FIRST_ROWS
    backlog.waiting, backlog.asked = 100, []  # a second burst
    pacer.request()
    qtbot.waitUntil(lambda: backlog.waiting == 0, timeout=20_000)
    assert backlog.asked[0] == learned


def test_an_append_begins_no_row_past_its_deadline_and_the_next_ones_are_sized_by_what_went_in(qtbot):
    """Rows of 5 ms: the first append, asked for FIRST_ROWS (80 ms of them), begins none after
    PREPARE_MS, so it takes at most two; the cost of a row is reckoned from the rows it took, not
    the rows asked for, so the next append asks for as few as allowed. Rows of 3 * PREPARE_MS:
    each append still takes one, and the backlog drains."""
    backlog = Backlog(40, (5.0, 5.0), costly=0)
    run(qtbot, backlog)
    assert backlog.asked[0] == FIRST_ROWS and backlog.taken[0] <= math.ceil(PREPARE_MS / 5.0)
    assert all(taken <= math.ceil(PREPARE_MS / 5.0) for taken in backlog.taken)
    assert backlog.asked[1] == MIN_ROWS
    slow = Backlog(5, (3.0 * PREPARE_MS, 3.0 * PREPARE_MS), costly=0)
    run(qtbot, slow)
    assert slow.taken == [1, 1, 1, 1, 1]
