"""Every client frame (§5) and hub frame (§6) as a typed value, with encode and decode.

Decoding never raises: a broken frame becomes ``Malformed`` and an unknown hub frame type
becomes ``UnknownFrame``, so a receive loop can keep going (design.md §6, matrix-nio style).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from parler_desktop.protocol import wire_json
from parler_desktop.protocol.codec import (
    I64,
    NULL_IS_MALFORMED,
    OMIT_WHEN_DEFAULT,
    U32,
    U64,
    OneOf,
    WireError,
    WireShape,
)
from parler_desktop.protocol.json_nesting import MAX_JSON_NESTING, nesting_exceeds
from parler_desktop.protocol.values import (
    AgentCard,
    Attention,
    DirectoryEntry,
    Fact,
    JoinRequest,
    RecallHit,
    RoomInfo,
    RoomKind,
    RosterEntry,
    StoredMessage,
    StrictParts,
    TargetField,
)

TaskState = Annotated[str, OneOf("accepted", "working", "awaiting", "done", "failed", "cancelled")]
TERMINAL_TASK_STATES = frozenset({"done", "failed", "cancelled"})  # a task ends in one of these


class ClientFrame(WireShape):
    TAG_KEY: ClassVar[str] = "op"


class HubFrame(WireShape):
    TAG_KEY: ClassVar[str] = "type"


def _defaulted(value: Any, *, omit_when_default: bool = False) -> Any:
    return field(default=value, metadata={NULL_IS_MALFORMED: True, OMIT_WHEN_DEFAULT: omit_when_default})


# --- client → hub -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello(ClientFrame):
    TAG = "hello"
    id: str
    name: str
    role: str | None = None
    nonce: str | None = None
    sig: str | None = None
    secret: str | None = None


@dataclass(frozen=True)
class Invite(ClientFrame):
    TAG = "invite"
    kind: RoomKind
    room: str | None = None
    ttl_secs: U64 | None = None
    max_uses: U32 | None = None
    require_approval: bool = _defaulted(False, omit_when_default=True)


@dataclass(frozen=True)
class Redeem(ClientFrame):
    TAG = "redeem"
    code: str


@dataclass(frozen=True)
class JoinRequests(ClientFrame):
    TAG = "join_requests"
    room: str


@dataclass(frozen=True)
class ResolveJoin(ClientFrame):
    TAG = "resolve_join"
    room: str
    agent: str
    approve: bool


@dataclass(frozen=True)
class Send(ClientFrame):
    TAG = "send"
    target: TargetField
    parts: StrictParts
    mentions: tuple[str, ...] | None = None
    reply_to: str | None = None
    client_id: str | None = None


@dataclass(frozen=True)
class Pull(ClientFrame):
    TAG = "pull"
    room: str
    since: I64 | None = None
    limit: U32 | None = None
    wait_secs: U64 | None = None
    ack: I64 | None = None


@dataclass(frozen=True)
class Rooms(ClientFrame):
    TAG = "rooms"


@dataclass(frozen=True)
class Roster(ClientFrame):
    TAG = "roster"
    room: str


@dataclass(frozen=True)
class Presence(ClientFrame):
    TAG = "presence"
    status: str
    activity: str | None = None
    attention: Attention | None = None


@dataclass(frozen=True)
class SetAttention(ClientFrame):
    TAG = "set_attention"
    attention: Attention


@dataclass(frozen=True)
class Subscribe(ClientFrame):
    TAG = "subscribe"


@dataclass(frozen=True)
class Ping(ClientFrame):
    TAG = "ping"


@dataclass(frozen=True)
class DeleteRoom(ClientFrame):
    TAG = "delete_room"
    room: str


@dataclass(frozen=True)
class Register(ClientFrame):
    TAG = "register"
    card: AgentCard
    visibility: Annotated[str, OneOf("public", "private")] = _defaulted("private")
    sig: str | None = None


@dataclass(frozen=True)
class Discover(ClientFrame):
    TAG = "discover"
    scope: Annotated[str, OneOf("hub", "public")] = _defaulted("hub")
    query: str | None = None
    tag: str | None = None
    skill: str | None = None
    status: str | None = None
    limit: U32 | None = None


@dataclass(frozen=True)
class Lookup(ClientFrame):
    TAG = "lookup"
    id: str


@dataclass(frozen=True)
class MintDirectoryToken(ClientFrame):
    TAG = "mint_directory_token"
    ttl_secs: U64 | None = None


@dataclass(frozen=True)
class MintWatch(ClientFrame):
    TAG = "mint_watch"
    room: str
    ttl_secs: U64 | None = None


@dataclass(frozen=True)
class PutBlob(ClientFrame):
    TAG = "put_blob"
    target: TargetField
    sha256: str
    size: U64
    media_type: str | None = None


@dataclass(frozen=True)
class GetBlob(ClientFrame):
    TAG = "get_blob"
    id: str


@dataclass(frozen=True)
class Serve(ClientFrame):
    TAG = "serve"
    service: str


@dataclass(frozen=True)
class Claim(ClientFrame):
    TAG = "claim"
    room: str
    message: str
    lease_secs: U64 | None = None


@dataclass(frozen=True)
class Queue(ClientFrame):
    TAG = "queue"
    room: str
    role: str
    limit: U32 | None = None


@dataclass(frozen=True)
class Complete(ClientFrame):
    TAG = "complete"
    room: str
    message: str
    status: TaskState


@dataclass(frozen=True)
class Remember(ClientFrame):
    TAG = "remember"
    fact: Fact
    embedding: tuple[float, ...] | None = None
    embedding_model: str | None = None


@dataclass(frozen=True)
class Recall(ClientFrame):
    TAG = "recall"
    query: str
    room: str | None = None
    limit: U32 | None = None
    embedding: tuple[float, ...] | None = None
    key: str | None = None


# --- hub → client -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Challenge(HubFrame):
    TAG = "challenge"
    nonce: str
    version: str | None = None


@dataclass(frozen=True)
class Welcome(HubFrame):
    TAG = "welcome"
    id: str
    name: str


@dataclass(frozen=True)
class Invited(HubFrame):
    TAG = "invited"
    code: str
    url: str
    room: str
    kind: str
    expires_at: I64


@dataclass(frozen=True)
class Joined(HubFrame):
    TAG = "joined"
    room: str
    kind: str


@dataclass(frozen=True)
class JoinPending(HubFrame):
    TAG = "join_pending"
    room: str


@dataclass(frozen=True)
class JoinRequestList(HubFrame):
    TAG = "join_requests"
    room: str
    requests: tuple[JoinRequest, ...]


@dataclass(frozen=True)
class JoinResolved(HubFrame):
    TAG = "join_resolved"
    room: str
    agent: str
    approved: bool


@dataclass(frozen=True)
class Sent(HubFrame):
    TAG = "sent"
    id: str
    seq: I64
    room: str


@dataclass(frozen=True)
class Pulled(HubFrame):
    TAG = "pulled"
    room: str
    messages: tuple[StoredMessage, ...]
    cursor: I64


@dataclass(frozen=True)
class RoomList(HubFrame):
    TAG = "rooms"
    rooms: tuple[RoomInfo, ...]


@dataclass(frozen=True)
class RosterList(HubFrame):
    TAG = "roster"
    room: str
    entries: tuple[RosterEntry, ...]


@dataclass(frozen=True)
class PresenceOk(HubFrame):
    TAG = "presence_ok"


@dataclass(frozen=True)
class AttentionOk(HubFrame):
    TAG = "attention_ok"


@dataclass(frozen=True)
class Subscribed(HubFrame):
    TAG = "subscribed"


@dataclass(frozen=True)
class Delivery(HubFrame):
    TAG = "delivery"
    message: StoredMessage


@dataclass(frozen=True)
class Pong(HubFrame):
    TAG = "pong"


@dataclass(frozen=True)
class RoomDeleted(HubFrame):
    TAG = "room_deleted"
    room: str


@dataclass(frozen=True)
class Registered(HubFrame):
    TAG = "registered"
    id: str
    visibility: str
    verified: bool


@dataclass(frozen=True)
class DirectoryList(HubFrame):
    TAG = "directory"
    agents: tuple[DirectoryEntry, ...]


@dataclass(frozen=True)
class CardReply(HubFrame):
    TAG = "card"
    entry: DirectoryEntry | None = None


@dataclass(frozen=True)
class DirectoryToken(HubFrame):
    TAG = "directory_token"
    token: str
    expires_at: I64


@dataclass(frozen=True)
class WatchToken(HubFrame):
    TAG = "watch"
    token: str
    room: str
    expires_at: I64


@dataclass(frozen=True)
class BlobReady(HubFrame):
    TAG = "blob_ready"
    id: str


@dataclass(frozen=True)
class BlobStored(HubFrame):
    TAG = "blob_stored"
    id: str
    size: U64


@dataclass(frozen=True)
class BlobIncoming(HubFrame):
    TAG = "blob_incoming"
    id: str
    size: U64
    media_type: str | None = None


@dataclass(frozen=True)
class Claimed(HubFrame):
    TAG = "claimed"
    room: str
    message: str
    claimed: bool
    lease_until: I64 | None = None


@dataclass(frozen=True)
class Queued(HubFrame):
    TAG = "queued"
    room: str
    messages: tuple[StoredMessage, ...]


@dataclass(frozen=True)
class Completed(HubFrame):
    TAG = "completed"
    room: str
    message: str
    completed: bool


@dataclass(frozen=True)
class Remembered(HubFrame):
    TAG = "remembered"
    ok: bool


@dataclass(frozen=True)
class Recalled(HubFrame):
    TAG = "recalled"
    hits: tuple[RecallHit, ...]


@dataclass(frozen=True)
class ErrorFrame(HubFrame):
    TAG = "error"
    message: str
    code: str | None = None


# --- decode results that are not frames -----------------------------------------------------------


@dataclass(frozen=True)
class Malformed:
    """A frame that is not valid JSON or not a valid frame; ``reason`` says why."""

    reason: str
    tag: str | None = None


@dataclass(frozen=True)
class UnknownFrame:
    """A well-formed hub frame of a type this client does not know (newer hub)."""

    tag: str
    data: dict


CLIENT_FRAMES: dict[str, type[ClientFrame]] = {
    cls.TAG: cls  # type: ignore[misc]
    for cls in (
        Hello, Invite, Redeem, JoinRequests, ResolveJoin, Send, Pull, Rooms, Roster, Presence,
        SetAttention, Subscribe, Ping, DeleteRoom, Register, Discover, Lookup, MintDirectoryToken,
        MintWatch, PutBlob, GetBlob, Serve, Claim, Queue, Complete, Remember, Recall,
    )
}
HUB_FRAMES: dict[str, type[HubFrame]] = {
    cls.TAG: cls  # type: ignore[misc]
    for cls in (
        Challenge, Welcome, Invited, Joined, JoinPending, JoinRequestList, JoinResolved, Sent,
        Pulled, RoomList, RosterList, PresenceOk, AttentionOk, Subscribed, Delivery, Pong,
        RoomDeleted, Registered, DirectoryList, CardReply, DirectoryToken, WatchToken, BlobReady,
        BlobStored, BlobIncoming, Claimed, Queued, Completed, Remembered, Recalled, ErrorFrame,
    )
}


def encode(frame: ClientFrame | HubFrame) -> str:
    """Compact JSON text of a frame, tag first, optional members omitted."""
    return wire_json.dumps(frame.to_wire())


# A \uD800-\uDFFF escape: only then can the decoded object hold an unpaired surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _has_lone_surrogate(text: str | bytes, obj: Any) -> bool:
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if not _SURROGATE_ESCAPE.search(raw):
        return False
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _load_object(text: str | bytes, tag_key: str) -> dict | Malformed:
    try:
        obj = wire_json.loads(text)  # the reference's numbers (§1.3)
    except wire_json.NumberError as err:
        return Malformed(str(err))
    except (ValueError, RecursionError):
        return Malformed("not valid JSON")
    if _has_lone_surrogate(text, obj):
        return Malformed("string contains an unpaired surrogate")
    if not isinstance(obj, dict):
        return Malformed("a frame must be a JSON object")
    if not isinstance(obj.get(tag_key), str):
        return Malformed(f"missing {tag_key!r}")
    return obj


def _decode(obj: dict, cls: type) -> Any:
    try:
        return cls.from_wire(obj)
    except WireError as err:
        return Malformed(str(err), cls.TAG)
    except RecursionError:
        return Malformed("frame nested too deeply", cls.TAG)


def decode_client_frame(text: str | bytes) -> ClientFrame | Malformed:
    if nesting_exceeds(text):  # what the reference hub's parser accepts, before we parse
        return Malformed(f"JSON nested deeper than {MAX_JSON_NESTING} levels")
    obj = _load_object(text, "op")
    if isinstance(obj, Malformed):
        return obj
    cls = CLIENT_FRAMES.get(obj["op"])
    if cls is None:
        return Malformed(f"unknown op {obj['op']!r}", obj["op"])
    return _decode(obj, cls)


def decode_hub_frame(text: str | bytes) -> HubFrame | Malformed | UnknownFrame:
    obj = _load_object(text, "type")
    if isinstance(obj, Malformed):
        return obj
    cls = HUB_FRAMES.get(obj["type"])
    if cls is None:
        return UnknownFrame(obj["type"], obj)
    return _decode(obj, cls)
