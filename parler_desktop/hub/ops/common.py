"""Small checks and conversions several handlers share."""

from __future__ import annotations

import json
import logging

from parler_desktop.hub.context import HubContext, OpError
from parler_desktop.hub.sql.messages import MessageRow
from parler_desktop.protocol import errors, wire_json
from parler_desktop.protocol.values import EndpointRef, Part, StoredMessage

log = logging.getLogger(__name__)

UNREADABLE_PARTS = "[the hub cannot relay this message: its stored content is not valid JSON]"


def too_large(label: str, size: int, limit: int) -> OpError:
    """The reference hub's wording for every size bound, plus the unit after the limit."""
    return OpError(f"{label} too large: {size} bytes > limit {limit}", errors.TOO_LARGE)


def utf8_size_over(text: str, limit: int) -> int | None:
    """The UTF-8 size of ``text`` if it is more than ``limit`` bytes, else None."""
    # A str of n code points has at most 4n UTF-8 bytes: skip encoding short strings.
    if len(text) * 4 <= limit:
        return None
    size = len(text.encode())
    return size if size > limit else None


def check_len(ctx: HubContext, label: str, value: str | None, cap: int | None = None) -> None:
    """``too_large`` when ``value`` is longer than ``cap`` bytes (default: the string cap)."""
    limit = ctx.config.limits.max_string_bytes if cap is None else cap
    if value is not None and (size := utf8_size_over(value, limit)) is not None:
        raise too_large(label, size, limit)


def not_member(room: str) -> OpError:
    return OpError(f"not a member of '{room}'", errors.NOT_MEMBER)


def _stored_parts(row: MessageRow) -> tuple[Part, ...]:
    """The row's parts, or a stand-in when they cannot go on the wire.

    A database written before numbers were checked at decode may hold NaN or Infinity; sending
    that would fail to encode every reply that includes the row and drop the reader's socket.
    """
    try:
        parts = wire_json.loads(row.parts)  # refuses NaN, Infinity and numbers out of range
    except ValueError:
        log.warning("message %s in %s holds parts that cannot be sent; relayed as a notice", row.id, row.room)
        return ({"kind": "text", "text": UNREADABLE_PARTS},)
    return tuple(parts)


def stored_message(row: MessageRow) -> StoredMessage:
    mentions = json.loads(row.mentions) if row.mentions is not None else None
    return StoredMessage(
        seq=row.seq,
        id=row.id,
        room=row.room,
        sender=EndpointRef(id=row.author, name=row.author_name, role=row.author_role),
        parts=_stored_parts(row),
        ts=row.ts,
        mentions=tuple(mentions) if mentions is not None else None,
        reply_to=row.reply_to,
    )


def fresh_delivery(row: MessageRow) -> str:
    """The ``delivery`` frame of a row this hub has just stored from a decoded ``send``.

    Its parts and mentions texts were encoded from checked values moments ago, so they go out as
    stored, spliced in; the rest is written straight from the row. This is ``StoredMessage``'s
    wire form (``tests/test_hub_messages.py`` holds the two equal for any row) without building
    the dataclasses and walking their fields: every send pushes one, and that walk was 60% of
    its cost. (JSON objects are unordered; ``mentions`` and ``parts`` simply come last.)"""
    sender = {"id": row.author, "name": row.author_name}
    if row.author_role is not None:
        sender["role"] = row.author_role
    message: dict[str, object] = {"seq": row.seq, "id": row.id, "room": row.room, "from": sender, "ts": row.ts}
    if row.reply_to is not None:
        message["replyTo"] = row.reply_to
    head = wire_json.dumps({"type": "delivery", "message": message})[:-2]
    mentions = "" if row.mentions is None else f',"mentions":{row.mentions}'
    return f'{head}{mentions},"parts":{row.parts}}}}}'


def derived_status(
    ctx: HubContext, status: str | None, attention: str | None, ts: int | None, now: int
) -> tuple[str, str | None]:
    """(status, attention) as readers see them: ``offline`` and no attention once stale (§7.11)."""
    stale_ms = ctx.config.limits.presence_stale_secs * 1000
    if status is None or ts is None or now - ts > stale_ms:
        return "offline", None
    return status, attention
