"""Stay inside the hub's per-identity budgets (protocol.md §7.16) instead of hitting them, and
the session's requests that do (``PacedRequester``).

The reference hub allows 600 operations and 240 sends per minute per identity, in fixed windows.
The session spends a little less than that by itself (other clients of the same identity share the
budget) and, when the hub still answers ``rate_limited``, pauses every request for a growing hold
and then retries the same request: work is delayed, never dropped. The last few requests of the
budget are kept for the human's (a post and the pull that confirms it, an invite): a long catch-up
spends only the rest, so a post typed meanwhile goes out at once (issue 47, item 4d), where it
waited for the catch-up's pulls to free the window.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence

from parler_desktop.client.clock import Clock
from parler_desktop.client.connection import HubConnection, ReplyKind
from parler_desktop.client.errors import BadReply, HubRefused, OutOfTurn
from parler_desktop.protocol import errors as codes
from parler_desktop.protocol.frames import ClientFrame, ErrorFrame, HubFrame

log = logging.getLogger(__name__)


class RequestPacer:
    """A sliding-window limiter plus a hold after ``rate_limited``."""

    def __init__(
        self,
        clock: Clock,
        *,
        per_window: int = 480,
        window_secs: float = 60.0,
        first_hold_secs: float = 2.0,
        max_hold_secs: float = 60.0,
        reserved: int = 0,
    ) -> None:
        """``reserved``: requests of each window only urgent ones (``acquire(urgent=True)``) may use."""
        if per_window < 1 or not 0 <= reserved < per_window:
            raise ValueError("per_window must be at least 1, and more than reserved")
        self._clock = clock
        self.per_window = per_window
        self.reserved = reserved
        self.window_secs = window_secs
        self.first_hold_secs = first_hold_secs
        self.max_hold_secs = max_hold_secs
        self._stamps: deque[float] = deque()
        self._hold_until = 0.0
        self._next_hold = first_hold_secs
        self.total = 0  # requests let through so far (what a sync costs, for benchmarks)

    def delay(self, urgent: bool = False) -> float:
        """Seconds to wait before the next request may go out (0 = now)."""
        now = self._clock.monotonic()
        while self._stamps and self._stamps[0] <= now - self.window_secs:
            self._stamps.popleft()
        wait = max(0.0, self._hold_until - now)
        allowed = self.per_window if urgent else self.per_window - self.reserved
        if len(self._stamps) >= allowed:
            wait = max(wait, self._stamps[len(self._stamps) - allowed] + self.window_secs - now)
        return wait

    def free(self, urgent: bool = False) -> int:
        """How many requests may go out now without waiting (none during a hold)."""
        if self.delay(urgent) > 0:
            return 0
        allowed = self.per_window if urgent else self.per_window - self.reserved
        return allowed - len(self._stamps)

    async def acquire(self, urgent: bool = False) -> None:
        """Wait for room in the budget (``urgent``: the reserved part too), then count one request."""
        while (wait := self.delay(urgent)) > 0:
            await self._clock.sleep(wait)
        self._stamps.append(self._clock.monotonic())
        self.total += 1

    def penalize(self) -> float:
        """The hub said ``rate_limited``: hold every request; each repeat doubles the hold."""
        hold = self._next_hold
        self._hold_until = max(self._hold_until, self._clock.monotonic() + hold)
        self._next_hold = min(self.max_hold_secs, hold * 2)
        return hold

    def relieve(self) -> None:
        """A request went through: the next ``rate_limited`` starts with a short hold again."""
        self._next_hold = self.first_hold_secs


def reserve_for(per_window: int) -> int:
    """How many requests of a window to keep for the human's (a post and its confirming pull at
    least; 30 of the session's 480)."""
    return min(max(2, per_window // 16), per_window // 2)


class PacedRequester:
    """The session's requests on one connection (``connection.Requester``), each inside the
    pacer's budget (``urgent``: the human's, which may use its reserve); ``rate_limited`` holds
    every request and asks the same frame again."""

    def __init__(self, conn: HubConnection, pacer: RequestPacer, timeout: float, *, urgent: bool = False) -> None:
        self._conn = conn
        self._pacer = pacer
        self._timeout = timeout
        self._urgent = urgent

    async def __call__(self, frame: ClientFrame, kind: ReplyKind) -> HubFrame:
        while True:
            await self._pacer.acquire(self._urgent)
            reply = await self._conn.request(frame, timeout=self._timeout)
            if not self._limited(reply, frame):
                return self._accepted(reply, kind, frame)

    async def each(self, frames: Sequence[ClientFrame], kind: ReplyKind) -> list[HubFrame | HubRefused | BadReply]:
        """``frames`` sent back to back (``HubConnection.request_each``); a frame refused as
        ``rate_limited`` is asked again on its own, after the hold."""
        for _frame in frames:
            await self._pacer.acquire(self._urgent)
        results: list[HubFrame | HubRefused | BadReply] = []
        for frame, reply in zip(frames, await self._conn.request_each(frames, timeout=self._timeout)):
            try:
                results.append(await self(frame, kind) if self._limited(reply, frame) else self._accepted(reply, kind, frame))
            except (HubRefused, BadReply) as error:
                results.append(error)
        return results

    def free_now(self) -> int:
        return self._pacer.free(self._urgent)

    def _limited(self, reply: object, frame: ClientFrame) -> bool:
        if isinstance(reply, ErrorFrame) and reply.code == codes.RATE_LIMITED:
            hold = self._pacer.penalize()
            log.info("hub says rate_limited on %s; holding requests for %.1f s", frame.TAG, hold)
            return True
        return False

    def reject(self, error: OutOfTurn) -> OutOfTurn:
        return self._conn.reject(error)

    def _accepted(self, reply: object, kind: ReplyKind, frame: ClientFrame) -> HubFrame:
        result = self._conn.fit(frame, reply, kind)  # type: ignore[arg-type]
        self._pacer.relieve()
        return result
