"""Python's full garbage collection, run while nothing arrives rather than in the middle of a burst.

A full collection walks every object Python tracks: in a window holding a few thousand messages
it took 30–57 ms (``bench/bench_ui.py`` with ``gc.callbacks``), found next to nothing, and came
whenever allocations happened to trip it: in a burst of messages or while a room opened, a
visible hitch. The young generations still collect as usual (well under a millisecond); the
automatic full collection is turned off while the collector runs, and it runs one itself every
``interval`` seconds once no message has arrived for ``quiet`` seconds, or regardless once
``longest`` seconds have passed without one (a room that never falls quiet still gets its
cycles collected). After each, the C allocator's free pages go back to the system
(``free_memory.py``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from parler_desktop.ui import free_memory

NEVER = 2**30  # a full-collection threshold that is never reached
INTERVAL_SECS = 30.0
QUIET_SECS = 2.0
LONGEST_SECS = 300.0


class IdleCollector(QObject):
    def __init__(
        self,
        parent: QObject | None = None,
        *,
        interval: float = INTERVAL_SECS,
        quiet: float = QUIET_SECS,
        longest: float = LONGEST_SECS,
        clock: Callable[[], float] = time.monotonic,
        give_back: Callable[[], None] = free_memory.give_back,
    ) -> None:
        super().__init__(parent)
        self._give_back = give_back
        self._quiet, self._longest, self._clock = quiet, longest, clock
        self._interval_ms = round(interval * 1000)
        self._last_activity = float("-inf")
        self._last_collection = clock()
        self._thresholds: tuple[int, int, int] | None = None
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self._due)

    def start(self) -> None:
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            gc.set_threshold(self._thresholds[0], self._thresholds[1], NEVER)
        self._last_collection = self._clock()
        self._timer.start(self._interval_ms)

    def stop(self) -> None:
        """Automatic full collections as before."""
        self._timer.stop()
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def activity(self, *_args: object) -> None:
        """Something arrived: a full collection now would hold it up (connect any signal)."""
        self._last_activity = self._clock()

    def _due(self) -> None:
        now = self._clock()
        waiting = min(self._quiet - (now - self._last_activity), self._longest - (now - self._last_collection))
        if waiting > 0:  # until it has been quiet that long, or the longest wait is over
            self._timer.start(max(1, round(waiting * 1000)))
            return
        gc.collect()
        self._give_back()
        self._last_collection = self._clock()
        self._timer.start(self._interval_ms)
