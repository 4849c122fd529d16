"""HubSession: one identity on one hub, kept connected, caught up and posting, for as long as the
app runs.

This is the facade the app and the commands use: it builds the session's parts (sync, outbox,
read markers, rosters, the connection life cycle of ``lifecycle.py``), hands them the events'
listeners, and offers the user's operations (post, mark read, presence, invites, blobs).
Everything is reported as the typed events of ``events.py``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable, Sequence
from typing import Any

from parler_desktop.client.address import normalize_hub_url, parse_invite
from parler_desktop.client.arrivals import Arrivals
from parler_desktop.client.clock import Clock, SystemClock
from parler_desktop.client.cache_keeper import CacheKeeper
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import SLOWEST_BLOB_BYTES_PER_SEC
from parler_desktop.client.errors import SessionClosed
from parler_desktop.client.events import Notice, OutboxItem, SessionEvent, StateChanged, StoreFailed
from parler_desktop.client.fault_log import FaultLog
from parler_desktop.client.hub_identity import load_hub_identity
from parler_desktop.client.lifecycle import ConnectionLifecycle
from parler_desktop.client.outbox import FINISHED_ITEM_KEEP_SECS, Outbox, build_item, signed_target
from parler_desktop.client.pacing import RequestPacer, reserve_for
from parler_desktop.client.read_markers import ReadMarkers
from parler_desktop.client.other_posts import OtherPosts
from parler_desktop.client.roster import RosterWatcher
from parler_desktop.client.sync import RoomSync, check_advancing
from parler_desktop.client.tuning import SessionTuning
from parler_desktop.client.uploads import send_blob
from parler_desktop.identity import Identity, verify_signature
from parler_desktop.paths import Home
from parler_desktop.protocol.frames import (
    BlobStored,
    DirectoryList,
    Discover,
    Invite,
    Invited,
    Joined,
    JoinPending,
    JoinRequestList,
    JoinRequests,
    JoinResolved,
    Presence,
    PresenceOk,
    PutBlob,
    Recall,
    Recalled,
    Pull,
    Pulled,
    Redeem,
    Remember,
    Remembered,
    ResolveJoin,
)
from parler_desktop.protocol.canonical import verify_message
from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.protocol.values import (
    DirectoryEntry, DmTarget, Fact, JoinRequest, Part, RecallHit, RoomInfo, RoomTarget, ServiceTarget, StoredMessage,
)
from parler_desktop.settings import load_settings, read_join_secret
from parler_desktop.store import LocalStore, OutboxRecovery, StoreError, StoreWorker, open_for_session
from parler_desktop.store.retention import RetentionPolicy

log = logging.getLogger(__name__)

Listener = Callable[[SessionEvent], None]


def _outbox_opened(store: LocalStore, prune_before: float | None) -> OutboxRecovery | None:
    """On the store's thread, in one call (each waits its turn there at launch): how a damaged
    outbox file was replaced as the store opened, if it was; items finished before
    ``prune_before`` (None: a read-only store) deleted."""
    if prune_before is not None:
        store.outbox_prune(prune_before)
    return store.outbox_recovery()


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
        ca_file: str | None = None,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        tuning: SessionTuning | None = None,
        sync_messages: bool = True,
        retention: RetentionPolicy | None = None,
    ) -> None:
        """``sync_messages=False`` keeps only the connection and the outbox (one-shot ``send``);
        ``ca_file`` is the only CA trusted for a ``wss://`` hub (None: the system's); the cache is
        kept within ``retention`` (None: keep everything, as a command's session does)."""
        self.hub_url = normalize_hub_url(hub_url)
        self.identity = identity
        self.agent_id = identity.agent_id
        self.name = name
        self.role = role
        self.store = store
        # Verdicts on the store's thread, as messages are stored (DMs bound to us, §8).
        signature_of = functools.partial(verify_message, verify=verify_signature, my_id=identity.agent_id)
        store.check_signatures_with(signature_of)
        self._signature_of = signature_of
        self.tuning = tuning or SessionTuning()
        self.sync_messages = sync_messages
        self._clock: Clock = clock or SystemClock()
        self._owns_store = False
        self._listeners: list[Listener] = []
        self._faults = FaultLog(lambda text: self._emit(Notice(text)))  # the hub's, counted when they repeat
        per_minute = self.tuning.ops_per_minute
        self._pacer = RequestPacer(self._clock, per_window=per_minute, reserved=reserve_for(per_minute))
        self._commit = Committer(store, self._emit)
        self._arrivals = Arrivals(self._emit, signature_of)  # pushes shown before they are stored
        self._sync = RoomSync(
            store, self._commit, self._emit, self._clock, mentions_me=self._mentions_me, show_early=self._arrivals.announce,
            faults=self._faults, page_size=self.tuning.page_size, first_sync_messages=self.tuning.first_sync_messages,
            catch_up_messages=self.tuning.catch_up_messages, on_marked=lambda room: self._read_markers.on_marked(room),
        )
        self._outbox = Outbox(store, self._commit, self._clock, my_id=identity.agent_id, on_sent=self._on_sent)
        self._read_markers = ReadMarkers(
            store, self._commit, self._emit, self._sync.mark, self._arrivals.up_to, self._sync.pull_for_reader
        )
        self._rosters = RosterWatcher(self._commit, self._clock, interval=self.tuning.roster_secs)
        self._other_posts = OtherPosts(store, self._clock, self._sync.fetch_sent)
        self.cache_keeper = CacheKeeper(store, retention) if retention is not None and sync_messages else None
        self._lifecycle = ConnectionLifecycle(
            self.hub_url, identity, name=name, role=role, join_secret=join_secret, ca_file=ca_file, tuning=self.tuning,
            clock=self._clock, rng=rng or random.Random(), pacer=self._pacer, emit=self._emit,
            commit=self._commit, sync=self._sync, outbox=self._outbox, read_markers=self._read_markers,
            rosters=self._rosters, other_posts=self._other_posts, sync_messages=sync_messages, faults=self._faults,
            cache_keeper=self.cache_keeper,
        )
        self._pending_notices: list[Notice] = []  # found before anyone could listen (settings)
        # Why the store is open read-only (a full disk): the cache can be read, nothing connects.
        self.read_only: StoreError | None = None

    @classmethod
    async def open(cls, home: Home, hub_url: str, *, store_on_loop: bool = False, **kwargs: Any) -> "HubSession":
        """A session for ``home``'s identity on the hub (or the key file its settings chose for
        that hub), its settings and store; the session owns the store.

        ``name``, ``role``, ``join_secret`` and ``ca_file`` default to the home's settings. A
        command without a window runs the store on its loop (``store_on_loop``, see
        ``store/worker.py``). Raises ``KeyFileError``, ``StoreError``, ``OSError`` (join secret
        file) or ``ValueError`` (address, or no usable key file chosen for the hub).
        """
        home.ensure()
        loaded = load_settings(home.settings_file)
        url = normalize_hub_url(hub_url)
        kwargs.setdefault("name", loaded.settings.display_name)
        kwargs.setdefault("role", loaded.settings.role)
        kwargs.setdefault("ca_file", loaded.settings.hub_ca_files.get(url))
        # Off the loop, both at once: the OS credential store may take a while (or ask to be unlocked).
        loading = asyncio.to_thread(load_hub_identity, home, loaded.settings, url)
        if "join_secret" in kwargs:
            identity = await loading
        else:
            first = normalize_hub_url(loaded.settings.hub_url) if loaded.settings.hub_url else None
            identity, kwargs["join_secret"] = await asyncio.gather(
                loading, asyncio.to_thread(read_join_secret, home, loaded.settings, None if url == first else url)
            )
        store, disk_full = await open_for_session(home.store_path(url, identity.agent_id), on_loop=store_on_loop)
        session = cls(url, identity, store, **kwargs)
        session._owns_store = True
        session.read_only = disk_full
        prune_before = None if disk_full else session._clock.time() - FINISHED_ITEM_KEEP_SECS
        if (recovery := await store.call(_outbox_opened, prune_before)) is not None:
            session._pending_notices.append(Notice(recovery.text))
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
        self._rosters.hear(event)  # (after the window: a pushed message is not held up by it)

    @property
    def state(self) -> StateChanged:
        """The connection state last reported."""
        return self._lifecycle.state

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Connect and keep connected in the background (also sends what an earlier process left
        in the outbox)."""
        if self._lifecycle.stopped:
            raise SessionClosed("a stopped session cannot be started again")
        for notice in self._pending_notices:
            self._emit(notice)
        self._pending_notices.clear()
        if self.read_only is not None:
            self._emit(StoreFailed(self.read_only))  # reopen (Retry now) once there is space
            return
        self._lifecycle.start()

    async def stop(self) -> None:
        """Close cleanly (code 1000), cancel every task, close the store if we opened it."""
        if self._lifecycle.stopped:
            return
        await self._lifecycle.stop()
        if self._owns_store:
            await self.store.close()

    # ---- requests on behalf of the user --------------------------------------------------------

    async def post(
        self,
        room: str,
        text: str,
        *,
        mentions: Sequence[str] = (),
        reply_to: str | None = None,
        extra_parts: Sequence[Part] = (),
        client_id: str | None = None,
        target: DmTarget | ServiceTarget | None = None,
    ) -> OutboxItem:
        """Write a signed message to the outbox (durable on return); it is sent in the background.
        ``target``: sent to a service (``room`` its ``svc.`` room, joined by the sending) or an
        agent's DM (see ``message_agent``) rather than to ``room``.

        With ``client_id`` (a caller retrying the same message) an existing item with the same
        content is returned as it stands; a different message under that id raises ValueError.
        """
        if self.read_only is not None:
            raise self.read_only
        item = build_item(
            self.identity, room, text, mentions=mentions, reply_to=reply_to, extra_parts=extra_parts,
            client_id=client_id, created_at=self._clock.time(), target=target,
        )
        added = await self._outbox.add(item)
        self._lifecycle.store_took_write()  # the post waits for a connection a full disk took
        return added

    async def retry_outbox(self, client_id: str) -> None:
        await self._outbox.retry(client_id)

    async def discard_outbox(self, client_id: str) -> None:
        await self._outbox.discard(client_id)

    async def mark_read(self, room: str, seq: int) -> None:
        """The human has seen ``room`` up to ``seq``: advance the hub cursor (an ack-only pull).

        Returns once recorded; the ack goes out when connected, never beyond what the local store
        holds without gaps. CursorChanged follows when the hub has taken it.
        """
        if self.read_only is None:  # read-only: the mark is taken again when the room is next seen
            await self._read_markers.mark_read(room, seq)

    # ---- sleep and network changes -------------------------------------------------------------

    def reconnect_now(self) -> None:
        """The user said "retry now": skip the backoff wait (or leave AUTH_FAILED)."""
        self._lifecycle.retry_now()

    def notify_wake(self) -> None:
        """The machine resumed: probe the connection at once, reconnect if it is dead."""
        self._lifecycle.wake("system resumed")

    def notify_network_changed(self) -> None:
        self._lifecycle.wake("network changed")

    def set_join_secret(self, secret: str | None) -> None:
        """Use another join secret from the next handshake on (and retry after AUTH_FAILED)."""
        self._lifecycle.join_secret = secret
        self.reconnect_now()

    # ---- rooms, roster, presence, directory, invites, blobs --------------------------------------

    @property
    def rooms(self) -> tuple[RoomInfo, ...]:
        return self._sync.rooms

    @property
    def requests_sent(self) -> int:
        """Hub operations this session has spent (the hub allows 600 per minute per identity)."""
        return self._pacer.total

    async def refresh_rooms(self) -> None:
        await self._sync.refresh_rooms(self._lifecycle.call)

    async def refresh_roster(self, room: str) -> None:
        await self._rosters.refresh(self._lifecycle.call, room)

    def watch_roster(self, rooms: Iterable[str]) -> None:
        """Keep the rosters of ``rooms`` (the ones on screen) fresh; refreshed now and periodically."""
        self._rosters.watch(rooms)

    async def set_presence(self, status: str, activity: str | None = None, attention: str | None = None) -> None:
        await self._lifecycle.call(Presence(status=status, activity=activity, attention=attention), PresenceOk)

    async def discover(
        self,
        scope: str = "hub",
        *,
        query: str | None = None,
        tag: str | None = None,
        skill: str | None = None,
        status: str | None = None,
        limit: int | None = None,
    ) -> tuple[DirectoryEntry, ...]:
        """The hub's directory cards (§7.14), most recently connected first: an agent is listed
        once it has registered a card, with the status its presence gives it."""
        frame = Discover(scope=scope, query=query, tag=tag, skill=skill, status=status, limit=limit)
        reply = await self._lifecycle.call(frame, DirectoryList)
        assert isinstance(reply, DirectoryList)
        return reply.agents

    async def pull_history(self, room: str, since: int, limit: int) -> list[StoredMessage]:
        """Up to ``limit`` messages of ``room`` after ``since``, read from the hub and not stored
        (history the cache no longer keeps, store/retention.py), with their signature verdicts.
        A ``since`` read: the cursor is neither read nor moved (protocol.md §7.2)."""
        reply = await self._lifecycle.call(Pull(room=room, since=since, limit=limit), Pulled)
        assert isinstance(reply, Pulled)
        check_advancing(room, since, reply.messages)
        return [m.with_signature(self._signature_of(m)) for m in reply.messages if m.room == room]

    def set_retention(self, policy: RetentionPolicy) -> None:
        """Keep the cache within ``policy`` from now on (a pass starts at once when connected); a
        session opened without a policy (a command's) keeps everything."""
        if self.cache_keeper is not None:
            self.cache_keeper.set_policy(policy)

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
        reply = await self._lifecycle.call(frame, Invited)
        assert isinstance(reply, Invited)
        self._sync.request_full()  # a new room may exist now
        return reply

    async def redeem(self, code_or_link: str) -> Joined | JoinPending:
        """Redeem an invite (bare code, ``CODE@HUB`` or link): Joined, or JoinPending for approval."""
        reply = await self._lifecycle.call(Redeem(code=parse_invite(code_or_link).code), (Joined, JoinPending))
        if isinstance(reply, Joined):
            self._sync.request_full()
        return reply  # type: ignore[return-value]

    async def join_requests(self, room: str, *, urgent: bool = True) -> tuple[JoinRequest, ...]:
        """``urgent``: the human asked (a poll of every room is not: issue 47, a hub listing
        100,000 rooms had its polls spend the reserve the human's post waited for)."""
        reply = await self._lifecycle.call(JoinRequests(room=room), JoinRequestList, urgent=urgent)
        assert isinstance(reply, JoinRequestList)
        return reply.requests

    async def resolve_join(self, room: str, agent: str, approve: bool) -> JoinResolved:
        reply = await self._lifecycle.call(ResolveJoin(room=room, agent=agent, approve=approve), JoinResolved)
        assert isinstance(reply, JoinResolved)
        return reply

    async def message_agent(self, agent: str, text: str) -> OutboxItem:
        """Post ``text`` to ``agent`` by a ``dm`` target (protocol.md §7.4) through the outbox, as
        any post: the hub uses the DM the two share, else makes one when the agent has a
        directory card, else refuses (the item fails with the hub's sentence). The item names the
        DM once the hub has it."""
        return await self.post("", text, target=DmTarget(agent))

    async def pull_older(self, room: str, before: int) -> int:
        """Read the messages of ``room`` a catch-up left on the hub just below ``before`` (the
        oldest stored seq the human scrolled to); they are stored and announced. How many (0:
        none are left there)."""
        gap = await self._sync.gap_below(room, before)
        if gap is None:
            return 0
        conn = await self._lifecycle.connection()
        return await self._sync.fill_gap(self._lifecycle.requester(conn), room, gap)

    async def fetch_blob(self, blob_id: str, take: Callable[[bytes], Awaitable[None]], *, size: int | None = None) -> int:
        """Download a blob, its bytes handed to ``take`` as they come (``HubConnection.get_blob``:
        ``size`` is what the message announced); the caller checks their SHA-256 (``blob_save``)."""
        conn = await self._lifecycle.connection()
        await self._pacer.acquire()
        reply_secs = self.tuning.reply_timeout_secs
        return await conn.get_blob(blob_id, take, size=size, timeout=reply_secs, stall_secs=reply_secs)

    async def put_blob(
        self, room: str, sha256: str, size: int, media_type: str | None, chunks: AsyncIterable[bytes]
    ) -> BlobStored:
        """Upload ``size`` bytes, read from ``chunks`` as they are sent, to ``room`` on the current
        connection (§7.13); raises ConnectionLost when the line drops (the caller tries again with
        fresh chunks: the hub keeps nothing of a cut upload), HubRefused for the hub's limits."""
        conn = await self._lifecycle.connection()
        await self._pacer.acquire()
        frame = PutBlob(target=RoomTarget(room), sha256=sha256, size=size, media_type=media_type)
        reply_secs = self.tuning.reply_timeout_secs
        return await send_blob(conn, frame, chunks, stall_secs=reply_secs, timeout=reply_secs + size / SLOWEST_BLOB_BYTES_PER_SEC)

    async def remember(self, fact: Fact) -> None:
        """Write a fact to shared memory (§7.15); a keyed one replaces this identity's fact with that key."""
        await self._lifecycle.call(Remember(fact=fact), Remembered)

    async def recall(self, query: str, room: str | None = None, *, key: str | None = None, limit: int | None = None) -> tuple[RecallHit, ...]:
        """Facts matching ``query`` (or, with ``key``, those with that key, newest first) (§7.15)."""
        reply = await self._lifecycle.call(Recall(query=query, room=room, key=key, limit=limit), Recalled)
        assert isinstance(reply, Recalled)
        return reply.hits

    # ---- glue --------------------------------------------------------------------------------

    async def _on_sent(self, item: OutboxItem, copy: StoredMessage) -> None:
        self._other_posts.saw(item)
        if not isinstance(signed_target(item), RoomTarget):
            self._sync.request_full()  # to an agent's DM or a service: the room may be new to us, list it
        if self.sync_messages:
            await self._sync.store_sent(copy)  # our own message as the hub keeps it, into the store
            self._sync.mark_dirty(item.room)  # and, once the room is quiet, the history up to it: the
            # sync mark reaches the post, so the human's having seen it can be acknowledged

    def _mentions_me(self, message: StoredMessage) -> bool:
        """Badge-worthy: ``protocol.mentions`` decides (the timeline highlights by the same rule)."""
        return mentions_human(message.sender.id, message.parts, message.mentions or (), self.agent_id, self.name, self.role)

