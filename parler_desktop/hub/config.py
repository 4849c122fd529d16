"""Hub settings: where it listens and stores, its limits (protocol.md §7.16) and fault options.

Every number the reference hub hard-codes is a field here so tests can shrink a timeout instead
of sleeping through it, and a single-user local hub can relax the rate budgets.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

MIB = 1024 * 1024


@dataclass(frozen=True)
class RateBudget:
    """At most ``count`` events per fixed window of ``window_secs``."""

    count: int
    window_secs: float


@dataclass(frozen=True)
class HubLimits:
    """Size caps, rate budgets, quotas and timers; defaults are the reference hub's."""

    max_text_frame_bytes: int = 2 * MIB
    max_parts_bytes: int = MIB
    max_big_frame_bytes: int = MIB  # register / remember / recall frames, fact text
    max_string_bytes: int = 4096
    max_hello_field_bytes: int = 256
    max_sig_bytes: int = 512
    max_query_bytes: int = 64 * 1024
    max_mentions: int = 256
    max_blob_bytes: int = 25 * MIB
    max_blob_storage_bytes: int = 1024 * MIB
    upload_reservation_pool_bytes: int = 50 * MIB
    max_connections: int = 1024
    # Sockets that have not finished the handshake, all addresses together (the rest of the cap is
    # kept for authenticated sessions) and from one address (admission.py says how they are dropped).
    max_unauthenticated: int = 512
    max_handshaking_per_address: int = 64
    max_hellos: int = 4
    max_owned_rooms: int = 1000
    max_tokens: int = 1000
    max_keyed_facts: int = 10_000
    ops_per_agent: RateBudget = RateBudget(600, 60)
    sends_per_agent: RateBudget = RateBudget(240, 60)
    blobs_per_agent: RateBudget = RateBudget(120, 3600)
    sends_per_room: RateBudget = RateBudget(1200, 60)
    blobs_per_room: RateBudget = RateBudget(600, 3600)
    http_per_ip: RateBudget = RateBudget(600, 60)
    push_queue_size: int = 256
    nonce_ttl_secs: float = 60.0
    handshake_timeout_secs: float = 15.0  # from the socket's opening: frames do not extend it
    idle_timeout_secs: float | None = 1800.0
    presence_stale_secs: float = 300.0
    max_wait_secs: float = 60.0
    default_pull_limit: int = 200
    max_pull_limit: int = 1000
    default_invite_ttl_secs: int = 86_400
    max_ttl_secs: int = 31_536_000
    default_invite_uses: int = 50
    default_token_ttl_secs: int = 3600
    janitor_interval_secs: float = 3600.0
    message_retention_days: int = 30
    messages_kept_per_room: int = 10_000
    unkeyed_facts_kept: int = 500
    blob_idle_days: int = 14

    def relaxed(self) -> "HubLimits":
        """The same caps with rate budgets too large to matter (one person's local hub)."""
        huge = RateBudget(10**9, 60)
        budgets = [f.name for f in dataclasses.fields(self) if isinstance(getattr(self, f.name), RateBudget)]
        return dataclasses.replace(self, **{name: huge for name in budgets})


@dataclass(frozen=True)
class HubFaults:
    """Deliberate misbehaviour for client tests: lost pushes, or no push at all (an old hub)."""

    drop_pushes: bool = False
    push_drop_probability: float = 0.0
    refuse_subscribe: bool = False  # answer subscribe as a hub without push does (bad_frame)


@dataclass(frozen=True)
class HubConfig:
    """Everything a Hub needs to run; ``port=0`` picks a free port."""

    db_path: Path
    blob_dir: Path | None = None  # default: "<db_path>.blobs" beside the database
    host: str = "127.0.0.1"
    port: int = 7070
    join_secret: bytes | None = None  # a str is taken as its UTF-8 bytes
    public_url: str | None = None  # default: parler://HOST:PORT (the real port)
    name: str = "Parler Desktop Hub"
    limits: HubLimits = field(default_factory=HubLimits)
    faults: HubFaults = field(default_factory=HubFaults)

    def __post_init__(self) -> None:
        if isinstance(self.join_secret, str):
            object.__setattr__(self, "join_secret", self.join_secret.encode())

    @property
    def resolved_blob_dir(self) -> Path:
        if self.blob_dir is not None:
            return Path(self.blob_dir)
        db = Path(self.db_path)
        return db.with_name(db.name + ".blobs")
