"""What every operation handler shares: the hub's state, and the per-connection state."""

from __future__ import annotations

from dataclasses import dataclass, field

from websockets.asyncio.server import ServerConnection

from parler_desktop.hub.admission import Admission
from parler_desktop.hub.blobfiles import BlobFiles, UploadReservations
from parler_desktop.hub.config import HubConfig
from parler_desktop.hub.dbworker import DbWorker
from parler_desktop.hub.push import PushQueue, Subscribers
from parler_desktop.hub.ratelimit import FixedWindowLimiter
from parler_desktop.hub.wakeups import RoomWakeups


class OpError(Exception):
    """A refusal sent back as an ``error`` frame; ``code`` None = uncoded (protocol.md §7.17)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class HubStats:
    """Counters since this hub started (``/api/hub``), like the reference hub's."""

    connections_total: int = 0
    messages_total: int = 0
    tokens_total: int = 0


class RateBudgets:
    """The per-agent and per-room budgets of §7.16, one limiter each.

    The per-room limiters are charged after target resolution, inside the database job; the
    others before it. All of them only on the hub's event loop.
    """

    def __init__(self, config: HubConfig) -> None:
        limits = config.limits
        self.ops_per_agent = FixedWindowLimiter(limits.ops_per_agent)
        self.sends_per_agent = FixedWindowLimiter(limits.sends_per_agent)
        self.blobs_per_agent = FixedWindowLimiter(limits.blobs_per_agent)
        self.sends_per_room = FixedWindowLimiter(limits.sends_per_room)
        self.blobs_per_room = FixedWindowLimiter(limits.blobs_per_room)
        self.http_per_ip = FixedWindowLimiter(limits.http_per_ip)


@dataclass
class HubContext:
    config: HubConfig
    db: DbWorker
    public_url: str
    budgets: RateBudgets
    wakeups: RoomWakeups = field(default_factory=RoomWakeups)
    subscribers: Subscribers = field(init=False)
    blobs: BlobFiles = field(init=False)
    reservations: UploadReservations = field(init=False)
    stats: HubStats = field(default_factory=HubStats)
    admission: Admission = field(init=False)

    def __post_init__(self) -> None:
        limits = self.config.limits
        self.admission = Admission(limits)
        self.subscribers = Subscribers(self.config.faults)
        self.blobs = BlobFiles(self.config.resolved_blob_dir)
        self.reservations = UploadReservations(
            limits.upload_reservation_pool_bytes, limits.max_blob_bytes
        )


@dataclass
class PendingUpload:
    sha256: str
    size: int
    media_type: str | None
    room: str


@dataclass
class SessionState:
    """One connection: who it is (after welcome) and what it has pending."""

    ws: ServerConnection
    remote: str
    agent: str | None = None
    name: str = ""
    role: str | None = None
    nonce: str | None = None
    nonce_expires: float = 0.0  # monotonic seconds
    hellos: int = 0
    push_queue: PushQueue | None = None
    upload: PendingUpload | None = None

    @property
    def authenticated(self) -> bool:
        return self.agent is not None
