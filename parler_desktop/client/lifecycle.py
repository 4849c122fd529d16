"""The connection life cycle of a session: dial, prove the identity, serve, back off, repeat.

Kept apart from ``HubSession`` (the public facade) because this is the one stateful machine of
the client: it alone decides when to connect, which ``ConnectionState`` to report, how long to
back off, when to park in AUTH_FAILED until the user changes something, and what a wake or a
network change does to the current connection. The per-connection work it runs (outbox, sync,
read markers, rosters, other processes' posts) lives in the parts it is given.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Coroutine
from typing import Any

from parler_desktop.client.backoff import Backoff
from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import HubConnection, ReplyKind, Requester
from parler_desktop.client.errors import (
    BadReply, ConnectionLost, HandshakeRefused, HubRefused, HubUnreachable, OutOfTurn, SessionClosed, TlsRefused,
)
from parler_desktop.client.events import Cause, ConnectionState, Notice, SessionEvent, StateChanged, StoreFailed
from parler_desktop.client.fault_log import FaultLog
from parler_desktop.client.outbox import Outbox
from parler_desktop.client.pacing import PacedRequester, RequestPacer
from parler_desktop.client.read_markers import ReadMarkers
from parler_desktop.client.other_posts import OtherPosts
from parler_desktop.client.roster import RosterWatcher
from parler_desktop.client.sync import RoomSync
from parler_desktop.client.cache_keeper import CacheKeeper
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.client.tuning import SessionTuning
from parler_desktop.client.wake import ResumeDetector
from parler_desktop.disk_errors import has_room_near
from parler_desktop.identity import Identity
from parler_desktop.protocol import errors as codes
from parler_desktop.protocol.frames import ClientFrame, HubFrame, Pull, Subscribe, Subscribed
from parler_desktop.store import StoreError, StoreProblem

log = logging.getLogger(__name__)

RETRYING = frozenset({ConnectionState.CONNECTING, ConnectionState.AUTHENTICATING})  # an attempt, under way
WAITING = frozenset({ConnectionState.BACKING_OFF, ConnectionState.OFFLINE})  # for the next attempt
DISK_ROOM_CHECK_SECS = 2.0  # how often a session stopped by a full disk looks for room again

_AUTH_ADVICE = {
    codes.NOT_AUTHORIZED: "The hub rejected the join secret. Set the right one (PARLER_JOIN_SECRET or the "
    "join secret file) and retry.",
    codes.UNAUTHENTICATED: "The hub rejected this identity's signature. Check the identity key file and retry.",
}


class ConnectionLifecycle:
    """Keeps one identity connected to one hub and hands the live connection to requests."""

    def __init__(
        self, hub_url: str, identity: Identity, *, name: str, role: str | None, join_secret: str | None,
        ca_file: str | None, tuning: SessionTuning, clock: Clock, rng: random.Random, pacer: RequestPacer,
        emit: Callable[[SessionEvent], None], commit: Committer, sync: RoomSync, outbox: Outbox,
        read_markers: ReadMarkers, rosters: RosterWatcher, other_posts: OtherPosts, sync_messages: bool, faults: FaultLog,
        cache_keeper: CacheKeeper | None = None,
    ) -> None:
        """``sync_messages=False`` serves only the outbox on each connection (no subscribe, no sync)."""
        self.hub_url = hub_url
        self.identity = identity
        self.name = name
        self.role = role
        self.join_secret = join_secret  # read at each handshake
        self.ca_file = ca_file  # for wss://: trust only this CA (None: the system's CAs)
        self.tuning = tuning
        self._clock = clock
        self._rng = rng
        self._pacer = pacer
        self._emit = emit
        self._commit = commit
        self._sync = sync
        self._outbox = outbox
        self._read_markers = read_markers
        self._rosters = rosters
        self._other_posts = other_posts
        self._sync_messages = sync_messages
        self._faults = faults  # the hub's faults, counted when they repeat, over every connection
        self._cache_keeper = cache_keeper
        self.state = StateChanged(ConnectionState.STOPPED, hub_url, identity.agent_id)
        self._state_changed: asyncio.Future[None] | None = None
        self._supervisor = TaskSupervisor("session", self._task_failed)
        self._backoff = Backoff(base=tuning.backoff_base_secs, cap=tuning.backoff_cap_secs, rng=rng)
        self._conn: HubConnection | None = None
        self._nudge = asyncio.Event()  # cut the current backoff wait short
        self._auth_retry = asyncio.Event()  # leave AUTH_FAILED: the user changed something
        self._live_since: float | None = None  # monotonic time the current attempt went LIVE
        self._store_failure: StoreError | None = None  # a store write failed in a connection's task
        self.stopped = False

    # ---- state -------------------------------------------------------------------------------

    def _set_state(
        self, state: ConnectionState, *, retry_at: float | None = None, detail: str = "", cause: Cause | None = None
    ) -> None:
        if state in RETRYING and cause is None and self.state.state in RETRYING | WAITING:  # says why it tries again
            detail, cause = self.state.detail, self.state.cause
        self.state = StateChanged(
            state, self.hub_url, self.identity.agent_id, attempt=self._backoff.attempt, retry_at=retry_at,
            detail=detail, cause=cause,
        )
        if self._state_changed is not None and not self._state_changed.done():
            self._state_changed.set_result(None)
        self._state_changed = None
        self._emit(self.state)

    async def _next_state(self) -> None:
        if self._state_changed is None:
            self._state_changed = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._state_changed)

    def _task_failed(self, name: str, error: BaseException) -> None:
        if isinstance(error, StoreError):
            self._store_failure = error  # the run loop stops on it once the connection is down
        else:
            self._emit(Notice(f"Internal error in {name}: {error!r}. Reconnecting."))
        if self._conn is not None:
            self._conn.abort(f"{name} failed")

    # ---- start and stop ----------------------------------------------------------------------

    def start(self) -> None:
        """Run the connect loop and the resume detector in the background."""
        self._supervisor.spawn("run", self._run())
        detector = ResumeDetector(
            self._clock,
            lambda gap: self.wake("system resumed"),
            tick_secs=self.tuning.resume_tick_secs,
            jump_secs=self.tuning.resume_jump_secs,
        )
        self._supervisor.spawn("resume-detector", detector.run())

    async def stop(self) -> None:
        """Flush read marks if connected, cancel every task, let committed events out, report STOPPED."""
        self.stopped = True
        conn = self._conn
        if conn is not None and self._read_markers.pending:  # the human's read marks must not be lost
            try:
                async with asyncio.timeout(self.tuning.pong_timeout_secs):
                    await self._read_markers.flush(self.requester(conn))
            except (TimeoutError, ConnectionLost, HubRefused, BadReply):
                pass
        await self._supervisor.cancel_all()
        await self._commit.drain()
        self._faults.flush()
        self._set_state(ConnectionState.STOPPED)

    # ---- the run loop ------------------------------------------------------------------------

    async def _run(self) -> None:
        unreachable_streak = 0
        nudged = False  # this attempt was asked for (Retry now, a wake), not waited for
        while True:
            self._nudge.clear()
            self._live_since = None
            conn: HubConnection | None = None
            try:
                self._set_state(ConnectionState.CONNECTING)
                conn = await HubConnection.open(
                    self.hub_url,
                    ca_file=self.ca_file,
                    open_timeout=self.tuning.open_timeout_secs,
                    on_notice=lambda text: self._emit(Notice(text)),
                    inbox_capacity=self.tuning.inbox_capacity,
                    faults=self._faults,
                    max_message_bytes=self.tuning.max_message_bytes,
                )
                unreachable_streak = 0
                await self._serve(conn)
            except HubUnreachable as error:
                unreachable_streak += 1
                detail, cause = str(error), Cause.UNREACHABLE
            except HandshakeRefused as error:
                if not error.is_transient:  # a wrong secret or key, a name the hub will not take
                    await self._wait_for_new_credentials(error)
                    continue
                detail, cause = f"{error.message} ({error.code or 'refused'})", Cause.REFUSED
            except HubRefused as error:  # e.g. `rooms` failing with `internal`: try again later
                detail, cause = f"{error.message} ({error.code or 'refused'})", Cause.REFUSED
            except TlsRefused as error:
                detail, cause = str(error), Cause.TLS
            except (ConnectionLost, BadReply) as error:
                if self._store_failure is not None:
                    await self._wait_after_store_failure(self._store_failure)
                    continue
                fault = error if isinstance(error, OutOfTurn) else conn.fault if conn is not None else None
                detail, cause = (str(fault), Cause.OUT_OF_TURN) if fault is not None else (str(error), Cause.LOST)
            except StoreError as error:
                await self._wait_after_store_failure(error)
                continue
            except Exception as error:  # a bug must not end the session for good
                log.exception("session attempt failed")
                self._emit(Notice(f"Internal error: {error!r}. Reconnecting."))
                detail, cause = f"internal error: {error!r}", Cause.INTERNAL
            if self._live_since is not None and self._clock.monotonic() - self._live_since >= self.tuning.healthy_secs:
                self._backoff.reset()
            delay = self._backoff.again() if nudged else self._backoff.failed()
            offline = unreachable_streak >= self.tuning.offline_after
            state = ConnectionState.OFFLINE if offline else ConnectionState.BACKING_OFF
            self._set_state(state, retry_at=self._clock.time() + delay, detail=detail, cause=cause)
            nudged = await wait_or_timeout(self._nudge, self._clock, delay)

    async def _wait_after_store_failure(self, error: StoreError) -> None:
        """A full disk or a damaged cache fails the same way on every retry: say so once, go
        OFFLINE, and wait for "retry now" (the hub keeps every message meanwhile) — or, after a
        full disk, until it has room again."""
        self._store_failure = None
        self._emit(StoreFailed(error))
        cause = Cause.DISK_FULL if error.problem is StoreProblem.DISK_FULL else Cause.STORE
        self._set_state(ConnectionState.OFFLINE, detail=str(error), cause=cause)
        while not await wait_or_timeout(self._nudge, self._clock, DISK_ROOM_CHECK_SECS):
            if error.problem is StoreProblem.DISK_FULL and has_room_near(error.path):
                return

    def store_took_write(self) -> None:
        """The store just kept a write (the human's post): if the session went offline on its
        refusal (a full disk, freed since), or is about to, that is the retry — connect now, not
        on "Retry now"."""
        if self.state.cause in (Cause.STORE, Cause.DISK_FULL) or self._store_failure is not None:
            self._nudge.set()

    async def _wait_for_new_credentials(self, error: HubRefused) -> None:
        advice = _AUTH_ADVICE.get(error.code or "", "")
        self._auth_retry.clear()
        self._set_state(ConnectionState.AUTH_FAILED, detail=f"{error.message}. {advice}".strip())
        await self._auth_retry.wait()
        self._backoff.reset()

    async def _serve(self, conn: HubConnection) -> None:
        """Handshake, subscribe, catch up, then serve ``conn`` until it dies (raises ConnectionLost)."""
        link = TaskSupervisor("link", self._task_failed)
        try:
            self._set_state(ConnectionState.AUTHENTICATING)
            await conn.handshake(
                self.identity, self.name, self.role, self.join_secret, timeout=self.tuning.reply_timeout_secs
            )
            self._conn = conn
            request = self.requester(conn)
            tune = self.tuning
            link.spawn(
                "heartbeat",
                conn.run_heartbeat(
                    self._clock, self._rng, interval=tune.heartbeat_secs, jitter=tune.heartbeat_jitter_secs,
                    timeout=tune.pong_timeout_secs,
                ),
            )
            link.spawn("outbox", _until_lost(lambda: self._outbox.run(self.requester(conn, urgent=True))))
            if self._sync_messages:
                pushed = await self._subscribe(request)
                link.spawn("deliveries", self._pump(conn))
                self._set_state(ConnectionState.CATCHING_UP)
                await self._sync.catch_up(request)
                interval = tune.reconcile_secs if pushed else tune.poll_secs
                link.spawn("reconcile", _until_lost(
                    lambda: self._sync.run(request, interval=interval, quiet_secs=tune.quiet_secs, reader_secs=tune.reader_pull_secs)
                ))
                link.spawn("read-markers", _until_lost(lambda: self._read_markers.run(request)))
                link.spawn("rosters", _until_lost(lambda: self._rosters.run(request)))
                link.spawn("other-posts", _until_lost(lambda: self._other_posts.run()))
                if self._cache_keeper is not None:
                    link.spawn("retention", self._cache_keeper.run())
            self._nudge.clear()
            self._sync.live = True
            self._live_since = self._clock.monotonic()
            self._set_state(ConnectionState.LIVE)
            await conn.wait_closed()
            raise conn.fault or ConnectionLost(conn.close_reason or "connection closed")
        finally:
            self._conn = None
            self._sync.live = False
            await link.cancel_all()
            await conn.close()
            if isinstance(conn.oversized, Pull):  # its next pulls ask for fewer messages
                self._sync.page_did_not_fit(conn.oversized.room, conn.oversized.limit)

    async def _subscribe(self, request: Requester) -> bool:
        try:
            await request(Subscribe(), Subscribed)
        except HubRefused as error:
            self._emit(Notice(f"This hub does not push messages ({error.message}); polling instead."))
            return False
        return True

    async def _pump(self, conn: HubConnection) -> None:
        while True:
            pushed = await conn.deliveries.wait()
            dropped, conn.dropped_rooms = conn.dropped_rooms, set()
            await self._sync.accept_pushes(pushed, dropped)

    # ---- requests ----------------------------------------------------------------------------

    def requester(self, conn: HubConnection, *, urgent: bool = False) -> Requester:
        """``urgent``: the human's requests, which may use the budget's reserve (``pacing``)."""
        return PacedRequester(conn, self._pacer, self.tuning.reply_timeout_secs, urgent=urgent)

    async def connection(self) -> HubConnection:
        """The authenticated connection, waiting for one; SessionClosed when none will come."""
        while True:
            if self.stopped:
                raise SessionClosed("the session is stopped")
            if self.state.state is ConnectionState.AUTH_FAILED:
                raise SessionClosed(self.state.detail)
            conn = self._conn
            if conn is not None and not conn.is_closed:
                return conn
            await self._next_state()

    async def call(self, frame: ClientFrame, kind: ReplyKind, *, urgent: bool = True) -> HubFrame:
        """Send ``frame`` once connected; after a lost connection retry once, identically.
        ``urgent`` (the human asked): it may use the budget's reserve; a background poll may not."""
        retried = False
        while True:
            conn = await self.connection()
            try:
                return await self.requester(conn, urgent=urgent)(frame, kind)
            except OutOfTurn:
                raise  # the hub answered: asking again would not make it answer this
            except ConnectionLost:
                if retried:
                    raise
                retried = True

    # ---- sleep, network changes, retries -------------------------------------------------------

    def retry_now(self) -> None:
        """Skip the backoff wait, or leave AUTH_FAILED."""
        self._auth_retry.set()
        self.wake("retry requested")

    def wake(self, reason: str) -> None:
        """Something may have killed the connection: probe it now, or try to connect now."""
        conn = self._conn
        if conn is None:
            self._nudge.set()  # one attempt now; the attempt count (and next delay) is kept
            return
        self._supervisor.spawn("probe", self._probe(conn, reason))

    async def _probe(self, conn: HubConnection, reason: str) -> None:
        try:
            await conn.ping(timeout=self.tuning.pong_timeout_secs)
        except (ConnectionLost, HubRefused, BadReply):
            conn.abort(f"probe after {reason} failed")
            self._nudge.set()  # reconnect without waiting out the backoff
            return
        self._sync.request_full()  # pushes may have been lost while asleep


async def _until_lost(work: Callable[[], Coroutine[Any, Any, Any]]) -> None:
    """Run a per-connection loop; a lost connection just ends it (the run loop reconnects).
    The loop is made here, when the task first runs: made by the caller, a task cancelled
    before it started (a line lost at once) left it never awaited."""
    try:
        await work()
    except ConnectionLost:
        return
