"""Small checks and conversions several handlers share."""

from __future__ import annotations

import json
import logging

from parler_desktop.hub.context import HubContext, OpError
from parler_desktop.hub.sql.messages import MessageRow
from parler_desktop.protocol import errors, wire_json
from parler_desktop.protocol.frames import Delivery
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
    return _message_with_parts(row, _stored_parts(row))


def fresh_delivery(row: MessageRow) -> str:
    """The ``delivery`` frame of a row this hub has just stored from a decoded ``send``.

    Its parts text was encoded from checked values moments ago, so it goes out as stored: parsing
    and encoding it again, as ``stored_message`` must for rows of older databases, would double
    the cost of a push. (JSON objects are unordered; ``parts`` simply comes last.)"""
    wire = Delivery(message=_message_with_parts(row, ())).to_wire()
    del wire["message"]["parts"]
    return f'{wire_json.dumps(wire)[:-2]},"parts":{row.parts}}}}}'


def _message_with_parts(row: MessageRow, parts: tuple[Part, ...]) -> StoredMessage:
    mentions = json.loads(row.mentions) if row.mentions is not None else None
    return StoredMessage(
        seq=row.seq,
        id=row.id,
        room=row.room,
        sender=EndpointRef(id=row.author, name=row.author_name, role=row.author_role),
        parts=parts,
        ts=row.ts,
        mentions=tuple(mentions) if mentions is not None else None,
        reply_to=row.reply_to,
    )


def derived_status(
    ctx: HubContext, status: str | None, attention: str | None, ts: int | None, now: int
) -> tuple[str, str | None]:
    """(status, attention) as readers see them: ``offline`` and no attention once stale (§7.11)."""
    stale_ms = ctx.config.limits.presence_stale_secs * 1000
    if status is None or ts is None or now - ts > stale_ms:
        return "offline", None
    return status, attention
