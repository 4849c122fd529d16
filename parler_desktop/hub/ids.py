"""Identifiers the hub mints: message ids (UUIDv7), room suffixes, invite codes, tokens, nonces."""

from __future__ import annotations

import hashlib
import os
import secrets
import time
import uuid

ROOM_SUFFIX_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
INVITE_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def uuid7() -> str:
    """A time-ordered UUID (RFC 9562 version 7): 48-bit ms timestamp, then random bits."""
    value = (now_ms() & ((1 << 48) - 1)) << 80 | int.from_bytes(os.urandom(10))
    value = value & ~(0xF << 76 | 0x3 << 62) | 0x7 << 76 | 0x2 << 62  # version 7, variant 10
    digits = f"{value:032x}"  # formatted here: uuid.UUID costs as much as the rest (one per send)
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def _random_text(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def room_suffix() -> str:
    return _random_text(ROOM_SUFFIX_ALPHABET, 6)


def invite_code() -> str:
    return _random_text(INVITE_CODE_ALPHABET, 8)


def bearer_token() -> str:
    """32 characters of the invite-code alphabet (160 bits), like the reference hub's tokens."""
    return _random_text(INVITE_CODE_ALPHABET, 32)


def hub_token(public_url: str) -> str:
    return hashlib.sha256(public_url.encode()).hexdigest()[:12]


def auth_nonce(public_url: str, expires_ms: int) -> str:
    """``parler-auth:v1:<hubtoken>:<expiry-ms>:<uuid-v4>`` (protocol.md §3)."""
    return f"parler-auth:v1:{hub_token(public_url)}:{expires_ms}:{uuid.uuid4()}"

