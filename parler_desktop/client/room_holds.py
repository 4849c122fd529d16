"""Rooms held back after their pull failed on the hub's fault (issue 47, item 4a).

A page that does not advance (the same seqs again, or seqs going backwards) or cannot be read
stops that room's pull with a notice. Pulled again at once, by the next reconciliation or the
next push, such a room spent the whole request budget on one stuck page (478 identical pulls in
45 s); held, it is tried again after a pause that doubles with each fault, and the other rooms
sync meanwhile. A pull that completes releases it.
"""

from __future__ import annotations

from parler_desktop.client.clock import Clock

FIRST_HOLD_SECS = 30.0
MAX_HOLD_SECS = 15 * 60.0


class RoomHolds:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._faults: dict[str, tuple[int, float]] = {}  # room -> (faults in a row, held until)

    def hold(self, room: str) -> float:
        """One more fault of ``room``: hold it; how many seconds."""
        faults = self._faults.get(room, (0, 0.0))[0] + 1
        secs = min(MAX_HOLD_SECS, FIRST_HOLD_SECS * 2 ** min(faults - 1, 16))
        self._faults[room] = (faults, self._clock.monotonic() + secs)
        return secs

    def held(self, room: str) -> bool:
        return room in self._faults and self._clock.monotonic() < self._faults[room][1]

    def held_now(self) -> set[str]:
        """The rooms held at this moment (a few: read once for a pass over many rooms)."""
        now = self._clock.monotonic()
        return {room for room, (_faults, until) in self._faults.items() if now < until}

    def release(self, room: str) -> None:
        """``room``'s pull completed: its next fault is held for the first pause again."""
        self._faults.pop(room, None)
