"""Which sockets the hub serves (protocol.md §7.12): sockets that have not authenticated can never
take the place of authenticated sessions, nor keep a newcomer out.

Unauthenticated sockets are capped per address and, together, at ``max_unauthenticated`` (half
the connection cap), so the other half is always room for authenticated sessions. When the hub is
full, or that share is, a new socket takes the place of an unauthenticated one rather than being
refused: otherwise sockets that never authenticate, redialing from many addresses, hold every
place and lock agents out. The one dropped is the oldest of the address that holds the most, not
the oldest overall: sockets redialing at once from hundreds of addresses turn the share over
faster than a busy hub finishes a newcomer's handshake, but a newcomer's socket goes only after
those of every address holding more. Authenticated sessions are never dropped; only when they
alone fill the hub is a socket refused.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from parler_desktop.hub.config import HubLimits

HUB_FULL = "hub at capacity — try again shortly"
ADDRESS_FULL = "too many connections from your address are still authenticating — try again shortly"


@dataclass(eq=False)
class Seat:
    """One admitted socket; ``evict`` closes it when a newer socket takes its place."""

    address: str
    evict: Callable[[], None]
    arrival: int  # lower is older
    authenticated: bool = False


class Admission:
    """The sockets the hub serves, counted; only on the hub's event loop."""

    def __init__(self, limits: HubLimits) -> None:
        self._max_connections = limits.max_connections
        self._max_unauthenticated = limits.max_unauthenticated
        self._per_address = limits.max_handshaking_per_address
        self._waiting: dict[str, dict[Seat, None]] = {}  # address → its unauthenticated seats, oldest first
        self._unauthenticated = 0
        self._authenticated = 0
        self._arrivals = itertools.count()

    @property
    def live(self) -> int:
        return self._authenticated + self._unauthenticated

    def admit(self, address: str, evict: Callable[[], None]) -> Seat | str:
        """A seat for a new socket from ``address`` (``evict`` is called if it is dropped before it
        authenticates), or the ``at_capacity`` message that refuses it."""
        if len(self._waiting.get(address, ())) >= self._per_address:
            return ADDRESS_FULL
        if self.live >= self._max_connections or self._unauthenticated >= self._max_unauthenticated:
            if not self._unauthenticated:
                return HUB_FULL
            self._evict_one()
        seat = Seat(address, evict, next(self._arrivals))
        self._waiting.setdefault(address, {})[seat] = None
        self._unauthenticated += 1
        return seat

    def authenticate(self, seat: Seat) -> bool:
        """Count ``seat`` as an authenticated session; False if it was dropped meanwhile."""
        if not self._forget(seat):
            return False
        seat.authenticated = True
        self._authenticated += 1
        return True

    def leave(self, seat: Seat) -> None:
        """The socket ended (nothing to do for one already dropped)."""
        if seat.authenticated:
            self._authenticated -= 1
        else:
            self._forget(seat)

    def _evict_one(self) -> None:
        seats = max(self._waiting.values(), key=lambda held: (len(held), -next(iter(held)).arrival))
        oldest = next(iter(seats))
        self._forget(oldest)
        oldest.evict()

    def _forget(self, seat: Seat) -> bool:
        """Take ``seat`` out of the unauthenticated ones; False if it is not one of them."""
        held = self._waiting.get(seat.address)
        if held is None or seat not in held:
            return False
        del held[seat]
        if not held:
            del self._waiting[seat.address]
        self._unauthenticated -= 1
        return True
