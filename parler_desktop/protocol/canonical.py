"""Canonical bytes (§8.1, §7.14), message signing and signature verification.

Cryptography is injected (``sign`` / ``verify`` callables) so this module stays pure; the
identity module supplies Ed25519.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from parler_desktop.protocol import wire_json
from parler_desktop.protocol.codec import WireError
from parler_desktop.protocol.parts import SIG_KIND, Signature
from parler_desktop.protocol.values import (
    AgentCard,
    DmTarget,
    Part,
    RoomTarget,
    ServiceTarget,
    SignatureState,
    StoredMessage,
    Target,
    service_room,
    target_from_wire,
)

Signer = Callable[[bytes], str]  # bytes -> standard padded base64 signature
Verifier = Callable[[str, bytes, str], bool]  # (agent id, bytes, base64 signature) -> valid


def canonical_json(value: Any) -> bytes:
    """Compact JSON, keys sorted recursively, raw UTF-8, the reference's numbers (§8.1 step 3).

    Raises ``NumberError`` (a ValueError) for NaN, ±Infinity and integers beyond a float.
    """
    return wire_json.canonical_text(value).encode("utf-8")


def canonical_message_bytes(
    author_id: str, target: dict, parts: Sequence[Part], reply_to: str | None, ts: int, uid: str
) -> bytes:
    body: dict[str, Any] = {
        "v": 1,
        "from": author_id,
        "target": target,
        "ts": ts,
        "uid": uid,
        "parts": [p for p in parts if p.get("kind") != SIG_KIND],
    }
    if reply_to is not None:
        body["replyTo"] = reply_to
    return canonical_json(body)


def canonical_card_bytes(card: AgentCard) -> bytes:
    return canonical_json(card.to_wire())


def sign_parts(
    author_id: str,
    target: Target,
    parts: Sequence[Part],
    reply_to: str | None,
    sign: Signer,
    ts: int | None = None,
    uid: str | None = None,
) -> tuple[Part, ...]:
    """Return ``parts`` without any old signature, plus a fresh ``com.parler.sig`` part last."""
    unsigned = tuple(p for p in parts if p.get("kind") != SIG_KIND)
    ts = int(time.time() * 1000) if ts is None else ts
    uid = str(uuid.uuid4()) if uid is None else uid
    wire_target = target.to_wire()
    signature = sign(canonical_message_bytes(author_id, wire_target, unsigned, reply_to, ts, uid))
    return (*unsigned, Signature(sig=signature, ts=ts, uid=uid, target=wire_target).to_part())


def find_signature(parts: Sequence[Part]) -> tuple[Signature, Target] | None:
    """The first well-formed sig part with a valid target (§8.1 verification step 1)."""
    for part in parts:
        sig = Signature.from_part(part)
        if sig is None:
            continue
        try:
            return sig, target_from_wire(sig.target)
        except WireError:
            continue
    return None


def is_room_bound(target: Target, room: str, my_id: str) -> bool:
    """The signed target matches where the message was delivered (§8.1 step 3)."""
    if isinstance(target, RoomTarget):
        return target.room == room
    if isinstance(target, ServiceTarget):
        return room == service_room(target.service)
    if isinstance(target, DmTarget):
        return target.agent == my_id and room.startswith("dm.")
    return False


def verify_message(message: StoredMessage, verify: Verifier, my_id: str) -> SignatureState:
    found = find_signature(message.parts)
    if found is None:
        return SignatureState.UNSIGNED
    sig, target = found
    signed = canonical_message_bytes(message.sender.id, sig.target, message.parts, message.reply_to, sig.ts, sig.uid)
    if not verify(message.sender.id, signed, sig.sig):
        return SignatureState.INVALID
    if not is_room_bound(target, message.room, my_id):
        return SignatureState.INVALID
    return SignatureState.VALID
