"""When a worker's lease on dispatched work ends, as a supervisor can know it (protocol.md §7.15).

The hub tells a lease's end (``leaseUntil``) only to the worker holding it, and hides it from
everyone else. A worker claims, then posts its ``accepted`` receipt (``parler supervise`` does), and
renews while it works, setting its presence to ``working`` as it does; a lease it does not renew
ends ``DEFAULT_LEASE_MS`` after its last renewal, and the work goes back in the queue. So the
window reckons the end from the holder's newest sign on the work (its receipts, and its presence
while ``working``) plus the hub's default lease: the Dispatched-work list, the Agents view and an
agent's card count it down with these words. Plain Python, no Qt.
"""

from __future__ import annotations

import time

DEFAULT_LEASE_MS = 300_000  # the hub's and `parler supervise`'s default lease (§7.15)
HOLDING_STATUSES = frozenset({"accepted", "working", "awaiting"})  # task statuses of a worker holding a claim
RAN_OUT = "lease ran out: back in the queue"
RENEWED = "lease renewed while it works"


def lease_end(last_sign_ms: int) -> int:
    """When a lease renewed last at ``last_sign_ms`` ends, unless renewed again."""
    return last_sign_ms + DEFAULT_LEASE_MS


def ran_out(end_ms: int, now_ms: int, holder_working: bool) -> bool:
    """The lease is over: its end passed and its holder does not show it works (which renews it)."""
    return now_ms > end_ms and not holder_working


def countdown(end_ms: int, now_ms: int) -> str:
    """``4:32`` (minutes and seconds left, rounded up), ``1:02:03`` beyond an hour."""
    left = max(0, -(-(end_ms - now_ms) // 1000))
    hours, rest = divmod(left, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def lease_words(end_ms: int, now_ms: int, holder_working: bool, *, at: bool = True) -> str:
    """What a row says of the lease: ``lease ends 14:05:12 (in 4:32)`` (``at`` False: ``lease ends
    in 4:32``), then that the holder renews it, or that it ran out."""
    if now_ms <= end_ms:
        if not at:
            return f"lease ends in {countdown(end_ms, now_ms)}"
        return f"lease ends {time.strftime('%H:%M:%S', time.localtime(end_ms / 1000))} (in {countdown(end_ms, now_ms)})"
    return RENEWED if holder_working else RAN_OUT


def at_expiry(role: str) -> str:
    """What happens when the lease runs out (``role`` the work's, or "" when not known)."""
    worker = f"the next {role} worker" if role else "the next worker of its role"
    return f"the work goes back in the queue for {worker}."
