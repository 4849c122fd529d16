"""The shared data shapes of protocol.md §4: parts, targets, messages, rooms, roster, cards."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from parler_desktop.protocol.codec import (
    I64,
    U32,
    Custom,
    OneOf,
    WireError,
    WireShape,
    check_text,
    WIRE_NAME,
    LOCAL,
)
from parler_desktop.protocol.shared_values import SharedValues
from parler_desktop.protocol.trim import trim

Part = dict[str, Any]

EXTENSION_KIND = re.compile(r"^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
RoomKind = Annotated[str, OneOf("channel", "dm", "service")]
Attention = Annotated[str, OneOf("open", "dnd", "focus")]


def normalize_part(obj: Any, where: str = "part") -> Part:
    """Validate a Part as the hub does (§4.1) and return its stored form.

    Text and data parts keep only their own members; extension parts keep everything.
    """
    if not isinstance(obj, dict):
        raise WireError(f"{where}: expected an object")
    kind = obj.get("kind")
    if not isinstance(kind, str):
        raise WireError(f"{where}: missing kind")
    if kind == "text":
        return {"kind": "text", "text": check_text(obj.get("text"), f"{where}.text")}
    if kind == "data":
        if "data" not in obj:
            raise WireError(f"{where}: data part without data")
        return {"kind": "data", "data": obj["data"]}
    if not EXTENSION_KIND.match(kind):
        raise WireError(f"{where}: unknown part kind {kind!r}")
    return dict(obj)


def normalize_parts(value: Any) -> tuple[Part, ...]:
    if not isinstance(value, list):
        raise WireError("parts: expected an array")
    return tuple(normalize_part(p, f"parts[{i}]") for i, p in enumerate(value))


# Rooms and part kinds, and messages' senders, kept once however many messages name them (shared_values.py).
shared_texts: SharedValues[str] = SharedValues()


def received_parts(value: Any) -> tuple[Part, ...]:
    """Parts as a hub relayed them: any object with a string kind is kept for display (each
    kind's one copy).

    A client must still show a message whose parts a newer hub allows, so this is lenient.
    """
    if not isinstance(value, list):
        raise WireError("parts: expected an array")
    share = shared_texts.text
    for i, p in enumerate(value):
        if not isinstance(p, dict) or not isinstance(kind := p.get("kind"), str):
            raise WireError(f"parts[{i}]: expected an object with a kind")
        p["kind"] = share(kind)
    return tuple(value)


def shared_text(value: Any) -> str:
    """A JSON string (``check_text``), its one copy."""
    return shared_texts.text(value if type(value) is str and value.isascii() else check_text(value))


SharedText = Annotated[str, Custom(shared_text, lambda text: text)]


def _parts_to_wire(parts: tuple[Part, ...]) -> list[Part]:
    return list(parts)


StrictParts = Annotated[tuple, Custom(normalize_parts, _parts_to_wire)]
RelayedParts = Annotated[tuple, Custom(received_parts, _parts_to_wire)]


def sanitize_name(name: str) -> str:
    """Room/service name sanitizing of §7.8: trim, non [A-Za-z0-9_-] → ``_``, empty → ``_``."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", trim(name))
    return cleaned or "_"


def service_room(service: str) -> str:
    """The room of a service (§7.8): ``svc.`` and the sanitized service name."""
    return "svc." + sanitize_name(service)


# --- targets (§4.3) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RoomTarget(WireShape):
    TAG_KEY = "kind"
    TAG = "room"
    room: str


@dataclass(frozen=True)
class DmTarget(WireShape):
    TAG_KEY = "kind"
    TAG = "dm"
    agent: str


@dataclass(frozen=True)
class ServiceTarget(WireShape):
    TAG_KEY = "kind"
    TAG = "service"
    service: str


Target = RoomTarget | DmTarget | ServiceTarget
_TARGETS = {cls.TAG: cls for cls in (RoomTarget, DmTarget, ServiceTarget)}


def target_from_wire(obj: Any) -> Target:
    if not isinstance(obj, dict) or obj.get("kind") not in _TARGETS:
        raise WireError("target: expected kind room, dm or service")
    return _TARGETS[obj["kind"]].from_wire(obj)


TargetField = Annotated[Target, Custom(target_from_wire, lambda t: t.to_wire())]


# --- messages and rooms (§4.2, §4.4–§4.7) -------------------------------------------------------


@dataclass(frozen=True)
class EndpointRef(WireShape):
    id: str
    name: str
    role: str | None = None


shared_senders: SharedValues[EndpointRef] = SharedValues()


def shared_sender(obj: Any) -> EndpointRef:
    """A message's sender, decoded once for every message with the same members (the members
    read are the key: an object decoded as the key says, or refused, each time)."""
    if isinstance(obj, dict):
        key = (obj.get("id"), obj.get("name"), obj.get("role"))
        if type(key[0]) is str and type(key[1]) is str and (key[2] is None or type(key[2]) is str):
            return shared_senders.get(key, EndpointRef.from_wire, obj)
    return EndpointRef.from_wire(obj)


Sender = Annotated[EndpointRef, Custom(shared_sender, lambda sender: sender.to_wire())]


class SignatureState(enum.Enum):
    """What checking a message's ``com.parler.sig`` part found (§8)."""

    VALID = "verified"
    UNSIGNED = "unsigned"
    INVALID = "invalid"


@dataclass(frozen=True)
class StoredMessage(WireShape):
    seq: I64
    id: str
    room: SharedText
    sender: Sender = field(metadata={WIRE_NAME: "from"})
    parts: RelayedParts
    ts: I64
    mentions: tuple[str, ...] | None = None
    reply_to: str | None = None
    # Checked once, off the UI thread, when the local store stored the message (None: unchecked).
    signature: SignatureState | None = field(default=None, compare=False, repr=False, metadata={LOCAL: True})

    @property
    def text(self) -> str:
        """The message's text parts joined by blank lines (the plain-text view of it)."""
        return "\n\n".join(p["text"] for p in self.parts if p.get("kind") == "text" and isinstance(p.get("text"), str))

    def with_signature(self, signature: SignatureState) -> "StoredMessage":
        """This message with its signature verdict: ``dataclasses.replace`` without its look at
        every field (each message stored, or shown before it is, gets one)."""
        return StoredMessage(self.seq, self.id, self.room, self.sender, self.parts, self.ts, self.mentions, self.reply_to, signature)


@dataclass(frozen=True)
class RoomInfo(WireShape):
    name: str
    kind: str
    members: U32
    unread: U32


@dataclass(frozen=True)
class RosterEntry(WireShape):
    id: str
    name: str
    status: str
    last_seen: I64
    role: str | None = None
    activity: str | None = None
    attention: str | None = None
    service_role: str | None = None


@dataclass(frozen=True)
class JoinRequest(WireShape):
    agent: str
    name: str
    requested_at: I64
    role: str | None = None


# --- directory and memory (§4.8, §4.9) ----------------------------------------------------------


@dataclass(frozen=True)
class Skill(WireShape):
    id: str
    name: str
    description: str | None = None


@dataclass(frozen=True)
class AgentCard(WireShape):
    id: str
    name: str
    kind: Annotated[str, OneOf("agent", "endpoint")]
    role: str | None = None
    description: str | None = None
    tags: tuple[str, ...] | None = None
    skills: tuple[Skill, ...] | None = None
    meta: dict | None = None
    protocol_version: str | None = None


@dataclass(frozen=True)
class DirectoryEntry(WireShape):
    card: AgentCard
    visibility: str
    status: str
    hub: str
    verified: bool
    first_seen: I64
    last_seen: I64
    activity: str | None = None
    attention: str | None = None
    sig: str | None = None


@dataclass(frozen=True)
class Fact(WireShape):
    text: str
    key: str | None = None
    room: str | None = None


@dataclass(frozen=True)
class RecallHit(WireShape):
    text: str
    author: str
    ts: I64
    score: float
    key: str | None = None
    room: str | None = None
