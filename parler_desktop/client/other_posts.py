"""Posts that another process on this home got accepted (``parler-desktop send``, a ``listen``
sending what the outbox held): fetched into this session's store as soon as the outbox says so.

The hub pushes a message to every member but its author, and the author is this identity: the
window would show such a post only at its next full reconciliation (up to ``reconcile_secs``).
The processes share the store, so the window looks at the outbox whenever another process has
written to the store (SQLite's ``data_version``, one cheap read a second) and fetches each post
marked sent that it has not seen, by its seq, as it does its own.
"""

from __future__ import annotations

from collections.abc import Callable

from parler_desktop.client.clock import Clock
from parler_desktop.store import LocalStore, StoreWorker
from parler_desktop.store.outbox_item import OutboxItem

CHECK_SECS = 1.0


class OtherPosts:
    def __init__(self, store: StoreWorker, clock: Clock, fetch: Callable[[str, int], None]) -> None:
        """``fetch(room, seq)`` stores the accepted post (``RoomSync.fetch_sent``)."""
        self._store = store
        self._clock = clock
        self._fetch = fetch
        self._version: tuple[int, int] | None = None
        self._seen: set[str] | None = None  # client ids of the sent posts known (None: not read yet)

    def saw(self, item: OutboxItem) -> None:
        """A post this session sent itself (it fetches that one already)."""
        if self._seen is not None:
            self._seen.add(item.client_id)

    async def run(self) -> None:
        while True:
            await self.check()
            await self._clock.sleep(CHECK_SECS)

    async def check(self) -> None:
        """Fetch the posts marked sent since the last check, if another process wrote meanwhile."""
        version = await self._store.call(LocalStore.data_version)
        if version == self._version:
            return
        self._version = version
        sent = await self._store.call(LocalStore.outbox_sent)
        if self._seen is None:  # the first look: what is there was sent before this session
            self._seen = {client_id for client_id, _room, _seq in sent}
            return
        for client_id, room, seq in sent:
            if client_id not in self._seen:
                self._seen.add(client_id)
                self._fetch(room, seq)
