"""The Parler wire protocol (protocol.md) as pure values: no asyncio, no Qt, no I/O."""

from parler_desktop.protocol.codec import WireError
from parler_desktop.protocol.frames import (
    ClientFrame,
    HubFrame,
    Malformed,
    UnknownFrame,
    decode_client_frame,
    decode_hub_frame,
    encode,
)
from parler_desktop.protocol.values import (
    DmTarget,
    EndpointRef,
    Part,
    RoomInfo,
    RoomTarget,
    RosterEntry,
    ServiceTarget,
    StoredMessage,
    Target,
)

PROTOCOL_VERSION = "0.2"

__all__ = [
    "PROTOCOL_VERSION", "WireError", "ClientFrame", "HubFrame", "Malformed", "UnknownFrame",
    "decode_client_frame", "decode_hub_frame", "encode", "DmTarget", "EndpointRef", "Part",
    "RoomInfo", "RoomTarget", "RosterEntry", "ServiceTarget", "StoredMessage", "Target",
]
