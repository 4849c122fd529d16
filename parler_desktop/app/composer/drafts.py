"""DraftKeeper: each room's unsent composer text (and reply target), kept per room.

The window hands over the composer's state on every edit; it is remembered at once in memory
(switching rooms reads it back without waiting) and written to the local store after a short
pause, so a restart (or a crash) finds it again. ``save_pending`` hands what is still pending to
the store it belongs to at once, without waiting (a switch to another hub's rooms does not wait
for the old hub's store: under traffic its thread is busy storing); ``flush`` also waits until
every draft handed over is written, which the app does before it lets go of a store.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.store import LocalStore, StoreError, StoreWorker
from parler_desktop.store.drafts import Draft

SAVE_DELAY_MS = 400


class DraftKeeper(QObject):
    def __init__(self, bridge: SessionBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._known: dict[str, Draft] = {}
        self._unsaved: dict[str, Draft] = {}
        self._timer = QTimer(self, singleShot=True, interval=SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save_pending)
        # The writes handed over: finished, never cancelled (``flush`` awaits them).
        self._writes = TaskSupervisor("drafts", lambda name, error: bridge.notice.emit(f"{name} failed: {error}", ""))
        bridge.sessionChanged.connect(self._session_changed)

    def remember(self, draft: Draft) -> None:
        if self._known.get(draft.room) == draft:
            return
        self._known[draft.room] = draft
        self._unsaved[draft.room] = draft
        self._timer.start()

    async def recall(self, room: str) -> Draft | None:
        """The room's draft: from memory, else from the store (None when there is none)."""
        if room not in self._known:
            store = self._bridge.store
            found = await store.call(LocalStore.draft, room) if store is not None else None
            self._known.setdefault(room, found or Draft(room, ""))
        draft = self._known[room]
        return None if draft.empty else draft

    def save_pending(self) -> None:
        """Hand the drafts changed since the last write to the store they belong to (the
        shown hub's), now; their writes go on in the background."""
        self._timer.stop()
        store = self._bridge.store
        unsaved, self._unsaved = self._unsaved, {}
        if store is not None:
            for draft in unsaved.values():
                self._writes.spawn("save a draft", self._save(store, draft))

    async def flush(self) -> None:
        """``save_pending``, then wait until every draft handed over is written."""
        self.save_pending()
        await self._writes.finish_all()

    async def _save(self, store: StoreWorker, draft: Draft) -> None:
        try:
            await store.call(LocalStore.save_draft, draft)
        except StoreError as error:  # told; the draft is still in the composer
            self._bridge.notice.emit(f"Could not save the draft for {draft.room}: {error}", draft.room)

    def _session_changed(self) -> None:
        self._known.clear()
        self._unsaved.clear()
        self._timer.stop()
