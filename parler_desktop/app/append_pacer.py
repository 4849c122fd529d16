"""When new messages enter the timeline: at once while the room is quiet, once a frame in a burst.

A message that arrives in a quiet room is appended immediately (no fixed delay: that was most of
the time from push to paint). Only while messages arrive faster than frames are they coalesced:
the next append waits for the rest of the frame since the last one, so a burst costs one insert
and one layout per frame instead of one per message. At most ``ROWS_PER_APPEND`` rows go in per
frame (each new row is laid out, its Markdown parsed, when the view next lays out: ~0.2–1 ms);
the rest wait for the next frame, so a backlog of thousands is laid out over many frames, never
in one long stall, and input and painting go on in between.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer

FRAME_MS = 16
ROWS_PER_APPEND = 12


class AppendPacer(QObject):
    """Calls ``append`` (which appends up to ROWS_PER_APPEND rows and says whether more are
    waiting) now or at the end of the current frame, and again each frame while more wait."""

    def __init__(self, append: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._append = append
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

    def cancel(self) -> None:
        self._timer.stop()

    def _run(self) -> None:
        self._since_last.start()
        if self._append():
            self._timer.start(FRAME_MS)
