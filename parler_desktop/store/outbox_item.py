"""The outbox's values: what the human posted and where it stands.

They live in the store (the lowest layer that needs them); the session re-exports them with its
events.
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
