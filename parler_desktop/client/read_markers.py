"""Read markers: the hub cursor moves only when the human has seen a room (design.md §3).

``mark_read`` records how far the human has read; an ack-only pull (``limit: 0, ack: N``) commits
it when connected. The ack never passes the room's sync mark (everything up to it is stored), so
a message the hub pushed past a dropped one is not marked read before the gap is filled, and one
shown before its write landed (``client/arrivals.py``) not before it is stored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncio

from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import CursorChanged, Notice, SessionEvent
from parler_desktop.protocol.frames import Pull, Pulled
from parler_desktop.store import LocalStore, StoreWorker


class ReadMarkers:
    def __init__(
        self,
        store: StoreWorker,
        commit: Committer,
        emit: Callable[[SessionEvent], None],
        sync_mark: Callable[[str], Awaitable[int]],
        shown_early: Callable[[str], int],
        pull_soon: Callable[[str], None],
    ) -> None:
        """``shown_early(room)``: the newest seq of the room shown before it was stored;
        ``pull_soon(room)``: an ack waits for the room's sync mark, so it should be pulled soon."""
        self._store = store
        self._commit = commit
        self._emit = emit
        self._sync_mark = sync_mark
        self._shown_early = shown_early
        self._pull_soon = pull_soon
        self._wanted: dict[str, int] = {}  # room -> seq the human has seen, not yet committed
        self._kick = asyncio.Event()

    @property
    def pending(self) -> bool:
        return bool(self._wanted)

    async def mark_read(self, room: str, seq: int) -> None:
        # What could have been seen: what is stored, or was shown before its write landed (the
        # ack still waits for the sync mark, which only passes stored messages).
        seq = min(seq, max(await self._store.call(LocalStore.max_seq, room), self._shown_early(room)))
        cursor = await self._store.call(LocalStore.cursor, room)
        if seq <= max(cursor, self._wanted.get(room, 0)):
            return
        self._wanted[room] = seq
        self._kick.set()

    def on_marked(self, room: str) -> None:
        """A room's sync mark moved: an ack waiting for it may go out now."""
        if room in self._wanted:
            self._kick.set()

    async def run(self, request: Requester) -> None:
        """Commit read markers for as long as the connection lives."""
        self._kick.set()  # markers set while disconnected
        while True:
            await self._kick.wait()
            self._kick.clear()
            await self.flush(request)

    async def flush(self, request: Requester) -> None:
        for room, wanted in list(self._wanted.items()):
            mark = await self._sync_mark(room)
            if wanted > mark:
                self._pull_soon(room)
            ack = min(wanted, mark)
            cursor = await self._store.call(LocalStore.cursor, room)
            if ack > cursor:
                await self._store.call(LocalStore.unsettle, room)  # a restart must not trust the old count
                try:
                    reply = await request(Pull(room=room, limit=0, ack=ack), Pulled)
                except HubRefused as error:
                    self._emit(Notice(f"Could not mark {room} as read: {error.message}", room=room))
                    self._wanted.pop(room, None)
                    continue
                assert isinstance(reply, Pulled)
                cursor = await self._commit(
                    LocalStore.set_cursor, room, reply.cursor, announce=lambda value: [CursorChanged(room, value)]
                )
            if cursor >= wanted and self._wanted.get(room) == wanted:
                del self._wanted[room]
