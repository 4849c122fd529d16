"""Every timing and budget of a session in one value, so tests can shrink them instead of sleeping."""

from __future__ import annotations

from dataclasses import dataclass

from parler_desktop.client.connection import MAX_MESSAGE_BYTES
from parler_desktop.client.inbox import DEFAULT_CAPACITY
from parler_desktop.client.sync import CATCH_UP_MESSAGES, DEFAULT_PAGE_SIZE, FIRST_SYNC_MESSAGES


@dataclass(frozen=True)
class SessionTuning:
    heartbeat_secs: float = 25.0  # protocol ping on an idle line (the hub never pings)
    heartbeat_jitter_secs: float = 5.0  # per-client spread, so clients do not ping in lockstep
    pong_timeout_secs: float = 5.0  # no pong by then: the connection is dead
    reply_timeout_secs: float = 30.0  # no reply to any other request by then: dead
    open_timeout_secs: float = 10.0  # dialing plus the WebSocket upgrade
    backoff_base_secs: float = 0.5
    backoff_cap_secs: float = 30.0
    healthy_secs: float = 60.0  # live this long: the next failure starts the backoff afresh
    offline_after: int = 3  # consecutive unreachable dials before the state says OFFLINE
    reconcile_secs: float = 20.0  # rooms refresh + pull of rooms that may lag (≤ 60 s)
    poll_secs: float = 3.0  # the same when the hub does not push (no subscribe)
    quiet_secs: float = 2.0  # a burst of pushes is over after this much silence
    reader_pull_secs: float = 1.0  # a room read past its sync mark is pulled this soon, quiet or not
    roster_secs: float = 45.0  # roster refresh of the rooms the window shows
    resume_tick_secs: float = 1.0  # resume detector: how often wall and monotonic time are compared
    resume_jump_secs: float = 5.0  # ... and how large a gap means "the machine slept"
    ops_per_minute: int = 480  # our share of the hub's 600 operations / minute / identity
    page_size: int = DEFAULT_PAGE_SIZE
    first_sync_messages: int = FIRST_SYNC_MESSAGES  # a first sync reads forward this far, then from the newest page
    catch_up_messages: int = CATCH_UP_MESSAGES  # (a room synced before)
    inbox_capacity: int = DEFAULT_CAPACITY
    max_message_bytes: int = MAX_MESSAGE_BYTES  # the largest WebSocket message read (protocol.md §1.5)
