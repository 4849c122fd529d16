"""TimelineEntry: one row of a timeline, from a stored message or from the human's outbox.

An entry is what the delegate paints. It is built once per row; the signature verdict comes with
the stored message (checked on the store's thread when it was stored), so painting never checks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from parler_desktop.client.events import OutboxItem, OutboxStatus
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.values import SignatureState, StoredMessage


GROUP_SECS = 300  # one author's messages this close together share one header


def day_label(ts_ms: int, now: float | None = None) -> str:
    """The date separator's words: "Today", "Yesterday", or the weekday and date."""
    day = time.strftime("%Y-%m-%d", time.localtime(ts_ms / 1000))
    today = now if now is not None else time.time()
    if day == time.strftime("%Y-%m-%d", time.localtime(today)):
        return "Today"
    if day == time.strftime("%Y-%m-%d", time.localtime(today - 86_400)):
        return "Yesterday"
    return time.strftime("%A %d %B %Y", time.localtime(ts_ms / 1000))


@dataclass(frozen=True)
class RowContext:
    """What a row shows because of the row above it."""

    divider: bool  # the "New messages" line sits above it
    grouped: bool  # same author, minutes after the row above: no header of its own
    day: str  # a date separator above it ("" when the row above is from the same day)


def row_context(previous: "TimelineEntry | None", entry: "TimelineEntry", divider: bool) -> RowContext:
    """Asked for every row the view lays out: the day is compared as each entry's remembered
    date, and worded only for the (few) rows that start a day."""
    new_day = previous is None or previous.day != entry.day
    day = day_label(entry.ts_ms) if new_day else ""
    grouped = (
        previous is not None
        and not divider
        and not day
        and previous.sender_id == entry.sender_id
        and 0 <= entry.ts_ms - previous.ts_ms < GROUP_SECS * 1000
    )
    return RowContext(divider, grouped, day)


@dataclass
class TimelineEntry:
    key: str  # message id, or "outbox:<clientId>" until the hub has stored it
    room: str
    seq: int | None
    message_id: str | None
    sender_id: str
    sender_name: str
    sender_role: str | None
    ts_ms: int
    parts: tuple[dict, ...]
    mentions: tuple[str, ...]
    reply_to: str | None
    mine: bool
    message: StoredMessage | None = None
    outbox: OutboxItem | None = None
    signature: SignatureState | None = None  # None: the human's own outbox row, or not checked
    _day: tuple[int, int] | None = field(default=None, repr=False)

    @classmethod
    def from_message(cls, message: StoredMessage, my_id: str) -> "TimelineEntry":
        return cls(
            key=message.id,
            room=message.room,
            seq=message.seq,
            message_id=message.id,
            sender_id=message.sender.id,
            sender_name=message.sender.name,
            sender_role=message.sender.role,
            ts_ms=int(message.ts),
            parts=tuple(message.parts),
            mentions=tuple(message.mentions or ()),
            reply_to=message.reply_to,
            mine=message.sender.id == my_id,
            message=message,
            signature=message.signature,
        )

    @classmethod
    def from_outbox(cls, item: OutboxItem, my_id: str, my_name: str) -> "TimelineEntry":
        return cls(
            key=f"outbox:{item.client_id}",
            room=item.room,
            seq=item.seq,
            message_id=item.message_id,
            sender_id=my_id,
            sender_name=my_name,
            sender_role=None,
            ts_ms=int(item.created_at * 1000),
            parts=tuple(item.parts),
            mentions=tuple(item.mentions),
            reply_to=item.reply_to,
            mine=True,
            outbox=item,
        )

    @property
    def day(self) -> tuple[int, int]:
        """The local date of the message (year, day of the year), worked out once: only compared,
        never shown (``day_label`` words it)."""
        if self._day is None:
            local = time.localtime(self.ts_ms / 1000)
            self._day = (local.tm_year, local.tm_yday)
        return self._day

    @cached_property
    def text(self) -> str:
        """The text parts joined by blank lines (what Markdown rendering and previews use),
        worked out once: laying out and painting a row read it several times."""
        return "\n\n".join(p["text"] for p in self.parts if p.get("kind") == "text" and isinstance(p.get("text"), str))

    @property
    def extension_parts(self) -> list[dict[str, Any]]:
        """Every part that is not text and not the signature (rendered as cards)."""
        return [p for p in self.parts if p.get("kind") not in ("text", SIG_KIND)]

    @property
    def is_pending(self) -> bool:
        return self.outbox is not None and self.outbox.status is OutboxStatus.PENDING

    @property
    def is_failed(self) -> bool:
        return self.outbox is not None and self.outbox.status is OutboxStatus.FAILED
