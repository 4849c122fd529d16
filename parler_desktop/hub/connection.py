"""One client socket: read a frame, answer it, in order, until the socket ends (§1.4, §3).

Frames are handled strictly one after another, so replies leave in request order; deliveries go
out through the connection's own push queue and may land between replies.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from parler_desktop.disk_errors import is_disk_full
from parler_desktop.hub.admission import HUB_FULL, Seat
from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.handshake import handle_hello
from parler_desktop.hub.ops.blobs import receive_blob_bytes, release_upload
from parler_desktop.hub.ops.common import too_large, utf8_size_over
from parler_desktop.hub.ops.table import HANDLERS
from parler_desktop.hub.push import write_now
from parler_desktop.protocol import encode, errors
from parler_desktop.protocol.frames import ErrorFrame, Hello, HubFrame, Malformed, Pull, decode_client_frame

log = logging.getLogger(__name__)

Reply = HubFrame | tuple[HubFrame, bytes]  # get_blob answers with a frame and then the bytes
BLOB_FRAGMENT_BYTES = 256 * 1024  # a blob's message goes out in frames this large: a client sees it come


def remote_host(ws: ServerConnection) -> str:
    remote = ws.remote_address
    return str(remote[0]) if remote else "?"


class ClientConnection:
    """Serves one socket, if the hub's admission gives it a seat (admission.py)."""

    def __init__(self, ctx: HubContext, ws: ServerConnection, address: str) -> None:
        self._ctx = ctx
        self._ws = ws
        self.session = SessionState(ws=ws, remote=address)
        self._last_frame = time.monotonic()
        self._idle_timer: asyncio.TimerHandle | None = None
        self._idle_close: asyncio.Task[None] | None = None  # held: the loop keeps only weak references
        self._eviction: asyncio.Task[None] | None = None  # held likewise

    async def run(self) -> None:
        seat = self._ctx.admission.admit(self.session.remote, self._evict)
        if isinstance(seat, str):
            await reject_at_capacity(self._ws, seat)
            return
        self._ctx.stats.connections_total += 1
        log.info("connection from %s", self.session.remote)
        try:
            await self._serve(seat)
        except ConnectionClosed:
            pass
        finally:
            self._cleanup(seat)
            log.info("connection from %s (%s) ended", self.session.remote, self.session.agent or "unauthenticated")
        if self._eviction is not None:
            await self._eviction  # its at_capacity frame and close go out before the handler returns

    def _evict(self) -> None:
        """A newer socket took this one's seat before it authenticated: ``at_capacity``, then close."""
        self._eviction = asyncio.get_running_loop().create_task(reject_at_capacity(self._ws, HUB_FULL))

    async def _serve(self, seat: Seat) -> None:
        limits = self._ctx.config.limits
        session = self.session
        # One deadline for the whole handshake: frames that do not authenticate never extend it.
        handshake_deadline = asyncio.get_running_loop().time() + limits.handshake_timeout_secs
        while True:
            if session.authenticated:
                if not seat.authenticated:
                    if not self._ctx.admission.authenticate(seat):
                        return  # evicted while its last hello was answered
                    self._watch_idleness()
                data = await self._ws.recv()
                self._last_frame = time.monotonic()
            else:
                try:
                    async with asyncio.timeout_at(handshake_deadline):
                        data = await self._ws.recv()
                except TimeoutError:
                    await self._fail("handshake timed out", errors.TIMEOUT, CloseCode.POLICY_VIOLATION)
                    return
            if isinstance(data, bytes):
                if session.upload is None or not session.authenticated:
                    await self._fail(
                        "unexpected binary frame (no PutBlob in flight)", errors.PROTOCOL, CloseCode.PROTOCOL_ERROR
                    )
                    return
                await self._reply(await self._guarded(receive_blob_bytes(self._ctx, session, data)))
                continue
            if (size := utf8_size_over(data, limits.max_text_frame_bytes)) is not None:
                refusal = too_large("structured frame", size, limits.max_text_frame_bytes)
                await self._fail(refusal.message, refusal.code, CloseCode.MESSAGE_TOO_BIG)
                return
            await self._reply(await self._answer(data))

    def _watch_idleness(self) -> None:
        """Close the socket once no frame has come and no push has left for the idle timeout.

        A timer that re-arms itself, rather than a timeout around every read: that would cost
        more than the read does, on every frame of every agent."""
        timeout = self._ctx.config.limits.idle_timeout_secs
        if timeout is None:
            return
        pushes = self.session.push_queue
        active = max(self._last_frame, pushes.last_sent if pushes is not None else self._last_frame)
        loop = asyncio.get_running_loop()
        if time.monotonic() - active < timeout:  # loop.time() is time.monotonic() too
            self._idle_timer = loop.call_at(active + timeout, self._watch_idleness)
        else:
            self._idle_close = loop.create_task(self._ws.close(CloseCode.NORMAL_CLOSURE, "idle"))

    async def _answer(self, text: str) -> Reply:
        frame = decode_client_frame(text)
        session = self.session
        if isinstance(frame, Malformed):
            return ErrorFrame(message=f"malformed frame: {frame.reason}", code=errors.BAD_FRAME)
        if isinstance(frame, Hello):
            if session.authenticated:
                return ErrorFrame(message="connection is already authenticated", code=errors.PROTOCOL)
            return await self._guarded(handle_hello(self._ctx, session, frame))
        if not session.authenticated:
            return ErrorFrame(message="not authenticated — send `hello` first", code=errors.UNAUTHENTICATED)
        long_poll = isinstance(frame, Pull) and frame.wait_secs is not None  # even waitSecs 0 (§7.16)
        if not long_poll and not self._ctx.budgets.ops_per_agent.allow(session.agent):
            return ErrorFrame(message="rate limit: too many operations — slow down", code=errors.RATE_LIMITED)
        return await self._guarded(HANDLERS[type(frame)](self._ctx, session, frame))

    async def _guarded(self, work: Awaitable[Reply]) -> Reply:
        try:
            return await work
        except OpError as refusal:
            return ErrorFrame(message=refusal.message, code=refusal.code)
        except Exception as error:
            if is_disk_full(error):  # transient for clients: they back off and retry
                log.warning("hub operation failed: the disk is full")
                return ErrorFrame(message="the hub's disk is full — try again later", code=errors.STORAGE_FULL)
            log.exception("hub operation failed")
            return ErrorFrame(message="internal hub error", code=errors.INTERNAL)

    async def _reply(self, reply: Reply) -> None:
        frame, data = reply if isinstance(reply, tuple) else (reply, None)
        try:
            text = encode(frame)
        except ValueError:  # a value that cannot be JSON must not end the connection
            log.exception("hub reply %s could not be encoded", frame.TAG)
            text, data = encode(ErrorFrame(message="internal hub error", code=errors.INTERNAL)), None
        if not write_now(self._ws, text):
            await self._ws.send(text)
        if data is not None:  # one binary message (§7.13), fragmented when large
            view = memoryview(data)
            await self._ws.send(
                data if len(data) <= BLOB_FRAGMENT_BYTES
                else (view[start:start + BLOB_FRAGMENT_BYTES] for start in range(0, len(data), BLOB_FRAGMENT_BYTES))
            )

    async def _fail(self, message: str, code: str, close_code: CloseCode) -> None:
        await self._ws.send(encode(ErrorFrame(message=message, code=code)))
        await self._ws.close(close_code, message[:100])

    def _cleanup(self, seat: Seat) -> None:
        session = self.session
        self._ctx.admission.leave(seat)
        if self._idle_timer is not None:
            self._idle_timer.cancel()
        release_upload(self._ctx, session)
        if session.push_queue is not None:
            assert session.agent is not None
            self._ctx.subscribers.remove(session.agent, session.push_queue)
            session.push_queue.close()


async def reject_at_capacity(ws: ServerConnection, message: str) -> None:
    try:
        await ws.send(encode(ErrorFrame(message=message, code=errors.AT_CAPACITY)))
        await ws.close(CloseCode.TRY_AGAIN_LATER, "at capacity")
    except ConnectionClosed:
        pass
