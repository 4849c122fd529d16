"""Hub addresses and invite links as people type them (protocol.md §1.1, §7.9).

Users paste ``127.0.0.1:7070``, ``https://hub.example/``, ``parler://host:port`` or a whole invite
link; the client always dials ``ws[s]://…/ws``.
"""

from __future__ import annotations

from dataclasses import dataclass

from websockets.exceptions import InvalidURI
from websockets.uri import parse_uri

_SCHEMES = (
    ("wss://", "wss://"),
    ("ws://", "ws://"),
    ("https://", "wss://"),
    ("http://", "ws://"),
    ("parler://", "ws://"),
)

JOIN_MARKER = "/join/"
# The words of the commands people copy an invite from, around the invite itself.
_COMMAND_WORDS = frozenset({"parler", "parler-desktop", "conversation", "session", "join"})


def normalize_hub_url(text: str) -> str:
    """The WebSocket URL to dial for any accepted spelling of a hub address.

    Raises ``ValueError`` for an address that cannot be dialed (empty, bad port, …).
    """
    address = text.strip()
    for typed, dialed in _SCHEMES:
        if address.lower().startswith(typed):
            address = dialed + address[len(typed):]
            break
    else:
        address = "ws://" + address
    address = address.rstrip("/")
    if address in ("ws:", "wss:") or address.endswith("://"):
        raise ValueError(f"no hub address in {text!r}")
    if not address.endswith("/ws"):
        address += "/ws"
    try:
        parse_uri(address)
    except (InvalidURI, ValueError) as error:  # e.g. a port out of range
        raise ValueError(f"not a hub address: {text.strip()!r} ({error})") from None
    return address


@dataclass(frozen=True)
class InviteRef:
    """A bare invite code, and the hub it names when it came as a link or ``CODE@HUB``."""

    code: str
    hub_url: str | None = None


def parse_invite(text: str) -> InviteRef:
    """Split ``CODE``, ``CODE@HUB`` or ``…/join/CODE`` into the code and the hub to dial.

    People paste what the reference ``parler`` prints, so a whole command line is taken too
    (``parler conversation CODE@HUB``, ``parler join …``, ``parler-desktop join --hub URL CODE``):
    its last word is the invite. A link may end in ``/``, a query or a fragment. The hub itself
    understands links, but only we can choose which hub to dial, so the code is always sent bare
    (protocol.md §7.9). Raises ``ValueError`` when no code is left.
    """
    words = text.split()
    hub: str | None = None
    if "--hub" in words:
        at = words.index("--hub")
        hub = normalize_hub_url(words[at + 1] if at + 1 < len(words) else "")  # "" is refused
        del words[at:at + 2]
    words = [word for word in words if word not in _COMMAND_WORDS and not word.startswith("-")]
    value = words[-1] if words else ""
    if JOIN_MARKER in value:
        base, _, tail = value.partition(JOIN_MARKER)
        code = tail.split("?")[0].split("#")[0].strip("/")
        hub = normalize_hub_url(base) if base.strip() else hub
    elif "@" in value:
        code, _, base = value.partition("@")
        hub = normalize_hub_url(base) if base.strip() else hub
    else:
        code = value
    if not code:
        raise ValueError(f"no invite code in {text.strip()!r}")
    return InviteRef(code=code, hub_url=hub)
