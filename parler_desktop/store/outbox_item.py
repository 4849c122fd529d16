"""The values of what the human wrote: outbox items (what they posted and where it stands) and
drafts (what they typed and did not send yet).

They live in the store (the lowest layer that needs them); the session re-exports the outbox's
with its events.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class OutboxStatus(enum.Enum):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    DISCARDED = "discarded"


@dataclass(frozen=True)
class OutboxItem:
    """One message the human posted: written to disk before any network I/O."""

    client_id: str
    room: str
    parts: tuple[dict, ...]  # exactly what is sent, signature part included
    created_at: float
    status: OutboxStatus = OutboxStatus.PENDING
    mentions: tuple[str, ...] = ()
    reply_to: str | None = None
    message_id: str | None = None
    seq: int | None = None
    error: str | None = None
    error_code: str | None = None


@dataclass(frozen=True)
class Draft:
    """A room's composer text not sent yet, with the message it replies to."""

    room: str
    text: str
    reply_to: str | None = None  # the hub id of the message it answers
    reply_label: str = ""  # what the reply banner says ("alice: the question…")

    @property
    def empty(self) -> bool:
        return not self.text.strip() and self.reply_to is None
