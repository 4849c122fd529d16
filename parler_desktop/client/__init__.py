"""The hub client: one reconnecting, subscribed session per (hub, identity); no Qt.

``HubSession`` is the entry point; it reports everything as the events of ``events.py``.
"""

from parler_desktop.client.address import normalize_hub_url, parse_invite
from parler_desktop.client.errors import (
    BadReply,
    ConnectionLost,
    HandshakeRefused,
    HubRefused,
    HubUnreachable,
    SessionClosed,
)
from parler_desktop.client.session import HubSession
from parler_desktop.client.tuning import SessionTuning

__all__ = [
    "BadReply", "ConnectionLost", "HandshakeRefused", "HubRefused", "HubSession", "HubUnreachable", "SessionClosed",
    "SessionTuning", "normalize_hub_url", "parse_invite",
]
