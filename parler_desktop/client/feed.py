"""A resumable, print-once feed of the stored messages, for ``listen``.

Printing MessagesStored events is not enough for a command: the store belongs to the whole home,
and a message the window (or another ``listen``) stored first is never announced in this process.
So the feed reads the store itself. Per room it remembers, in the store's meta, how far it has fed
without gaps (never beyond the room's sync mark, below which the store is complete); messages
above that (pushes not yet reconciled) are fed at once and remembered in memory, so a message
that fills a gap later is still fed, once. ``listen`` drains every second; a room whose sync mark
and message count did not change since its last drain is skipped without reading its messages.

What this process itself stores once live (pushes, mostly) is fed at once, from the session's
event (``feed_new``), without reading it back: rows the store reports as newly stored were not stored before, so no feed on
the home can have fed them yet. They are remembered like pushes above the mark, so the next drain
skips them (and records how far the home has been fed). Only rooms drained once already are fed
so (before that, older stored messages may be waiting to be fed first); the rest wait for the
drain.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, StoreWorker

FED_KEY = "listen-fed:"  # + room: the seq up to which every message was fed
PAGE = 500


class StoreFeed:
    def __init__(self, store: StoreWorker, deliver: Callable[[StoredMessage], bool]) -> None:
        """``deliver`` returns False when the consumer is gone (then the feed stops)."""
        self._store = store
        self._deliver = deliver
        self._fed: dict[str, int] = {}
        self._ahead: dict[str, set[int]] = {}  # fed seqs above the room's gap-free point
        self._drained: dict[str, tuple[int, int]] = {}  # room -> its head (mark, count) when last drained

    def feed_new(self, messages: Iterable[StoredMessage], rooms: Collection[str] | None = None) -> bool:
        """Feed messages this process has just stored (in ``rooms``, default every room); False
        once delivery stopped."""
        for message in messages:
            if rooms and message.room not in rooms:
                continue
            if message.room not in self._drained:
                continue
            if not self._deliver(message):
                return False
            self._ahead.setdefault(message.room, set()).add(message.seq)
        return True

    async def drain(self, rooms: Iterable[str] | None = None) -> bool:
        """Feed what is new in ``rooms`` (default: every stored room); False once delivery stopped."""
        heads = await self._store.call(LocalStore.room_heads)
        for room in list(rooms) if rooms is not None else list(heads):
            head = heads.get(room)
            if head is None or head == self._drained.get(room):
                continue  # nothing stored for it, or nothing stored nor marked since its last drain
            if not await self._drain_room(room, complete_to=head[0]):
                return False
            self._drained[room] = head
        return True

    async def _drain_room(self, room: str, complete_to: int) -> bool:
        fed = await self._fed_mark(room)
        ahead = self._ahead.setdefault(room, set())
        after = fed
        while True:
            page = await self._store.call(LocalStore.messages_after, room, after, PAGE)
            for message in page:
                if message.seq in ahead:
                    continue
                if not self._deliver(message):
                    return False
                ahead.add(message.seq)
            if len(page) < PAGE:
                break
            after = page[-1].seq
        if complete_to > fed:
            self._fed[room] = complete_to
            await self._store.call(LocalStore.set_meta, FED_KEY + room, str(complete_to))
            ahead.difference_update({seq for seq in ahead if seq <= complete_to})
        return True

    async def _fed_mark(self, room: str) -> int:
        if room not in self._fed:
            value = await self._store.call(LocalStore.get_meta, FED_KEY + room)
            self._fed[room] = int(value) if value and value.isdigit() else 0
        return self._fed[room]
