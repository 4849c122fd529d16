"""When the sidebar's rows change: every hub's room list on the same ticks, applied in one frame.

The sidebar is one view over every hub's rooms, and any change of a row re-sorts it (the proxy's
``layoutChanged``), lays it out and repaints every row on screen (a Python delegate, ~9 ms for a
sidebar's worth). Each hub's room list reloaded on a timer of its own: at 60 messages/s over five
hubs that was ~10 sidebar paints a second, 40 % of the Qt thread's time (bench_room_list.py).

So the hubs' reloads are due on shared ticks (``due_in``: the same instants for every hub), and
what their reads bring is applied together (``SidebarFrames``) once every read begun has answered,
each by its own store's thread a few ms apart (a store busy writing a catch-up's pages holds the
others at most ``WAIT_MS``): a tick of five hubs costs one re-sort, one layout and one paint.
Each change is signalled as ``runs`` of neighbouring rows, so the proxy sorts again only those.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

WAIT_MS = 50  # the most a change waits for the other hubs' reads


def due_in(period_ms: int, now: float | None = None) -> int:
    """Milliseconds until the next multiple of ``period_ms`` on the monotonic clock: every
    caller with the same period is due at the same instants."""
    now_ms = round((time.monotonic() if now is None else now) * 1000)
    return period_ms - now_ms % period_ms


def runs(rows: list[int]) -> list[tuple[int, int]]:
    """Ascending ``rows`` as (first, last) runs of neighbours: a signal for each run, not one from
    the first changed row to the last. The proxy filters and re-sorts every row a signal spans
    (Python calls, some 60 µs a row): at 60 msg/s a hub's reload changes a few rows scattered over
    its list, and the span between them re-sorted most of it, once a tick for every hub."""
    spans: list[tuple[int, int]] = []
    for row in rows:
        if spans and spans[-1][1] == row - 1:
            spans[-1] = (spans[-1][0], row)
        else:
            spans.append((row, row))
    return spans


class SidebarFrames:
    """The sidebar's row changes, applied together once no read begun is still out (the latest
    change of each owner only: an older one is already stale)."""

    def __init__(self, parent: QObject | None = None) -> None:
        self._reading: set[object] = set()
        self._pending: dict[object, Callable[[], None]] = {}
        self._timer = QTimer(parent, singleShot=True, interval=WAIT_MS)
        self._timer.timeout.connect(self.flush)

    def reading(self, owner: object) -> None:
        """``owner`` began a read whose change should go with the others'."""
        self._reading.add(owner)

    def done(self, owner: object, change: Callable[[], None] | None = None) -> None:
        """``owner``'s read is over; ``change`` (None: nothing to change) is applied with the
        others' once none is still reading, or after ``WAIT_MS``."""
        self._reading.discard(owner)
        if change is not None:
            self._pending[owner] = change
        if not self._pending:
            return
        if not self._reading:
            self.flush()
        elif not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Apply what waits now."""
        self._timer.stop()
        pending, self._pending = self._pending, {}
        for change in pending.values():
            change()

    def discard(self, owner: object) -> None:
        """Forget ``owner``'s read and change (its rows were reset meanwhile, or it is gone)."""
        self._reading.discard(owner)
        self._pending.pop(owner, None)
        if self._pending and not self._reading:
            self.flush()
