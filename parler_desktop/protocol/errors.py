"""Error codes of protocol.md §7.17 and how a client should treat them."""

from __future__ import annotations

UNAUTHENTICATED = "unauthenticated"
BAD_FRAME = "bad_frame"
PROTOCOL = "protocol"
AT_CAPACITY = "at_capacity"
TIMEOUT = "timeout"
NOT_MEMBER = "not_member"
UNKNOWN_SERVICE = "unknown_service"
RATE_LIMITED = "rate_limited"
TOO_LARGE = "too_large"
STORAGE_FULL = "storage_full"
NOT_AUTHORIZED = "not_authorized"
UNKNOWN_BLOB = "unknown_blob"
INVALID_CARD = "invalid_card"
INTERNAL = "internal"
# Defined by the reference protocol but never sent by the reference hub.
INVALID_INVITE = "invalid_invite"
NOT_OWNER = "not_owner"

TRANSIENT = frozenset({RATE_LIMITED, AT_CAPACITY, STORAGE_FULL, INTERNAL, TIMEOUT})
AUTH_FAILURES = frozenset({UNAUTHENTICATED, NOT_AUTHORIZED})


def is_transient(code: str | None) -> bool:
    """True when retrying later may succeed (back off); False for permanent refusals.

    Uncoded errors (``code`` is None) are application refusals such as a bad invite: permanent.
    """
    return code in TRANSIENT
