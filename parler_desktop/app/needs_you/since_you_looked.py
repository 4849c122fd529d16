"""SinceYouLooked: when the human comes back, the digest of what happened on every hub.

"Back" is the window activated after ``AWAY_SECS`` or more away, after a wake (the wall clock
jumped while the loop slept), or at launch once every hub has been live (its catch-up counted).
Each hub's ``DigestTally`` counts the messages stored since the human last looked; ``digest``
holds the lines until dismissed (and the tallies start again then).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.needs_you.digest import DigestLine, DigestTally

AWAY_SECS = 30 * 60
TICK_MS = 10_000
JUMP_SECS = 60.0  # a tick this late: the machine slept


class SinceYouLooked(QObject):
    changed = Signal()

    def __init__(self, hubs: HubList, clock: Callable[[], float] = time.time, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clock = clock
        self.digest: list[DigestLine] = []
        self._hubs = hubs
        self._tallies: dict[HubEntry, DigestTally] = {}
        self._away_since: float | None = None
        self._launched = False
        self._last_tick = clock()
        self._tick = QTimer(self, interval=TICK_MS, timeout=self._ticked)
        self._tick.start()
        for entry in hubs.entries:
            self._added(entry)
        hubs.added.connect(self._added)
        hubs.removed.connect(lambda entry: self._tallies.pop(entry, None))

    def window_active(self, active: bool) -> None:
        now = self.clock()
        if not active:
            if self._away_since is None:
                self._away_since = now
                if not self.digest:  # what came while the human looked counts as seen
                    for tally in self._tallies.values():
                        tally.reset()
            return
        away, self._away_since = self._away_since, None
        if away is not None and now - away >= AWAY_SECS:
            self.publish()

    def publish(self) -> None:
        """Show what the tallies hold now (nothing to say: no digest)."""
        lines = [line for entry, tally in self._tallies.items() for line in tally.lines(entry.url, entry.label)]
        if lines != self.digest:
            self.digest = lines
            self.changed.emit()

    def dismiss(self) -> None:
        for tally in self._tallies.values():
            tally.reset()
        self.digest = []
        self.changed.emit()

    def _added(self, entry: HubEntry) -> None:
        tally = self._tallies[entry] = DigestTally(entry.bridge.agent_id)

        def session_changed() -> None:
            tally.my_id = entry.bridge.agent_id

        def stored(_room: str, messages: tuple, _live: bool) -> None:
            tally.observe(messages)

        entry.bridge.sessionChanged.connect(session_changed)
        entry.bridge.messagesStored.connect(stored)
        entry.bridge.stateChanged.connect(lambda _state: self._maybe_launched())

    def _maybe_launched(self) -> None:
        if not self._launched and self._hubs.entries and all(e.bridge.is_live for e in self._hubs.entries):
            self._launched = True
            self.publish()

    def _ticked(self) -> None:
        now = self.clock()
        if now - self._last_tick > JUMP_SECS:  # woke: once the catch-up is in, say what came
            QTimer.singleShot(5_000, self.publish)
        self._last_tick = now
