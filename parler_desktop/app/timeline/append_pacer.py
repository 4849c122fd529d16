"""When new messages enter the timeline: at once while the room is quiet, once a frame in a burst.

A message that arrives in a quiet room is appended immediately (no fixed delay: that was most of
the time from push to paint). Only while messages arrive faster than frames are they coalesced:
the next append waits for the rest of the frame since the last one, so a burst costs one insert,
one layout and one paint per frame instead of one per message.

How many rows go in per frame adapts to what a row costs on this machine: each new row is laid
out (its Markdown parsed) and painted as it goes in, so the pacer aims each append at
``TARGET_MS``, between ``MIN_ROWS`` and ``MAX_ROWS`` rows. A backlog of thousands is then shown
over many short frames, never in one long stall, with input and painting going on in between,
whatever else the machine is doing.

The cost of a row is estimated warily: it rises at once to what a costly append showed, and
falls back only by ``EASING`` an append. Scaling each append by the last one alone swung from
small to large: after a cheap append (the machine quiet a moment) the next was sized for rows
that cheap, and took up to 28 ms of a 12 ms aim when they were not (``bench_ui.py``'s burst: its
longest stalls). The estimate outlives a burst, so the next one starts at the size this one
ended with (``FIRST_ROWS`` before any).

No estimate foresees a row that costs twice the last ones: on a busy machine the window's thread
waits within an append (in ``bench_ui.py``'s burst, appends of 20–27 ms had used 9–12 ms of its
CPU). So each append also gets a deadline, ``PREPARE_MS`` after it starts: the rows' costliest
part, their bodies' layout, is done one row at a time before any goes in, and no row is begun
past the deadline. What is left (inserting them, painting the ones on screen) is about as much
again for the rows prepared.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer

FRAME_MS = 16
TARGET_MS = 12  # of a frame, what an append (insert, layout, paint) may take
PREPARE_MS = 8  # no row of an append is begun later than this after it started
MIN_ROWS, FIRST_ROWS, MAX_ROWS = 4, 16, 64
EASING = 0.8  # after a cheaper append, the estimate of a row's cost falls by at most this factor


class AppendPacer(QObject):
    """Calls ``append(rows, deadline)`` now or at the end of the current frame, and again each
    frame while more rows wait. It appends up to ``rows`` waiting rows, beginning none once
    ``time.perf_counter()`` has passed ``deadline`` (but always one), and returns how many it
    appended and whether more wait."""

    def __init__(self, append: Callable[[int, float], tuple[int, bool]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._append = append
        self.row_ms = TARGET_MS / FIRST_ROWS  # what one row of an append costs, as estimated
        self.rows = FIRST_ROWS
        self._since_last = QElapsedTimer()
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self._run)

    def request(self) -> None:
        """New messages are waiting: append them now, or once this frame is over."""
        if self._timer.isActive():
            return  # already due at the end of this frame
        elapsed = self._since_last.elapsed() if self._since_last.isValid() else FRAME_MS
        if elapsed >= FRAME_MS:
            self._run()
        else:
            self._timer.start(FRAME_MS - elapsed)

    def request_later(self) -> None:
        """``request``, but not before the caller's turn of the loop is over (it has rows to put
        in before the waiting ones)."""
        if not self._timer.isActive():
            self._timer.start(0)

    def _run(self) -> None:
        self._since_last.start()
        appended, more = self._append(self.rows, time.perf_counter() + PREPARE_MS / 1000)
        if not more:
            return  # (the last of a backlog, maybe fewer rows than asked: says little of a full append)
        spent_ms = self._since_last.nsecsElapsed() / 1e6
        self.row_ms = max(spent_ms / max(1, appended), self.row_ms * EASING)
        self.rows = max(MIN_ROWS, min(MAX_ROWS, int(TARGET_MS / self.row_ms)))
        self._timer.start(max(0, FRAME_MS - round(spent_ms)))
