"""What the pulls brought that the store does not hold yet, counted and shown in the room list.

A catch-up's writes wait for its pulls (``client/page_writer.py``): after a night away the pulls
of five hubs are over in about a second and the writes take a few more. So each room's row
counts and shows what its pulls brought as soon as it is in (``MessagesPulled``): its unread
count grows by the pulled messages from others above its cursor, and its last message is the
newest one pulled.

Nothing is counted twice: each store reload (``RoomSummary``) drops, per room, the pulled
messages at or below its newest stored seq (a room's pages are stored in seq order, so what is
above it is not stored yet), and a room's newest pulled message shows only while it is newer
than the newest stored one. What a dropped connection left unstored is forgotten (``clear``): it
is pulled again. Mentions are counted by the store as it writes: the @ badge follows the writes.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterable, Sequence

from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store.codec import preview_text
from parler_desktop.store.room_counts import RoomSummary


@dataclasses.dataclass
class _Pulled:
    from_others: list[int]  # seqs of the pulled messages not sent by the human, ascending
    newest: StoredMessage
    preview: str | None = None  # the newest one's, made when first shown


class PulledAhead:
    def __init__(self) -> None:
        self._rooms: dict[str, _Pulled] = {}

    def __bool__(self) -> bool:
        return bool(self._rooms)

    def add(self, room: str, messages: Sequence[StoredMessage], me: str) -> None:
        """A page of ``room``, ascending by seq (pages come in order)."""
        if not messages:
            return
        seqs = [message.seq for message in messages if message.sender.id != me]
        pulled = self._rooms.get(room)
        if pulled is None:
            self._rooms[room] = _Pulled(seqs, messages[-1])
            return
        last = pulled.from_others[-1] if pulled.from_others else 0
        pulled.from_others.extend(seq for seq in seqs if seq > last)  # (a page pulled twice counts once)
        if messages[-1].seq > pulled.newest.seq:
            pulled.newest, pulled.preview = messages[-1], None

    def clear(self) -> None:
        self._rooms.clear()

    def prune(self, stored: Iterable[RoomSummary]) -> None:
        """Forget what the store now holds (``stored``: its summaries, just read)."""
        for summary in stored:
            pulled = self._rooms.get(summary.name)
            if pulled is None:
                continue
            if pulled.newest.seq <= summary.max_seq:
                del self._rooms[summary.name]
            else:
                del pulled.from_others[: bisect.bisect_right(pulled.from_others, summary.max_seq)]

    def shown(self, summary: RoomSummary) -> RoomSummary:
        """The room's row: the store's summary with what was pulled above it."""
        pulled = self._rooms.get(summary.name)
        if pulled is None or pulled.newest.seq <= summary.max_seq:
            return summary
        if pulled.preview is None:
            pulled.preview = preview_text(pulled.newest.parts)
        counted_from = max(summary.max_seq, summary.cursor)
        above = len(pulled.from_others) - bisect.bisect_right(pulled.from_others, counted_from)
        return dataclasses.replace(
            summary, unread=summary.unread + above, last_ts=pulled.newest.ts, last_preview=pulled.preview,
            last_sender=pulled.newest.sender.name,
        )
