"""Service-room work: ``queue``, ``claim``, ``complete`` (§7.15)."""

from __future__ import annotations

import sqlite3

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.common import check_len, derived_status, not_member, stored_message
from parler_desktop.hub.sql import agents, rooms, services
from parler_desktop.protocol import errors
from parler_desktop.protocol.frames import (
    TERMINAL_TASK_STATES,
    Claim,
    Claimed,
    Complete,
    Completed,
    Queue,
    Queued,
)

DEFAULT_QUEUE_LIMIT = 50
MAX_QUEUE_LIMIT = 200
DEFAULT_LEASE_SECS = 300
MIN_LEASE_SECS, MAX_LEASE_SECS = 15, 3600


def _service_member(conn: sqlite3.Connection, room: str, agent: str) -> str | None:
    """The role ``agent`` serves in service room ``room`` (None if it serves none)."""
    found = rooms.get_room(conn, room)
    if found is None or not rooms.is_member(conn, room, agent):
        raise not_member(room)
    if found.kind != "service":
        raise OpError(f"'{room}' is not a service room", errors.NOT_AUTHORIZED)
    return services.served_role(conn, room, agent)


def _available(ctx: HubContext, conn: sqlite3.Connection, agent: str, now: int) -> bool:
    """Free for new work: a fresh ``idle`` or ``waiting`` presence."""
    presence = agents.presence_of(conn, agent)
    if presence is None:
        return False
    status, _ = derived_status(ctx, presence[0], presence[2], presence[3], now)
    return status in ("idle", "waiting")


def _queue(conn: sqlite3.Connection, ctx: HubContext, agent: str, frame: Queue, now: int) -> Queued:
    served = _service_member(conn, frame.room, agent)
    role = frame.role.lower()
    limit = min(DEFAULT_QUEUE_LIMIT if frame.limit is None else frame.limit, MAX_QUEUE_LIMIT)
    if served is None or served.lower() != role or not _available(ctx, conn, agent, now):
        return Queued(room=frame.room, messages=())
    rows = services.open_dispatches(conn, frame.room, role, now, limit)
    return Queued(room=frame.room, messages=tuple(stored_message(row) for row in rows))


def _claim(conn: sqlite3.Connection, ctx: HubContext, agent: str, frame: Claim, now: int) -> Claimed:
    served = _service_member(conn, frame.room, agent)
    refused = Claimed(room=frame.room, message=frame.message, claimed=False)
    if served is None:
        return refused
    current = services.claim_of(conn, frame.message)
    renewing = current is not None and current[0] == agent and current[1] > now and current[2] is None
    if not (renewing or _available(ctx, conn, agent, now)):  # the holder may renew while busy
        return refused
    if served.lower() not in services.dispatch_roles(conn, frame.room, frame.message):
        return refused
    if current is not None:
        holder, lease_until, status = current
        if status is not None or (holder != agent and lease_until > now):
            return refused
    lease = min(max(DEFAULT_LEASE_SECS if frame.lease_secs is None else frame.lease_secs, MIN_LEASE_SECS), MAX_LEASE_SECS)
    until = now + lease * 1000
    services.set_claim(conn, frame.room, frame.message, agent, until)
    return Claimed(room=frame.room, message=frame.message, claimed=True, lease_until=until)


def _complete(conn: sqlite3.Connection, agent: str, frame: Complete, now: int) -> Completed:
    _service_member(conn, frame.room, agent)
    if frame.status not in TERMINAL_TASK_STATES:
        raise OpError(
            "a service claim can only be completed with done, failed, or cancelled", errors.NOT_AUTHORIZED
        )
    current = services.claim_of(conn, frame.message)
    holds = current is not None and current[0] == agent and current[1] >= now and current[2] is None
    if holds:
        services.finish_claim(conn, frame.message, frame.status)
    return Completed(room=frame.room, message=frame.message, completed=holds)


async def handle_queue(ctx: HubContext, session: SessionState, frame: Queue) -> Queued:
    check_len(ctx, "room", frame.room)
    check_len(ctx, "role", frame.role)
    return await ctx.db.call(_queue, ctx, session.agent, frame, now_ms())


async def handle_claim(ctx: HubContext, session: SessionState, frame: Claim) -> Claimed:
    check_len(ctx, "room", frame.room)
    check_len(ctx, "message id", frame.message)
    return await ctx.db.call(_claim, ctx, session.agent, frame, now_ms())


async def handle_complete(ctx: HubContext, session: SessionState, frame: Complete) -> Completed:
    check_len(ctx, "room", frame.room)
    check_len(ctx, "message id", frame.message)
    return await ctx.db.call(_complete, session.agent, frame, now_ms())
