"""Blob upload (``put_blob`` then one binary frame) and download (§7.13)."""

from __future__ import annotations

import hashlib
import sqlite3

from parler_desktop.hub.context import HubContext, OpError, PendingUpload, SessionState
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.common import check_all, check_len
from parler_desktop.hub.ops.targets import resolve_target, target_strings
from parler_desktop.hub.ratelimit import FixedWindowLimiter
from parler_desktop.hub.sql import blobs
from parler_desktop.protocol import errors
from parler_desktop.protocol.frames import BlobIncoming, BlobReady, BlobStored, GetBlob, PutBlob
from parler_desktop.protocol.values import Target

def _prepare_upload(
    conn: sqlite3.Connection,
    ctx: HubContext,
    room_budget: FixedWindowLimiter,
    agent: str,
    target: Target,
    size: int,
    now: int,
) -> str:
    if blobs.total_size(conn) + size > ctx.config.limits.max_blob_storage_bytes:
        raise OpError("blob storage is full", errors.STORAGE_FULL)
    room = resolve_target(conn, agent, target, now)
    if not room_budget.allow(room):  # only ever touched on the database thread
        raise OpError(f"too many uploads to '{room}' — slow down", errors.RATE_LIMITED)
    return room


def release_upload(ctx: HubContext, session: SessionState) -> None:
    if session.upload is not None:
        session.upload = None
        ctx.reservations.give_back()


async def handle_put_blob(ctx: HubContext, session: SessionState, frame: PutBlob) -> BlobReady:
    assert session.agent is not None
    limits = ctx.config.limits
    check_all(ctx, "target", target_strings(frame.target))
    check_len(ctx, "sha256", frame.sha256, 128)
    check_len(ctx, "mediaType", frame.media_type, limits.max_hello_field_bytes)
    if frame.size > limits.max_blob_bytes:
        raise OpError(f"blob exceeds {limits.max_blob_bytes} bytes", errors.TOO_LARGE)
    release_upload(ctx, session)  # a second put_blob replaces the pending one
    if not ctx.reservations.take():
        raise OpError("too many uploads in progress — try again shortly", errors.AT_CAPACITY)
    try:
        if not ctx.budgets.blobs_per_agent.allow(session.agent):
            raise OpError("too many uploads — slow down", errors.RATE_LIMITED)
        room = await ctx.db.call(
            _prepare_upload, ctx, ctx.budgets.blobs_per_room, session.agent, frame.target, frame.size, now_ms()
        )
    except BaseException:
        ctx.reservations.give_back()
        raise
    session.upload = PendingUpload(frame.sha256, frame.size, frame.media_type, room)
    return BlobReady(id=frame.sha256)


async def receive_blob_bytes(ctx: HubContext, session: SessionState, data: bytes) -> BlobStored:
    """The binary frame after ``blob_ready``; the caller handles 'no upload pending'."""
    upload = session.upload
    assert upload is not None
    release_upload(ctx, session)
    if len(data) != upload.size:
        raise OpError("blob size mismatch", errors.PROTOCOL)
    if hashlib.sha256(data).hexdigest() != upload.sha256:
        raise OpError("content id mismatch", errors.PROTOCOL)
    try:
        await ctx.blobs.write(upload.sha256, data)
    except OSError as exc:
        raise OpError(f"could not store blob: {exc.strerror}", errors.INTERNAL) from exc
    await ctx.db.call(blobs.store_blob, upload.sha256, upload.media_type, upload.size, upload.room, now_ms())
    return BlobStored(id=upload.sha256, size=upload.size)


def _authorize_download(conn: sqlite3.Connection, agent: str, blob: str, now: int) -> blobs.BlobRow:
    row = blobs.get_blob(conn, blob)
    if row is None:
        raise OpError(f"unknown blob '{blob}'", errors.UNKNOWN_BLOB)
    if not blobs.reachable_by(conn, blob, agent):
        raise OpError("this blob was not shared in any of your rooms", errors.NOT_AUTHORIZED)
    blobs.mark_fetched(conn, blob, now)
    return row


async def handle_get_blob(ctx: HubContext, session: SessionState, frame: GetBlob) -> tuple[BlobIncoming, bytes]:
    check_len(ctx, "id", frame.id, 128)
    row = await ctx.db.call(_authorize_download, session.agent, frame.id, now_ms())
    data = await ctx.blobs.read(row.id)
    if data is None or len(data) != row.size:
        raise OpError("blob bytes are missing on the hub", errors.INTERNAL)
    return BlobIncoming(id=row.id, size=row.size, media_type=row.media_type), data
