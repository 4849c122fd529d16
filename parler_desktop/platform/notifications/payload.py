"""An alert as the macOS and Windows notification services take it: plain text (neither renders
markup from us), a stable identifier per room of a hub, so the service itself replaces the room's
earlier notification (a UNNotificationRequest of the same identifier; a toast of the same tag and
group), the room as the thread that groups them on macOS, and the one "Open" button.

No thread on Windows: desktop-notifier makes a thread a toast ``<header>`` whose id *and title*
are the thread, and Windows shows a header's title above the toast (Toast XML schema, element
header), so the opaque identifier would be read as the heading."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

OPEN_ACTION = "open"
OPEN_LABEL = "Open"
REPLY_ACTION = "reply"
REPLY_LABEL = "Reply"
TITLE_LIMIT = 200  # characters; both services truncate long lines themselves, this bounds the request
BODY_LIMIT = 1000


@dataclass(frozen=True)
class NotificationPayload:
    identifier: str  # the same for every alert of one room of one hub
    thread: str | None  # groups a room's alerts on macOS; None on Windows (see the module docstring)
    title: str
    body: str
    actions: tuple[tuple[str, str], ...]  # (action id, label)


def room_identifier(hub: str, room: str) -> str:
    """Stable, opaque and short: the room's name never reaches the service's identifiers."""
    digest = hashlib.sha256(f"{hub}\0{room}".encode("utf-8")).hexdigest()[:24]
    return f"parler-room-{digest}"


def bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


THREADED_PLATFORMS = ("darwin",)


def payload_for(
    hub: str, room: str, title: str, body: str, slot: str = "", reply: bool = False, platform: str = sys.platform
) -> NotificationPayload:
    """``slot``: alerts of one room share one notification unless they name a slot of their own (a
    Needs you item's); ``reply`` offers Reply beside Open. The thread stays the room's."""
    room_id = room_identifier(hub, room)
    identifier = room_identifier(hub, f"{room}\0{slot}") if slot else room_id
    thread = room_id if platform in THREADED_PLATFORMS else None
    actions = ((OPEN_ACTION, OPEN_LABEL), *(((REPLY_ACTION, REPLY_LABEL),) if reply else ()))
    return NotificationPayload(identifier, thread, bounded(title, TITLE_LIMIT), bounded(body, BODY_LIMIT), actions)
