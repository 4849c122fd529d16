"""When new messages enter the timeline: at once while the room is quiet, once a frame in a burst.

A message that arrives in a quiet room is appended immediately (no fixed delay: that was most of
the time from push to paint). Only while messages arrive faster than frames are they coalesced:
the next append waits for the rest of the frame since the last one, so a burst costs one insert,
one layout and one paint per frame instead of one per message.

How many rows go in per frame adapts to what a frame costs on this machine: each new row is laid
out (its Markdown parsed) and painted as it goes in, so the pacer aims each append at
``TARGET_MS`` and scales the next one by how long the last took, between ``MIN_ROWS`` and
``MAX_ROWS``. A backlog of thousands is then shown over many short frames, never in one long
stall, with input and painting going on in between, whatever else the machine is doing.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer

FRAME_MS = 16
TARGET_MS = 12  # of a frame, what an append (insert, layout, paint) may take
MIN_ROWS, FIRST_ROWS, MAX_ROWS = 4, 16, 64


class AppendPacer(QObject):
    """Calls ``append(rows)`` (which appends up to that many waiting rows and says whether more
    are waiting) now or at the end of the current frame, and again each frame while more wait."""

    def __init__(self, append: Callable[[int], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._append = append
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

    def _run(self) -> None:
        self._since_last.start()
        rows = self.rows
        more = self._append(rows)
        spent = self._since_last.elapsed()
        if more:  # a burst: size the next append by what this one cost
            self.rows = max(MIN_ROWS, min(MAX_ROWS, rows * TARGET_MS // max(1, spent)))
            self._timer.start(max(0, FRAME_MS - spent))
        else:
            self.rows = FIRST_ROWS
