"""Conversions between the store's rows and the protocol/session values (run on the worker)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from parler_desktop.protocol import wire_json
from parler_desktop.protocol.part_text import part_headline
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.readable import readable
from parler_desktop.protocol.values import RosterEntry, StoredMessage
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus
from parler_desktop.store.preview import plain_text

PREVIEW_CHARS = 120
_WHITESPACE = re.compile(r"\s+")


def to_json(value: Any) -> str:
    """Compact, key-sorted JSON: equal values give equal text (the outbox compares content)."""
    return wire_json.dumps(value, sort_keys=True)


def message_row(message: StoredMessage, mentions_me: bool) -> tuple:
    """Values for ``messages(seq, room, id, sender_name, ts, mentions_me, wire, signature)``."""
    return (
        message.seq,
        message.room,
        message.id,
        message.sender.name,
        message.ts,
        1 if mentions_me else 0,
        to_json(message.to_wire()),
        message.signature.value if message.signature is not None else None,
    )


def message_from_wire_text(wire: str) -> StoredMessage:
    return StoredMessage.from_wire(json.loads(wire))


def roster_entry_from_wire_text(wire: str) -> RosterEntry:
    return RosterEntry.from_wire(json.loads(wire))


def preview_of_wire_text(wire: str) -> str:
    """The preview of a stored message, reading only its parts (the room list needs no more)."""
    return preview_text(json.loads(wire)["parts"])


def preview_text(parts: Sequence[dict]) -> str:
    """One short line of plain text for a room list: text parts without their Markdown syntax,
    then labels for the other parts."""
    pieces: list[str] = []
    for part in parts:
        kind = part.get("kind")
        if kind == "text":
            pieces.append(plain_text(str(part.get("text", ""))))
        elif kind != SIG_KIND and isinstance(kind, str):
            pieces.append(part_headline(part))
    line = _WHITESPACE.sub(" ", readable(" ".join(pieces))).strip()
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1].rstrip() + "…"


OUTBOX_COLUMNS = (
    "client_id, room, parts, mentions, reply_to, created_at, status, message_id, seq, error, error_code"
)


def outbox_content(item: OutboxItem) -> tuple[str, str, str, str | None]:
    """What a clientId stands for: (room, parts, mentions, reply_to) as stored text."""
    return item.room, to_json(list(item.parts)), to_json(list(item.mentions)), item.reply_to


def outbox_row(item: OutboxItem) -> tuple:
    room, parts, mentions, reply_to = outbox_content(item)
    return (
        item.client_id,
        room,
        parts,
        mentions,
        reply_to,
        item.created_at,
        item.status.value,
        item.message_id,
        item.seq,
        item.error,
        item.error_code,
    )


def outbox_from_row(row: Sequence) -> OutboxItem:

    client_id, room, parts, mentions, reply_to, created_at, status, message_id, seq, error, code = row
    return OutboxItem(
        client_id=client_id,
        room=room,
        parts=tuple(json.loads(parts)),
        created_at=created_at,
        status=OutboxStatus(status),
        mentions=tuple(json.loads(mentions)),
        reply_to=reply_to,
        message_id=message_id,
        seq=seq,
        error=error,
        error_code=code,
    )
