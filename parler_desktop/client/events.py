"""Typed events a HubSession emits; the window's bridge and the CLI both consume them.

Events are plain frozen values so they can cross from the client (no Qt) to the Qt bridge
unchanged. A session calls every registered listener synchronously on the event loop, in order.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from parler_desktop.protocol.values import RoomInfo, RosterEntry, StoredMessage
from parler_desktop.store.errors import StoreError
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus  # re-exported with the events


class ConnectionState(enum.Enum):
    CONNECTING = "connecting"
    AUTHENTICATING = "authenticating"
    CATCHING_UP = "catching up"
    LIVE = "live"
    BACKING_OFF = "backing off"
    OFFLINE = "offline"
    AUTH_FAILED = "auth failed"
    STOPPED = "stopped"


class Cause(enum.Enum):
    """Why a connection attempt failed, for wording it the way a person understands."""

    UNREACHABLE = "unreachable"  # nothing answered at the address
    LOST = "lost"  # it answered, then the line broke or spoke nonsense
    TLS = "tls"  # its certificate was not trusted (``detail`` says what to do)
    REFUSED = "refused"  # the hub said no (its message is in ``detail``)
    OUT_OF_TURN = "out_of_turn"  # it answered a request with a reply that does not fit (``detail`` says how)
    STORE = "store"  # the local cache could not be written
    DISK_FULL = "disk_full"  # ... because the disk holding it is full (``detail`` names the file)
    INTERNAL = "internal"  # a bug of ours


@dataclass(frozen=True)
class StateChanged:
    """The connection moved to ``state``.

    ``attempt`` counts failed connects since the last healthy connection; ``retry_at`` is the
    wall-clock time (``time.time()``) of the next attempt while BACKING_OFF; ``detail`` is a short
    human sentence (the error text, what to fix for AUTH_FAILED). An attempt made after a failed one
    (CONNECTING, AUTHENTICATING) keeps that failure's ``detail`` and ``cause``: why it tries again.
    """

    state: ConnectionState
    hub_url: str
    agent_id: str
    attempt: int = 0
    retry_at: float | None = None
    detail: str = ""
    cause: Cause | None = None  # why the last attempt failed (the window words it)


@dataclass(frozen=True)
class MessagesArrived:
    """Pushed messages of ``room`` read off the socket and not yet stored (ascending by seq,
    signature verdicts set): they may be shown at once, never acknowledged before they are
    stored. ``MessagesStored`` follows for each one the store did not hold yet."""

    room: str
    messages: tuple[StoredMessage, ...]


@dataclass(frozen=True)
class MessagesPulled:
    """Messages of ``room`` a pull brought (ascending by seq), queued for the store: the room list
    counts and shows them before they are written, since a catch-up's writes wait for its pulls
    (``page_writer.py``). ``MessagesStored`` follows for each one the store did not hold yet; if
    the connection drops first (a ``StateChanged`` other than LIVE), they were not stored and are
    pulled again."""

    room: str
    messages: tuple[StoredMessage, ...]


@dataclass(frozen=True)
class PullsOver:
    """A pass of pulls (a catch-up, a reconciliation) is over: each page it brought was announced
    (``MessagesPulled``), though it may not be written yet. The room list shows them now."""


@dataclass(frozen=True)
class MessagesStored:
    """Messages newly written to the local store for ``room``, ascending by seq, never repeated."""

    room: str
    messages: tuple[StoredMessage, ...]
    live: bool = False  # True when they came in as pushes (or their reconciliation) while LIVE


@dataclass(frozen=True)
class RoomsChanged:
    """The hub's room list (membership, kinds, hub-side unread) was refreshed."""

    rooms: tuple[RoomInfo, ...]


@dataclass(frozen=True)
class CursorChanged:
    """The hub cursor of ``room`` is now ``cursor`` (after mark_read or on first learning it)."""

    room: str
    cursor: int


@dataclass(frozen=True)
class RosterChanged:
    room: str
    entries: tuple[RosterEntry, ...]


@dataclass(frozen=True)
class OutboxChanged:
    item: OutboxItem


@dataclass(frozen=True)
class Notice:
    """Something the user should read that is not a state change (a failed op, a warning)."""

    text: str
    room: str | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class StoreFailed:
    """The local store refused a write that retrying on a timer will not fix (a full disk, a
    damaged file): the session went OFFLINE and tries again only when told ("retry now").
    ``error.fresh_cache_fixes`` says whether starting with a fresh cache is the way out."""

    error: StoreError


SessionEvent = (
    StateChanged | MessagesArrived | MessagesPulled | PullsOver | MessagesStored | RoomsChanged | CursorChanged | RosterChanged | OutboxChanged | Notice
    | StoreFailed
)
