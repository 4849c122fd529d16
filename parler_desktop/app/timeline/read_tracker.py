"""ReadTracker: moves the hub cursor only over what the human has actually had on screen.

Three things must hold at once: a room is shown, the window is active (focused, not minimized)
and a message newer than the cursor is on screen (``set_seen``: the newest seq the timeline
shows whole). Then, after a short settle delay, the cursor advances to that seq — not to the
newest message of the room: what is still below stays unread, in the badge and the title.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.timeline.timeline_model import TimelineModel

SETTLE_MS = 300


class ReadTracker(QObject):
    def __init__(self, bridge: SessionBridge, timeline: TimelineModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._timeline = timeline
        self.window_active = False
        self.seen_seq = 0
        self._cursors: dict[str, int] = {}
        self._timer = QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._timer.timeout.connect(self._commit)
        bridge.cursorChanged.connect(self._cursor_changed)
        bridge.sessionChanged.connect(self._session_changed)
        timeline.modelReset.connect(lambda: self.set_seen(0))

    def set_window_active(self, active: bool) -> None:
        self.window_active = active
        self.reconsider()

    def set_seen(self, seq: int) -> None:
        """The newest seq of the shown room that is on screen now (0: none yet)."""
        self.seen_seq = seq
        self.reconsider()

    def may_read(self) -> bool:
        return (
            self._timeline.room is not None
            and not self._timeline.loading
            and self.window_active
            and self.seen_seq > self._known_cursor()
        )

    def reconsider(self, *_change: object) -> None:
        if self.may_read():
            if not self._timer.isActive():
                self._timer.start()
        else:
            self._timer.stop()

    def _known_cursor(self) -> int:
        room = self._timeline.room
        return max(self._cursors.get(room, 0), self._timeline.read_marker) if room else 0

    def _commit(self) -> None:
        if not self.may_read():
            return
        room, seq = self._timeline.room, self.seen_seq
        self._cursors[room] = seq
        self._bridge.mark_read(room, seq)

    def _session_changed(self) -> None:
        self._cursors.clear()

    def _cursor_changed(self, room: str, cursor: int) -> None:
        self._cursors[room] = max(self._cursors.get(room, 0), cursor)
