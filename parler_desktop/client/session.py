"""HubSession: one identity on one hub, kept connected, caught up and posting, for as long as the
app runs.

The run loop dials, proves the identity, subscribes, catches up and then serves the connection
(heartbeat, pushes, reconciliation, outbox, read markers, roster) until it dies; then it backs
off and starts again. Everything it does is reported as the typed events of ``events.py``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any

from parler_desktop.client.address import normalize_hub_url, parse_invite
from parler_desktop.client.backoff import Backoff
from parler_desktop.client.clock import Clock, SystemClock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import HubConnection, ReplyKind, Requester, expect
from parler_desktop.client.errors import (
    BadReply,
    ConnectionLost,
    HandshakeRefused,
    HubRefused,
    HubUnreachable,
    SessionClosed,
)
from parler_desktop.client.events import (
    ConnectionState,
    Notice,
    OutboxItem,
    SessionEvent,
    StateChanged,
)
from parler_desktop.client.outbox import Outbox, build_item
from parler_desktop.client.pacing import RequestPacer
from parler_desktop.client.read_markers import ReadMarkers
from parler_desktop.client.roster import RosterWatcher
from parler_desktop.client.sync import RoomSync
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.client.tuning import SessionTuning
from parler_desktop.client.wake import ResumeDetector
from parler_desktop.identity import Identity, load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.protocol import errors as codes
from parler_desktop.protocol.frames import (
    ClientFrame,
    ErrorFrame,
    HubFrame,
    Invite,
    Invited,
    Joined,
    JoinPending,
    JoinRequestList,
    JoinRequests,
    Presence,
    PresenceOk,
    Redeem,
    ResolveJoin,
    JoinResolved,
    Subscribe,
    Subscribed,
)
from parler_desktop.protocol.parts import Handoff
from parler_desktop.protocol.values import JoinRequest, Part, RoomInfo, StoredMessage
from parler_desktop.settings import load_settings, read_join_secret
from parler_desktop.store import StoreError, StoreWorker

log = logging.getLogger(__name__)

Listener = Callable[[SessionEvent], None]

_AUTH_ADVICE = {
    codes.NOT_AUTHORIZED: "The hub rejected the join secret. Set the right one (PARLER_JOIN_SECRET or the "
    "join secret file) and retry.",
    codes.UNAUTHENTICATED: "The hub rejected this identity's signature. Check the identity key file and retry.",
}


class HubSession:
    def __init__(
        self,
        hub_url: str,
        identity: Identity,
        store: StoreWorker,
        *,
        name: str,
        role: str | None = "supervisor",
        join_secret: str | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        tuning: SessionTuning | None = None,
        sync_messages: bool = True,
    ) -> None:
        """``sync_messages=False`` keeps only the connection and the outbox (one-shot ``send``)."""
        self.hub_url = normalize_hub_url(hub_url)
        self.identity = identity
        self.agent_id = identity.agent_id
        self.name = name
        self.role = role
        self.store = store
        self.tuning = tuning or SessionTuning()
        self.sync_messages = sync_messages
        self._join_secret = join_secret
        self._clock: Clock = clock or SystemClock()
        self._rng = rng or random.Random()
        self._owns_store = False
        self._listeners: list[Listener] = []
        self.state = StateChanged(ConnectionState.STOPPED, self.hub_url, self.agent_id)
        self._state_changed: asyncio.Future[None] | None = None
        self._supervisor = TaskSupervisor("session", self._task_failed)
        self._backoff = Backoff(base=self.tuning.backoff_base_secs, cap=self.tuning.backoff_cap_secs, rng=self._rng)
        self._pacer = RequestPacer(self._clock, per_window=self.tuning.ops_per_minute)
        self._commit = Committer(store, self._emit)
        self._sync = RoomSync(
            store, self._commit, self._emit, self._clock, mentions_me=self._mentions_me,
            page_size=self.tuning.page_size, on_marked=lambda room: self._read_markers.on_marked(room),
        )
        self._outbox = Outbox(store, self._commit, self._clock, on_sent=self._on_sent)
        self._conn: HubConnection | None = None
        self._nudge = asyncio.Event()  # cut the current backoff wait short
        self._auth_retry = asyncio.Event()  # leave AUTH_FAILED: the user changed something
        self._read_markers = ReadMarkers(store, self._commit, self._emit, self._sync.mark)
        self._rosters = RosterWatcher(self._commit, self._clock, interval=self.tuning.roster_secs)
        self._stopped = False
        self._pending_notices: list[Notice] = []  # found before anyone could listen (settings)

    @classmethod
    async def open(cls, home: Home, hub_url: str, **kwargs: Any) -> "HubSession":
        """A session for the identity, settings and store of ``home``; the session owns the store.

        ``name``, ``role`` and ``join_secret`` default to the home's settings. Raises
        ``KeyFileError``, ``StoreError``, ``OSError`` (join secret file) or ``ValueError`` (address).
        """
        home.ensure()
        identity = await asyncio.to_thread(load_or_create_identity, home.key_file)
        loaded = load_settings(home.settings_file)
        kwargs.setdefault("name", loaded.settings.display_name)
        kwargs.setdefault("role", loaded.settings.role)
        if "join_secret" not in kwargs:
            kwargs["join_secret"] = read_join_secret(home, loaded.settings)
        url = normalize_hub_url(hub_url)
        store = StoreWorker(home.store_path(url, identity.agent_id))
        await store.open()
        session = cls(url, identity, store, **kwargs)
        session._owns_store = True
        if loaded.problem:
            session._pending_notices.append(Notice(loaded.problem))
        return session

    # ---- events ----------------------------------------------------------------------------

    def add_listener(self, callback: Listener) -> None:
        self._listeners.append(callback)

    def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not stop the session
                log.exception("session listener failed on %r", event)

    def _set_state(self, state: ConnectionState, *, retry_at: float | None = None, detail: str = "") -> None:
        self.state = StateChanged(
            state, self.hub_url, self.agent_id, attempt=self._backoff.attempt, retry_at=retry_at, detail=detail
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
        self._emit(Notice(f"Internal error in {name}: {error!r}. Reconnecting."))
        if self._conn is not None:
            self._conn.abort(f"{name} failed")

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect and keep connected in the background (also sends what an earlier process left
        in the outbox)."""
        if self._stopped:
            raise SessionClosed("a stopped session cannot be started again")
        for notice in self._pending_notices:
            self._emit(notice)
        self._pending_notices.clear()
        self._supervisor.spawn("run", self._run())
        detector = ResumeDetector(
            self._clock,
            lambda gap: self.notify_wake(),
            tick_secs=self.tuning.resume_tick_secs,
            jump_secs=self.tuning.resume_jump_secs,
        )
        self._supervisor.spawn("resume-detector", detector.run())

    async def stop(self) -> None:
        """Close cleanly (code 1000), cancel every task, close the store if we opened it."""
        if self._stopped:
            return
        self._stopped = True
        conn = self._conn
        if conn is not None and self._read_markers.pending:  # the human's read marks must not be lost
            try:
                async with asyncio.timeout(self.tuning.pong_timeout_secs):
                    await self._read_markers.flush(self._requester(conn))
            except (TimeoutError, ConnectionLost, HubRefused, BadReply):
                pass
        await self._supervisor.cancel_all()
        await self._commit.drain()
        self._set_state(ConnectionState.STOPPED)
        if self._owns_store:
            await self.store.close()

    # ---- the run loop ------------------------------------------------------------------------

    async def _run(self) -> None:
        unreachable_streak = 0
        while True:
            self._nudge.clear()
            live_since: list[float] = []
            try:
                self._set_state(ConnectionState.CONNECTING)
                conn = await HubConnection.open(
                    self.hub_url,
                    open_timeout=self.tuning.open_timeout_secs,
                    on_notice=lambda text: self._emit(Notice(text)),
                    inbox_capacity=self.tuning.inbox_capacity,
                )
                unreachable_streak = 0
                await self._serve(conn, live_since)
            except HubUnreachable as error:
                unreachable_streak += 1
                detail = str(error)
            except HandshakeRefused as error:
                if not error.is_transient:  # a wrong secret or key, a name the hub will not take
                    await self._wait_for_new_credentials(error)
                    continue
                detail = f"{error.message} ({error.code or 'refused'})"
            except HubRefused as error:  # e.g. `rooms` failing with `internal`: try again later
                detail = f"{error.message} ({error.code or 'refused'})"
            except (ConnectionLost, BadReply) as error:
                detail = str(error)
            except StoreError as error:  # e.g. disk full: say so, keep trying (the hub keeps all)
                self._emit(Notice(str(error)))
                detail = str(error)
            except Exception as error:  # a bug must not end the session for good
                log.exception("session attempt failed")
                self._emit(Notice(f"Internal error: {error!r}. Reconnecting."))
                detail = f"internal error: {error!r}"
            if live_since and self._clock.monotonic() - live_since[0] >= self.tuning.healthy_secs:
                self._backoff.reset()
            delay = self._backoff.failed()
            offline = unreachable_streak >= self.tuning.offline_after
            state = ConnectionState.OFFLINE if offline else ConnectionState.BACKING_OFF
            self._set_state(state, retry_at=self._clock.time() + delay, detail=detail)
            await wait_or_timeout(self._nudge, self._clock, delay)

    async def _wait_for_new_credentials(self, error: HubRefused) -> None:
        advice = _AUTH_ADVICE.get(error.code or "", "")
        self._auth_retry.clear()
        self._set_state(ConnectionState.AUTH_FAILED, detail=f"{error.message}. {advice}".strip())
        await self._auth_retry.wait()
        self._backoff.reset()

    async def _serve(self, conn: HubConnection, live_since: list[float]) -> None:
        """Handshake, subscribe, catch up, then serve ``conn`` until it dies (raises ConnectionLost)."""
        link = TaskSupervisor("link", self._task_failed)
        try:
            self._set_state(ConnectionState.AUTHENTICATING)
            await conn.handshake(
                self.identity, self.name, self.role, self._join_secret, timeout=self.tuning.reply_timeout_secs
            )
            self._conn = conn
            request = self._requester(conn)
            tune = self.tuning
            link.spawn(
                "heartbeat",
                conn.run_heartbeat(
                    self._clock, self._rng, interval=tune.heartbeat_secs, jitter=tune.heartbeat_jitter_secs,
                    timeout=tune.pong_timeout_secs,
                ),
            )
            link.spawn("outbox", _until_lost(self._outbox.run(request)))
            if self.sync_messages:
                pushed = await self._subscribe(request)
                link.spawn("deliveries", self._pump(conn))
                self._set_state(ConnectionState.CATCHING_UP)
                await self._sync.catch_up(request)
                interval = tune.reconcile_secs if pushed else tune.poll_secs
                link.spawn("reconcile", _until_lost(self._sync.run(request, interval=interval, quiet_secs=tune.quiet_secs)))
                link.spawn("read-markers", _until_lost(self._read_markers.run(request)))
                link.spawn("rosters", _until_lost(self._rosters.run(request)))
            self._nudge.clear()
            self._sync.live = True
            live_since.append(self._clock.monotonic())
            self._set_state(ConnectionState.LIVE)
            await conn.wait_closed()
            raise ConnectionLost(conn.close_reason or "connection closed")
        finally:
            self._conn = None
            self._sync.live = False
            await link.cancel_all()
            await conn.close()

    def _requester(self, conn: HubConnection) -> Requester:
        async def request(frame: ClientFrame, kind: ReplyKind) -> HubFrame:
            """One paced request on ``conn``; ``rate_limited`` holds and retries the same frame."""
            while True:
                await self._pacer.acquire()
                reply = await conn.request(frame, timeout=self.tuning.reply_timeout_secs)
                if isinstance(reply, ErrorFrame) and reply.code == codes.RATE_LIMITED:
                    hold = self._pacer.penalize()
                    log.info("hub says rate_limited on %s; holding requests for %.1f s", frame.TAG, hold)
                    continue
                result = expect(reply, kind, frame.TAG)
                self._pacer.relieve()
                return result

        return request

    async def _subscribe(self, request: Requester) -> bool:
        try:
            await request(Subscribe(), Subscribed)
        except HubRefused as error:
            self._emit(Notice(f"This hub does not push messages ({error.message}); polling instead."))
            return False
        return True

    async def _pump(self, conn: HubConnection) -> None:
        while True:
            await self._sync.accept_pushes(await conn.deliveries.wait())

    # ---- requests on behalf of the user --------------------------------------------------------

    async def _connection(self) -> HubConnection:
        """The authenticated connection, waiting for one; SessionClosed when none will come."""
        while True:
            if self._stopped:
                raise SessionClosed("the session is stopped")
            if self.state.state is ConnectionState.AUTH_FAILED:
                raise SessionClosed(self.state.detail)
            conn = self._conn
            if conn is not None and not conn.is_closed:
                return conn
            await self._next_state()

    async def _call(self, frame: ClientFrame, kind: ReplyKind) -> HubFrame:
        """Send ``frame`` once connected; after a lost connection retry once, identically."""
        retried = False
        while True:
            conn = await self._connection()
            try:
                return await self._requester(conn)(frame, kind)
            except ConnectionLost:
                if retried:
                    raise
                retried = True

    async def post(
        self,
        room: str,
        text: str,
        *,
        mentions: Sequence[str] = (),
        reply_to: str | None = None,
        extra_parts: Sequence[Part] = (),
        client_id: str | None = None,
    ) -> OutboxItem:
        """Write a signed message to the outbox (durable on return); it is sent in the background.

        With ``client_id`` (a caller retrying the same message) an existing item with the same
        content is returned as it stands; a different message under that id raises ValueError.
        """
        item = build_item(
            self.identity, room, text, mentions=mentions, reply_to=reply_to, extra_parts=extra_parts,
            client_id=client_id, created_at=self._clock.time(),
        )
        return await self._outbox.add(item)

    async def retry_outbox(self, client_id: str) -> None:
        await self._outbox.retry(client_id)

    async def discard_outbox(self, client_id: str) -> None:
        await self._outbox.discard(client_id)

    async def mark_read(self, room: str, seq: int) -> None:
        """The human has seen ``room`` up to ``seq``: advance the hub cursor (an ack-only pull).

        Returns once recorded; the ack goes out when connected, never beyond what the local store
        holds without gaps. CursorChanged follows when the hub has taken it.
        """
        await self._read_markers.mark_read(room, seq)

    # ---- sleep and network changes -------------------------------------------------------------

    def reconnect_now(self) -> None:
        """The user said "retry now": skip the backoff wait (or leave AUTH_FAILED)."""
        self._auth_retry.set()
        self._wake("retry requested")

    def notify_wake(self) -> None:
        """The machine resumed: probe the connection at once, reconnect if it is dead."""
        self._wake("system resumed")

    def notify_network_changed(self) -> None:
        self._wake("network changed")

    def _wake(self, reason: str) -> None:
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

    def set_join_secret(self, secret: str | None) -> None:
        """Use another join secret from the next handshake on (and retry after AUTH_FAILED)."""
        self._join_secret = secret
        self.reconnect_now()

    # ---- rooms, roster, presence, invites, blobs -------------------------------------------------

    @property
    def rooms(self) -> tuple[RoomInfo, ...]:
        return self._sync.rooms

    @property
    def requests_sent(self) -> int:
        """Hub operations this session has spent (the hub allows 600 per minute per identity)."""
        return self._pacer.total

    async def refresh_rooms(self) -> None:
        await self._sync.refresh_rooms(self._call)

    async def refresh_roster(self, room: str) -> None:
        await self._rosters.refresh(self._call, room)

    def watch_roster(self, rooms: Iterable[str]) -> None:
        """Keep the rosters of ``rooms`` (the ones on screen) fresh; refreshed now and periodically."""
        self._rosters.watch(rooms)

    async def set_presence(self, status: str, activity: str | None = None, attention: str | None = None) -> None:
        await self._call(Presence(status=status, activity=activity, attention=attention), PresenceOk)

    async def invite(
        self,
        kind: str = "channel",
        room: str | None = None,
        *,
        ttl_secs: int | None = None,
        max_uses: int | None = None,
        require_approval: bool = False,
    ) -> Invited:
        frame = Invite(kind=kind, room=room, ttl_secs=ttl_secs, max_uses=max_uses, require_approval=require_approval)
        reply = await self._call(frame, Invited)
        assert isinstance(reply, Invited)
        self._sync.request_full()  # a new room may exist now
        return reply

    async def redeem(self, code_or_link: str) -> Joined | JoinPending:
        """Redeem an invite (bare code, ``CODE@HUB`` or link): Joined, or JoinPending for approval."""
        reply = await self._call(Redeem(code=parse_invite(code_or_link).code), (Joined, JoinPending))
        if isinstance(reply, Joined):
            self._sync.request_full()
        return reply  # type: ignore[return-value]

    async def join_requests(self, room: str) -> tuple[JoinRequest, ...]:
        reply = await self._call(JoinRequests(room=room), JoinRequestList)
        assert isinstance(reply, JoinRequestList)
        return reply.requests

    async def resolve_join(self, room: str, agent: str, approve: bool) -> JoinResolved:
        reply = await self._call(ResolveJoin(room=room, agent=agent, approve=approve), JoinResolved)
        assert isinstance(reply, JoinResolved)
        return reply

    async def fetch_blob(self, blob_id: str) -> bytes:
        """Download a blob; raises BadReply when its bytes do not match ``blob_id`` (SHA-256)."""
        conn = await self._connection()
        await self._pacer.acquire()
        return await conn.get_blob(blob_id, timeout=self.tuning.reply_timeout_secs)

    # ---- glue --------------------------------------------------------------------------------

    def _on_sent(self, item: OutboxItem) -> None:
        if self.sync_messages:
            self._sync.mark_dirty(item.room)  # fetch our own message with its seq into the store

    def _mentions_me(self, message: StoredMessage) -> bool:
        """Badge-worthy: a mention of my name or role, or a handoff addressed to me by name."""
        if message.sender.id == self.agent_id:
            return False
        mine = {self.name.strip().lower()} | ({self.role.strip().lower()} if self.role else set())
        if any(mention.strip().lower() in mine for mention in message.mentions or ()):
            return True
        for part in message.parts:
            handoff = Handoff.from_part(part)
            if handoff is not None and handoff.to is not None and handoff.is_addressed_to(self.name, self.role):
                return True
        return False


async def _until_lost(work: Coroutine[Any, Any, Any]) -> None:
    """Run a per-connection loop; a lost connection just ends it (the run loop reconnects)."""
    try:
        await work
    except ConnectionLost:
        return
