"""Blob upload (``put_blob`` then one binary frame) and download (§7.13)."""

from __future__ import annotations

import hashlib
import sqlite3

from parler_desktop.hub.context import HubContext, OpError, PendingUpload, SessionState
from parler_desktop.hub.db import HubDatabaseConnection
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.common import check_len, too_large
from parler_desktop.hub.ops.targets import check_target, resolve_target
from parler_desktop.hub.ratelimit import FixedWindowLimiter
from parler_desktop.hub.sql import blobs
from parler_desktop.protocol import errors
from parler_desktop.protocol.frames import BlobIncoming, BlobReady, BlobStored, GetBlob, PutBlob
from parler_desktop.protocol.values import Target


def _prepare_upload(
    conn: HubDatabaseConnection,
    ctx: HubContext,
    room_budget: FixedWindowLimiter,
    agent: str,
    target: Target,
    size: int,
    now: int,
) -> str:
    if blobs.total_size(conn) + size > ctx.config.limits.max_blob_storage_bytes:
        raise OpError("hub blob storage is full — try again later", errors.STORAGE_FULL)
    room = resolve_target(conn, agent, target, now).room
    if not room_budget.allow(room):  # charged inside the database job
        raise OpError(f"rate limit: room '{room}' has too many uploads — slow down", errors.RATE_LIMITED)
    return room


def release_upload(ctx: HubContext, session: SessionState) -> None:
    if session.upload is not None:
        session.upload = None
        ctx.reservations.give_back()


async def handle_put_blob(ctx: HubContext, session: SessionState, frame: PutBlob) -> BlobReady:
    assert session.agent is not None
    limits = ctx.config.limits
    check_target(ctx, frame.target)
    check_len(ctx, "content id", frame.sha256, 128)
    check_len(ctx, "media type", frame.media_type, limits.max_hello_field_bytes)
    if frame.size > limits.max_blob_bytes:
        raise too_large("blob", frame.size, limits.max_blob_bytes)
    if not ctx.reservations.take():
        raise OpError("hub upload capacity is busy — retry after current uploads finish", errors.AT_CAPACITY)
    try:
        if not ctx.budgets.blobs_per_agent.allow(session.agent):
            raise OpError("rate limit: too many blob uploads — slow down", errors.RATE_LIMITED)
        room = await ctx.db.call(
            _prepare_upload, ctx, ctx.budgets.blobs_per_room, session.agent, frame.target, frame.size, now_ms()
        )
    except BaseException:
        ctx.reservations.give_back()
        raise
    release_upload(ctx, session)  # a second put_blob replaces the pending one only once it succeeds
    session.upload = PendingUpload(frame.sha256, frame.size, frame.media_type, room)
    return BlobReady(id=frame.sha256)


async def receive_blob_bytes(ctx: HubContext, session: SessionState, data: bytes) -> BlobStored:
    """The binary frame after ``blob_ready``; the caller handles 'no upload pending'."""
    upload = session.upload
    assert upload is not None
    release_upload(ctx, session)
    if len(data) != upload.size:
        raise OpError(f"blob size mismatch: got {len(data)} bytes, expected {upload.size}", errors.PROTOCOL)
    digest = hashlib.sha256(data).hexdigest()
    if digest != upload.sha256:
        raise OpError(f"content id mismatch: bytes hash to {digest}, not {upload.sha256}", errors.PROTOCOL)
    try:
        await ctx.blobs.write(upload.sha256, data)
    except OSError as exc:
        raise OpError(f"failed to store blob: {exc.strerror}", errors.INTERNAL) from exc
    await ctx.db.call(blobs.store_blob, upload.sha256, upload.media_type, upload.size, upload.room, now_ms())
    return BlobStored(id=upload.sha256, size=upload.size)


def _authorize_download(conn: sqlite3.Connection, agent: str, blob: str, now: int) -> blobs.BlobRow:
    row = blobs.get_blob(conn, blob)
    if row is None:
        raise OpError(f"no such blob '{blob}'", errors.UNKNOWN_BLOB)
    if not blobs.reachable_by(conn, blob, agent):
        raise OpError(f"not authorized to fetch blob '{blob}'", errors.NOT_AUTHORIZED)
    blobs.mark_fetched(conn, blob, now)
    return row


async def handle_get_blob(ctx: HubContext, session: SessionState, frame: GetBlob) -> tuple[BlobIncoming, bytes]:
    check_len(ctx, "content id", frame.id, 128)
    row = await ctx.db.call(_authorize_download, session.agent, frame.id, now_ms())
    data = await ctx.blobs.read(row.id)
    if data is None or len(data) != row.size:
        raise OpError("blob bytes unavailable", errors.INTERNAL)
    return BlobIncoming(id=row.id, size=row.size, media_type=row.media_type), data
