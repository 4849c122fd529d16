"""UnseenTally: one summary per room of what arrived while the human was away, never a storm.

While the window is not active, messages from others are counted per room; once the line has
been quiet for ``quiet_ms`` (a burst, or the catch-up after a night asleep, is over) one
``summary(room, count, for_me)`` per room is emitted and the tally starts again; ``for_me``
counts those that mention the human, by the rule the @ badge and the highlight use. Coming back to the
window forgets the tally: the human is looking.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from parler_desktop.app.bridge import SessionBridge
from parler_desktop.protocol.mentions import mentions_human

QUIET_MS = 3000


class UnseenTally(QObject):
    summary = Signal(str, int, int)  # room, messages, of them mentioning the human

    def __init__(self, bridge: SessionBridge, parent: QObject | None = None, quiet_ms: int = QUIET_MS) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._counts: Counter[str] = Counter()
        self._for_me: Counter[str] = Counter()
        self.window_active = False
        self._quiet = QTimer(self, singleShot=True, interval=quiet_ms)
        self._quiet.timeout.connect(self._flush)
        bridge.messagesStored.connect(self._stored)

    def set_window_active(self, active: bool) -> None:
        self.window_active = active
        if active:
            self._counts.clear()
            self._for_me.clear()
            self._quiet.stop()

    def _stored(self, room: str, messages: Sequence[Any], _live: bool) -> None:
        if self.window_active:
            return
        bridge = self._bridge
        me = bridge.agent_id
        count = sum(1 for message in messages if message.sender.id != me)
        if count:
            self._counts[room] += count
            self._for_me[room] += sum(
                1 for m in messages if mentions_human(m.sender.id, m.parts, m.mentions or (), me, bridge.name, bridge.role)
            )
            self._quiet.start()  # restarts: wait for the line to go quiet

    def _flush(self) -> None:
        counts, self._counts = self._counts, Counter()
        for_me, self._for_me = self._for_me, Counter()
        for room, count in sorted(counts.items()):
            self.summary.emit(room, count, for_me[room])
