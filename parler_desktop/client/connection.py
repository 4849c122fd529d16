"""One WebSocket to a hub: the handshake, one request in flight, pushes into an inbox, liveness.

The hub answers every text frame with exactly one reply, in order; the only unsolicited frames
are ``delivery`` pushes and a final ``error`` before it hangs up (protocol.md §1.4). So a single
reader task routes pushes to a bounded inbox and everything else to the one waiting request.
Anything the hub sends that cannot be decoded becomes a value (and a notice), never an
exception in the reader.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
import ssl
import time
from collections.abc import AsyncIterable, Awaitable, Callable, Sequence
from typing import Protocol

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidHandshake
from websockets.frames import CloseCode

from parler_desktop.client.blob_fragments import END, Fragments, LineClosed
from parler_desktop.client.clock import Clock
from parler_desktop.client.errors import (
    BadReply, ConnectionLost, HandshakeRefused, HubRefused, HubUnreachable, OutOfTurn, TlsRefused,
)
from parler_desktop.client.fault_log import FaultLog
from parler_desktop.client.inbox import DEFAULT_CAPACITY, BoundedInbox
from parler_desktop.client.reply_fit import Reply, ReplyKind, describe, expect, fitting
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.client.tls import client_context, explain_certificate_error
from parler_desktop.identity import Identity
from parler_desktop.protocol import PROTOCOL_VERSION, StoredMessage
from parler_desktop.protocol.frames import (
    BlobIncoming,
    BlobReady,
    BlobStored,
    Challenge,
    ClientFrame,
    Delivery,
    ErrorFrame,
    GetBlob,
    Hello,
    HubFrame,
    Malformed,
    Ping,
    Pong,
    PutBlob,
    UnknownFrame,
    Welcome,
    decode_hub_frame,
    encode,
)

log = logging.getLogger(__name__)

Decoded = HubFrame | Malformed | UnknownFrame
NoticeSink = Callable[[str], None]


class Requester(Protocol):
    """Requests on the session's live connection (``pacing.PacedRequester``)."""

    async def __call__(self, frame: ClientFrame, kind: ReplyKind) -> HubFrame:
        """The reply to ``frame`` if it is a ``kind`` and fits it; else raises HubRefused,
        BadReply, or OutOfTurn (the line dropped: ``reply_fit``)."""

    async def each(self, frames: Sequence[ClientFrame], kind: ReplyKind) -> list[HubFrame | HubRefused | BadReply]:
        """``frames`` sent back to back; for each, in order, what ``__call__`` returns or raises."""

    def free_now(self) -> int:
        """How many requests may go out now within the budget, without waiting."""

    def reject(self, error: OutOfTurn) -> OutOfTurn:
        """A reply taken did not fit after all (a ``sent`` naming another post's seq): drop the
        line (``HubConnection.reject``); returns ``error`` to raise."""
"""Sends one request and returns its reply of the expected kind (the session paces and retries)."""

BLOB_MAX_BYTES = 25 << 20  # the largest blob a hub stores (protocol.md §7.16)
SLOWEST_BLOB_BYTES_PER_SEC = 32 * 1024  # a blob's bytes, up or down, may take this long on a slow line (a stalled one is dropped sooner)
MAX_MESSAGE_BYTES = 64 << 20  # the largest message read (protocol.md §1.5): a larger one closes the line at its header
CLOSE_TIMEOUT_SECS = 2.0
LAST_WORDS_SECS = 1.0  # a send the close broke waits this long for the frames read before it (the hub's reason)
READ_SLICE_SECS = 0.004  # reading a backlog of frames yields to the loop (the window) this often
READ_PAUSE_SECS = 0.001  # a frame that took this long to come was waited for: the loop had its turn
DECODE_OFF_LOOP_CHARS = 262_144  # a text frame this long (a page of long messages) is decoded on a worker thread
# (a page of 900 short messages, 250 KB, decodes in 4-5 ms; below this, the hand-over to the thread and back cost
# more than the decoding: bench_hubs.py's wake, whose 500 pages of 100 messages are 28 KB each)


class _Closed:
    """Reply-queue marker: the reader ended, no reply will come."""


class HubConnection:
    """An open WebSocket; use ``HubConnection.open`` and then ``handshake``."""

    def __init__(
        self,
        websocket: ClientConnection,
        *,
        on_notice: NoticeSink,
        inbox_capacity: int = DEFAULT_CAPACITY,
        faults: FaultLog | None = None,
    ) -> None:
        """``faults``: where the hub's faults are said, counted when they repeat (the session's,
        for all its connections); else one of its own telling ``on_notice``."""
        self._ws = websocket
        self._faults = faults or FaultLog(on_notice)
        self.deliveries: BoundedInbox[StoredMessage] = BoundedInbox(inbox_capacity)
        self.dropped_rooms: set[str] = set()  # rooms of pushes the full inbox dropped: to be pulled
        self._replies: asyncio.Queue[Reply | _Closed] = asyncio.Queue()
        self._awaiting: collections.deque[ClientFrame | None] = collections.deque()  # what the hub still owes
        # replies to, oldest first (None: a blob's bytes, or raw bytes sent): anything beyond is unsolicited
        self.oversized: ClientFrame | None = None  # the request whose reply was larger than we read
        self._fragments: Fragments | None = None  # where a blob's bytes go while one is asked for
        self._lock = asyncio.Lock()
        self._closed = asyncio.Event()
        self.close_reason = ""
        self.final_error: ErrorFrame | None = None  # what the hub said just before hanging up
        self.fault: OutOfTurn | None = None  # the reply that did not fit, why the line was dropped
        self._tasks = TaskSupervisor("connection", lambda name, error: self._notice(f"{name} failed: {error}"))
        self._tasks.spawn("reader", self._read())

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        open_timeout: float,
        on_notice: NoticeSink,
        inbox_capacity: int = DEFAULT_CAPACITY,
        ca_file: str | None = None,
        faults: FaultLog | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> "HubConnection":
        """Dial ``url`` (over TLS for ``wss://``, trusting only ``ca_file`` when given); raises
        HubUnreachable (OS-level failure) or ConnectionLost (a certificate problem included).

        A message larger than ``max_message_bytes`` closes the connection as its header is read
        (code 1009; ``oversized`` is the request it answered): without a bound, a frame claiming
        10 GB was read into memory (3 GB in 15 s) for as long as the hub kept sending."""
        try:
            tls = {"ssl": client_context(ca_file)} if url.startswith("wss://") else {}
        except ValueError as error:
            raise TlsRefused(str(error)) from None
        try:
            websocket = await connect(
                url,
                max_size=max_message_bytes,
                ping_interval=None,  # the hub cannot answer WS pings during a long-poll (§1.5)
                compression=None,
                open_timeout=open_timeout,
                close_timeout=CLOSE_TIMEOUT_SECS,
                **tls,
            )
        except TimeoutError as error:  # (a subclass of OSError: test it first)
            raise ConnectionLost("the hub did not accept the connection in time") from error
        except ssl.SSLCertVerificationError as error:  # (an OSError too)
            raise TlsRefused(explain_certificate_error(error, url)) from error
        except OSError as error:
            raise HubUnreachable(f"cannot reach the hub: {error.strerror or error}") from error
        except (InvalidHandshake, ConnectionClosed) as error:
            raise ConnectionLost(f"the hub refused the WebSocket: {error}") from error
        return cls(websocket, on_notice=on_notice, inbox_capacity=inbox_capacity, faults=faults)

    # ---- state -------------------------------------------------------------------------

    @property
    def is_closed(self) -> bool:
        return self._closed.is_set()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def abort(self, reason: str) -> None:
        """Declare the connection dead now (silent peer, failed probe) and drop the socket."""
        if not self.is_closed:
            log.info("dropping hub connection: %s", reason)
            self.close_reason = reason
            self._ws.transport.abort()

    def reject(self, error: OutOfTurn) -> OutOfTurn:
        """A reply did not fit its request (``reply_fit``): drop the line, logging what did not
        fit once (``abort``); returns ``error`` to raise."""
        if self.fault is None and not self.is_closed:
            self.fault = error
            self.abort(str(error))
        return error

    def fit(self, frame: ClientFrame, reply: Reply, kind: ReplyKind) -> HubFrame:
        """``reply_fit.fitting``; a reply that does not fit drops the line (``reject``)."""
        try:
            return fitting(frame, reply, kind)
        except OutOfTurn as error:
            raise self.reject(error) from None

    async def close(self) -> None:
        """Clean close (code 1000), then stop the reader."""
        if not self.is_closed:
            self.close_reason = "closed by us"
            with contextlib.suppress(Exception):
                await self._ws.close(1000, "bye")
        await self._tasks.cancel_all()
        self._mark_closed("closed by us")

    def _mark_closed(self, reason: str) -> None:
        if self._closed.is_set():
            return
        self.close_reason = self.close_reason or reason
        self._closed.set()
        self._replies.put_nowait(_Closed())
        if self._fragments is not None:
            self._fragments.end(LineClosed())

    def _notice(self, text: str, kind: str | None = None) -> None:
        """A fault to tell; repeats of ``kind`` (default: the same text) are counted."""
        self._faults.report(kind or text, text)

    # ---- receiving ---------------------------------------------------------------------

    async def _read(self) -> None:
        reason = "the hub closed the connection"
        try:
            slice_ends = routed_at = 0.0
            while True:
                if self._fragments is not None and self._awaiting and self._awaiting[0] is None:
                    await self._stream_blob(self._fragments)
                    continue
                data = await self._ws.recv()  # frames already buffered come without a pause
                if isinstance(data, str) and len(data) >= DECODE_OFF_LOOP_CHARS:
                    # Megabytes of messages are tens of ms of decoding: held on the loop, that
                    # is a stall in the window. Awaited here, so frames keep their order.
                    data = await asyncio.to_thread(decode_hub_frame, data)
                if time.monotonic() - routed_at > READ_PAUSE_SECS:  # not a backlog: a new slice starts
                    slice_ends = time.monotonic() + READ_SLICE_SECS
                self._route(data)
                routed_at = time.monotonic()
                if routed_at > slice_ends:
                    await asyncio.sleep(0)
                    slice_ends = time.monotonic() + READ_SLICE_SECS
        except ConnectionClosedOK:
            pass
        except ConnectionClosed as error:
            reason = f"connection lost ({error})"
            if error.sent is not None and error.sent.code == CloseCode.MESSAGE_TOO_BIG:
                limit = self._ws.protocol.max_message_size or 0
                reason = f"the hub sent a message larger than {limit >> 20 or limit} {'MiB' if limit >> 20 else 'bytes'}"
                self._notice(f"{reason}; reconnecting", "too large")
                if self._awaiting:
                    self.oversized = self._awaiting[0]  # replies come in order: the one being read
        except OSError as error:
            reason = f"connection lost ({error})"
        finally:
            if self.final_error is not None:
                reason = f"{self.final_error.message} ({self.final_error.code or 'error'})"
            self._mark_closed(reason)

    async def _stream_blob(self, fragments: Fragments) -> None:
        """The message after ``blob_incoming``, a fragment at a time as it is read: its bytes to
        ``fragments`` (waiting while the download writes), never assembled; a push that comes
        first is routed as any (§9.2)."""
        text: list[str] = []
        async for fragment in self._ws.recv_streaming():
            if isinstance(fragment, str):
                text.append(fragment)
            else:
                await fragments.put(fragment)
        if text:
            self._route("".join(text))
        else:
            self._awaiting.popleft()
            await fragments.put(END)

    def _route(self, data: str | bytes | Decoded) -> None:
        """``data``: a frame as read, or a text frame already decoded."""
        if isinstance(data, bytes):
            if self._awaiting:
                self._awaiting.popleft()
                self._replies.put_nowait(data)
            else:
                self._notice(f"ignored an unexpected binary frame of {len(data)} bytes from the hub", "binary")
            return
        frame = decode_hub_frame(data) if isinstance(data, str) else data
        if isinstance(frame, Delivery):
            if (lost := self.deliveries.put(frame.message)) is not None:
                self.dropped_rooms.add(lost.room)
                self._notice("dropped a pushed message: more came than this app could store; its room will be pulled",
                             "dropped push")
        elif isinstance(frame, Malformed) and frame.tag == "delivery":
            self._notice(f"ignored a pushed message the hub sent malformed: {frame.reason}", "malformed delivery")
        elif self._awaiting:
            if self._awaiting.popleft() is None and self._fragments is not None:
                self._fragments.end(frame)  # a frame in place of the blob's bytes ends the download
                return
            if isinstance(frame, BlobIncoming):
                self._awaiting.appendleft(None)  # the blob's bytes follow as one binary frame (§7.13)
            self._replies.put_nowait(frame)
        elif isinstance(frame, ErrorFrame):
            self.final_error = frame  # the hub says why before it hangs up (§1.4)
        else:
            self._notice(f"ignored an unsolicited frame from the hub: {describe(frame)}", "unsolicited")

    # ---- requests ----------------------------------------------------------------------

    async def request(self, frame: ClientFrame, *, timeout: float) -> Reply:
        """Send ``frame`` and return its reply; waits its turn behind the request in flight.

        ``timeout`` covers sending and the reply, not the wait for the turn. A timeout means the
        connection is dead: it is dropped and ConnectionLost raised.
        """
        async with self._lock:
            return (await self._exchange_all([(encode(frame), frame)], timeout))[0]

    async def request_each(self, frames: Sequence[ClientFrame], *, timeout: float) -> list[Reply]:
        """Send ``frames`` back to back and return their replies in order (pipelined: the hub
        answers requests in the order they arrived, protocol.md §1.4), in one turn as ``request``
        has for one; ``timeout`` covers them all. Each request waiting for its reply before the
        next left the hub idle in between, and woke it again for each (bench_hubs.py's wake)."""
        async with self._lock:
            return await self._exchange_all([(encode(frame), frame) for frame in frames], timeout)

    async def _exchange(self, data: str | bytes | AsyncIterable[bytes], timeout: float) -> Reply:
        """One frame out (text, or a blob's bytes as a binary frame) and its one reply."""
        return (await self._exchange_all([(data, None)], timeout))[0]

    async def _exchange_all(
        self, frames: Sequence[tuple[str | bytes | AsyncIterable[bytes], ClientFrame | None]], timeout: float
    ) -> list[Reply]:
        """Each frame sent (as its data, with the request it is, if one) and the replies in order."""
        if self.is_closed:
            raise ConnectionLost(self.close_reason)
        self._awaiting.extend(frame for _data, frame in frames)
        try:
            async with asyncio.timeout(timeout):
                for data, _frame in frames:
                    await self._ws.send(data)
                return [await self._next_reply() for _ in frames]
        except TimeoutError:
            self.abort(f"no reply within {timeout:g} s")
            raise ConnectionLost(f"the hub did not answer within {timeout:g} s") from None
        except ConnectionClosed as error:
            reply = await self._reply_before_close() if len(frames) == 1 else None
            if reply is None:
                raise ConnectionLost(f"connection lost ({error})") from error
            return [reply]

    async def _reply_before_close(self) -> Reply | None:
        """The hub's answer read before the close that failed our send: a hub at capacity says
        so right after the upgrade and hangs up (§7.12), possibly before our first frame lands.
        Read once the reader has routed every frame that came before the close."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait_closed(), LAST_WORDS_SECS)
        try:
            reply = self._replies.get_nowait()
        except asyncio.QueueEmpty:
            return None
        if isinstance(reply, _Closed):
            self._replies.put_nowait(reply)  # later readers must see it too
            return None
        return reply

    async def _next_reply(self) -> Reply:
        reply = await self._replies.get()
        if isinstance(reply, _Closed):
            self._replies.put_nowait(reply)  # later readers must see it too
            raise ConnectionLost(self.close_reason)
        return reply

    async def handshake(
        self, identity: Identity, name: str, role: str | None, join_secret: str | None, *, timeout: float
    ) -> Welcome:
        """Prove the identity (§3). Raises HandshakeRefused (e.g. a wrong join secret, or a hub at
        capacity that said so before it hung up: §1.4, §7.12) or ConnectionLost."""
        try:
            return await self._prove(identity, name, role, join_secret, timeout)
        except HubRefused as error:
            raise HandshakeRefused(error.message, error.code, "hello") from error
        except ConnectionLost:
            last_words = self.final_error
            if last_words is None:
                raise
            raise HandshakeRefused(last_words.message, last_words.code, "hello") from None

    async def _prove(
        self, identity: Identity, name: str, role: str | None, join_secret: str | None, timeout: float
    ) -> Welcome:
        hello = Hello(id=identity.agent_id, name=name, role=role)
        challenge = self.fit(hello, await self.request(hello, timeout=timeout), Challenge)
        assert isinstance(challenge, Challenge)
        if challenge.version and challenge.version.split(".")[0] != PROTOCOL_VERSION.split(".")[0]:
            self._notice(f"the hub speaks protocol {challenge.version}, this app {PROTOCOL_VERSION}; continuing")
        signed = Hello(
            id=identity.agent_id,
            name=name,
            role=role,
            nonce=challenge.nonce,
            sig=identity.sign(challenge.nonce.encode("utf-8")),
            secret=join_secret or None,
        )
        welcome = self.fit(signed, await self.request(signed, timeout=timeout), Welcome)
        assert isinstance(welcome, Welcome)
        return welcome

    async def ping(self, *, timeout: float) -> None:
        """One protocol ping after the request in flight; no ``pong`` within ``timeout`` drops
        the connection and raises ConnectionLost."""
        self.fit(Ping(), await self.request(Ping(), timeout=timeout), Pong)

    async def run_heartbeat(
        self, clock: Clock, rng: random.Random, *, interval: float, jitter: float, timeout: float
    ) -> None:
        """Ping every ``interval`` + U(0, ``jitter``) seconds until the connection dies."""
        while not self.is_closed:
            await clock.sleep(interval + rng.uniform(0.0, jitter))
            try:
                await self.ping(timeout=timeout)
            except ConnectionLost:
                return
            except (HubRefused, BadReply) as error:  # a hub that cannot pong is not one we can use
                self.abort(f"bad answer to ping: {error}")
                return

    async def get_blob(
        self, blob_id: str, take: Callable[[bytes], Awaitable[None]], *, size: int | None, timeout: float, stall_secs: float
    ) -> int:
        """Download a blob (``blob_incoming`` + one binary message, §7.13), handing its bytes to
        ``take`` a fragment at a time as they are read: never held whole, the reader waiting
        while ``take`` writes. Returns how many came; the caller checks their SHA-256.

        Refused (BadReply): an announcement above ``BLOB_MAX_BYTES`` or other than ``size`` (what
        the message said), before any byte; bytes beyond the announcement, as they come; fewer.
        No byte for ``stall_secs``, or the bytes slower than ``SLOWEST_BLOB_BYTES_PER_SEC``, is
        ConnectionLost. The rest of a message cannot be skipped: a download that ends before its
        bytes did (refused, stalled, cancelled by the human, or ``take`` failing) drops the line.
        A hub announcing 10 GiB once had 1.56 GB held until the reply timeout."""
        async with self._lock:
            bound = self._ws.protocol.max_message_size
            self._ws.protocol.max_message_size = min(bound or BLOB_MAX_BYTES, BLOB_MAX_BYTES)
            fragments = self._fragments = Fragments()
            owed = True  # the hub owes a reply or bytes: a download ending now drops the line
            try:
                request = GetBlob(id=blob_id)
                reply = (await self._exchange_all([(encode(request), request)], timeout))[0]
                owed = isinstance(reply, BlobIncoming)  # (bytes follow no other reply)
                header = expect(reply, BlobIncoming, "get_blob")
                assert isinstance(header, BlobIncoming)
                if header.size > BLOB_MAX_BYTES:
                    raise BadReply(f"the hub announced {header.size} bytes, larger than the {BLOB_MAX_BYTES >> 20} MiB a file may be")
                if size is not None and header.size != size:
                    raise BadReply(f"the hub announced {header.size} bytes where the message said {size}")
                received = 0
                async with asyncio.timeout(timeout + header.size / SLOWEST_BLOB_BYTES_PER_SEC):
                    while (chunk := await self._next_fragment(fragments, stall_secs)) is not END:
                        received += len(chunk)
                        if received > header.size:
                            raise BadReply(f"the hub sent more than the {header.size} bytes it announced")
                        if chunk:  # (a fragmented message may end with an empty frame)
                            await take(chunk)
                owed = False
                if received != header.size:
                    raise BadReply(f"the hub sent {received} of the {header.size} bytes it announced")
                return received
            except TimeoutError:
                raise ConnectionLost("the hub sent the file too slowly") from None
            finally:
                self._fragments = None
                fragments.drop()
                if owed:
                    self.abort("a download ended before its bytes did")
                self._ws.protocol.max_message_size = bound

    async def _next_fragment(self, fragments: Fragments, stall_secs: float) -> bytes | None:
        """The next fragment of a blob, or ``END``."""
        try:
            item = await asyncio.wait_for(fragments.get(), stall_secs)
        except TimeoutError:
            raise ConnectionLost(f"the hub sent nothing of the file for {stall_secs:g} s") from None
        if isinstance(item, LineClosed):
            raise ConnectionLost(self.close_reason)
        if item is END or isinstance(item, bytes):
            return item
        if isinstance(item, ErrorFrame):  # the hub's error ends the download (§9.2)
            raise HubRefused(item.message, item.code, "get_blob")
        raise BadReply(f"the hub sent {describe(item)} in place of the file's bytes")

    async def put_blob(self, frame: PutBlob, data: bytes | AsyncIterable[bytes], *, timeout: float) -> BlobStored:
        """Upload a blob: ``put_blob`` → ``blob_ready``, then the bytes as one binary message →
        ``blob_stored`` (§7.13); ``data`` given in chunks goes out as that message's fragments,
        never held whole. Raises HubRefused for an error reply."""
        async with self._lock:
            expect(await self._exchange(encode(frame), timeout), BlobReady, "put_blob")
            stored = expect(await self._exchange(data, timeout), BlobStored, "put_blob")
        assert isinstance(stored, BlobStored)
        return stored

