"""Links to one message: ``parler://HOST:PORT/room/ROOM/SEQ`` for a plain (``ws://``) hub, the
hub's ``https://`` form for a TLS hub (``parler://`` always dials ``ws://``, docs/protocol.md §1.1).

The room is percent-encoded, so any room name survives; the seq is hub-global, so it names the
message on that hub alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

from parler_desktop.client.address import normalize_hub_url

ROOM_MARKER = "/room/"


@dataclass(frozen=True)
class MessageLink:
    hub_url: str  # the WebSocket URL to dial
    room: str
    seq: int


def message_link(hub_url: str, room: str, seq: int) -> str:
    """The link to message ``seq`` of ``room`` on the hub at ``hub_url`` (``ws[s]://…/ws``)."""
    base = normalize_hub_url(hub_url).removesuffix("/ws")
    scheme, rest = base.split("://", 1)
    return f"{'https' if scheme == 'wss' else 'parler'}://{rest}{ROOM_MARKER}{quote(room, safe='')}/{seq}"


def is_message_link(text: str) -> bool:
    try:
        parse_message_link(text)
    except ValueError:
        return False
    return True


def parse_message_link(text: str) -> MessageLink:
    """Read a link made by ``message_link``; raises ``ValueError`` saying what is wrong."""
    value = text.strip()
    if not value.lower().startswith(("parler://", "https://", "http://")):
        raise ValueError(f"not a Parler message link: {value!r}")
    base, marker, tail = value.rpartition(ROOM_MARKER)
    if not marker:
        raise ValueError(f"no /room/ in the link {value!r}")
    room, _, seq = tail.rstrip("/").rpartition("/")
    if not room or not seq.isdigit() or int(seq) <= 0:
        raise ValueError(f"the link {value!r} does not end in /room/ROOM/SEQ")
    return MessageLink(normalize_hub_url(base), unquote(room), int(seq))
