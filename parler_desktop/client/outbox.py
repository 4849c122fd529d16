"""Posting exactly once: the durable outbox and the sender that drains it.

A message is signed and written to disk with a fresh ``clientId`` before any network I/O; the
sender (re)sends it with that same ``clientId`` on every connection until the hub answers
``sent`` (the hub turns a repeat into the original id and seq, protocol.md §7.5) or refuses it for
good. Whatever process opens the same store next resumes what an earlier one left pending.

A ``sent`` is the hub's word, and a hub is a stranger (issue 47): the post counts as sent only
once a pull shows the hub's copy at that seq (``is_copy_of``: the human as author, the post's own
signature). A ``sent`` naming the seq of another of the human's posts answers another request
(``OutOfTurn``: nothing recorded, the line dropped); a seq the pull shows empty or held by
someone else leaves the post failed, "the hub did not keep this", to send again (same clientId).

A post may be addressed by another target than its room (protocol.md §7.4), the one it is signed
for (``send_target``): a post to an agent's DM (a first message or a handoff from the Agents
view's card) by a ``dm`` target, whose room is the hub's to choose, so the item's ``room`` is ""
until the ``sent`` names it (a ``dm.`` room), and then holds it (a repeat with its clientId finds
the DM the first attempt made); work dispatched to a role from outside its service room by a
``service`` target, whose room (``svc.`` and the service) the sending joins.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import BadReply, HubRefused, OutOfTurn
from parler_desktop.client.events import OutboxChanged, OutboxItem, OutboxStatus
from parler_desktop.identity import Identity
from parler_desktop.protocol import canonical
from parler_desktop.protocol.frames import Pull, Pulled, Send, Sent
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.values import (
    DmTarget, Part, RoomTarget, ServiceTarget, StoredMessage, Target, WireError, normalize_parts, service_room, target_from_wire,
)
from parler_desktop.store import LocalStore, StoreWorker

log = logging.getLogger(__name__)

TRANSIENT_RETRY_SECS = 5.0
# Sent and discarded items are kept this long (the timeline matches a fresh post to its message),
# then dropped when a session opens the store; pending and failed items are never dropped.
FINISHED_ITEM_KEEP_SECS = 30 * 24 * 3600.0
NOT_KEPT = "not_kept"  # the error code of a post the hub said it stored and a pull did not show
NOT_KEPT_TEXT = "The hub did not keep this"


def build_item(
    identity: Identity,
    room: str,
    text: str,
    *,
    mentions: Sequence[str] = (),
    reply_to: str | None = None,
    extra_parts: Sequence[Part] = (),
    client_id: str | None = None,
    created_at: float,
    target: DmTarget | ServiceTarget | None = None,
) -> OutboxItem:
    """A signed outbox item; raises ``ValueError`` for parts the hub would reject. ``target``: a
    DM (``room`` "": the hub names it) or a service (``room`` its ``svc.`` room), not the room."""
    parts: list[Part] = [{"kind": "text", "text": text}] if text else []
    parts.extend(extra_parts)
    if not parts:
        raise ValueError("nothing to send: the message is empty")
    expected = "" if isinstance(target, DmTarget) else service_room(target.service) if isinstance(target, ServiceTarget) else room or None
    if room != expected:
        raise ValueError(f"a post to {target or 'a room'} names the room {expected!r}, not {room!r}")
    normalized = normalize_parts(parts)  # WireError is a ValueError
    signed = canonical.sign_parts(identity.agent_id, target or RoomTarget(room), normalized, reply_to, identity.sign)
    return OutboxItem(
        client_id=client_id or str(uuid.uuid4()),
        room=room,
        parts=tuple(signed),
        created_at=created_at,
        mentions=tuple(mentions),
        reply_to=reply_to,
    )


def _add_and_get(store: LocalStore, item: OutboxItem) -> OutboxItem:
    store.outbox_add(item)
    stored = store.outbox_get(item.client_id)
    assert stored is not None
    return stored


def _content(item: OutboxItem) -> tuple:
    """What the human wrote, without the signature (which differs on every signing)."""
    parts = tuple(part for part in item.parts if part.get("kind") != SIG_KIND)
    return (item.room, parts, tuple(item.mentions), item.reply_to)


def signed_target(item: OutboxItem) -> Target | None:
    """The target ``item`` was signed for (None: not a readable one)."""
    part = next((part for part in item.parts if part.get("kind") == SIG_KIND), {})
    try:
        return target_from_wire(part.get("target"))
    except WireError:
        return None


def dm_agent_of(item: OutboxItem) -> str | None:
    """The agent whose DM a post was signed for (its ``dm`` target), else None."""
    target = signed_target(item)
    return target.agent if isinstance(target, DmTarget) else None


def send_target(item: OutboxItem) -> Target:
    """Where ``item`` goes: a post to an agent's DM (``room`` "" until sent) there, a dispatch to
    its service, else its room."""
    target = signed_target(item)
    if isinstance(target, DmTarget) and not item.room:
        return target
    if isinstance(target, ServiceTarget) and service_room(target.service) == item.room:
        return target
    return RoomTarget(item.room)


def _signature(parts: Sequence[Part]) -> tuple[object, object] | None:
    part = next((part for part in parts if part.get("kind") == SIG_KIND), None)
    return None if part is None else (part.get("uid"), part.get("sig"))


def is_copy_of(message: StoredMessage, item: OutboxItem, my_id: str, room: str | None = None) -> bool:
    """Whether the hub's ``message`` is the human's post ``item``: in its room (``room``: the one
    the hub named for a first message), by the human, carrying its signature (the wire has no
    clientId; a signature's uid is fresh for every post)."""
    return (
        message.room == (room or item.room) and message.sender.id == my_id
        and (mine := _signature(item.parts)) is not None and _signature(message.parts) == mine
    )


def _announce(item: OutboxItem) -> list[OutboxChanged]:
    return [OutboxChanged(item)]


class Outbox:
    def __init__(
        self, store: StoreWorker, commit: Committer, clock: Clock, *, my_id: str,
        on_sent: Callable[[OutboxItem, StoredMessage], Awaitable[None]],
    ) -> None:
        """``on_sent(item, copy)``: the post is sent, ``copy`` the hub's message as a pull showed it."""
        self._store = store
        self._commit = commit
        self._clock = clock
        self._my_id = my_id
        self._on_sent = on_sent
        self._kick = asyncio.Event()

    async def add(self, item: OutboxItem) -> OutboxItem:
        """Write ``item`` durably; returns it as stored.

        A clientId already in the outbox with the same content (a retried ``send --client-id``)
        returns that item as it stands, maybe already sent; with other content it is a
        ValueError: a clientId never stands for two messages.
        """
        existing = await self._store.call(LocalStore.outbox_get, item.client_id)
        if existing is not None:
            if _content(existing) != _content(item):
                raise ValueError(f"clientId {item.client_id!r} was already used for a different message")
            self._kick.set()
            return existing
        stored = await self._commit(_add_and_get, item, announce=_announce)
        self._kick.set()
        return stored

    async def _update(self, client_id: str, **changes: object) -> OutboxItem:
        return await self._commit(LocalStore.outbox_update, client_id, announce=_announce, **changes)

    async def retry(self, client_id: str) -> None:
        """A failed item goes back to pending, same clientId (nothing was stored for it)."""
        item = await self._store.call(LocalStore.outbox_get, client_id)
        if item is None or item.status is not OutboxStatus.FAILED:
            return
        await self._update(client_id, status=OutboxStatus.PENDING, error=None, error_code=None)
        self._kick.set()

    async def discard(self, client_id: str) -> None:
        """The human gave up on a pending or failed item. (One already on its way may still land;
        then the hub's ``sent`` wins and the item shows as sent.)"""
        item = await self._store.call(LocalStore.outbox_get, client_id)
        if item is None or item.status not in (OutboxStatus.PENDING, OutboxStatus.FAILED):
            return
        await self._update(client_id, status=OutboxStatus.DISCARDED)

    async def run(self, request: Requester) -> None:
        """Send pending items, oldest first, for as long as the connection lives."""
        while True:
            self._kick.clear()
            pending = await self._store.call(LocalStore.outbox_items, [OutboxStatus.PENDING])
            for item in pending:
                await self._send(request, item)
            if not pending:
                await self._kick.wait()

    async def _send(self, request: Requester, item: OutboxItem) -> None:
        current = await self._store.call(LocalStore.outbox_get, item.client_id)
        if current is None or current.status is not OutboxStatus.PENDING:
            return  # discarded (or sent by another process) meanwhile
        frame = Send(
            target=send_target(item),
            parts=item.parts,
            mentions=item.mentions or None,
            reply_to=item.reply_to,
            client_id=item.client_id,
        )
        try:
            reply = await request(frame, Sent)
        except HubRefused as error:
            if error.is_transient:
                await self._later()
                return
            await self._update(item.client_id, status=OutboxStatus.FAILED, error=error.message, error_code=error.code)
            return
        except BadReply as error:  # unread: sent again, with the same clientId, after a pause
            log.warning("%s; sending post %s again in %g s", error, item.client_id, TRANSIENT_RETRY_SECS)
            await self._later()
            return
        assert isinstance(reply, Sent)
        holder = await self._store.call(LocalStore.outbox_holder, reply.seq)
        if holder not in (None, item.client_id):
            raise request.reject(OutOfTurn(f"the hub answered post {item.client_id} with #{reply.seq}, another post's"))
        room = item.room or reply.room  # a post to an agent's DM: the DM, as the hub named it
        if not item.room and not reply.room.startswith("dm."):
            raise request.reject(OutOfTurn(f"the hub answered the message {item.client_id} to an agent with room {reply.room!r}, not a DM"))
        await self._confirm(request, item, reply.seq, room)

    async def _confirm(self, request: Requester, item: OutboxItem, seq: int, room: str) -> None:
        """Look for the hub's copy of ``item`` at ``seq`` in ``room`` (a pull of that one seq):
        there, the post is sent (and a first message's item holds its DM from then on); empty or
        someone else's, the hub did not keep it."""
        try:
            page = await request(Pull(room=room, since=seq - 1, limit=1), Pulled) if seq > 0 else None
        except (HubRefused, BadReply) as error:  # not known: the post stays pending, sent again later
            log.warning("could not look for post %s at #%d (%s); sending it again in %g s", item.client_id, seq, error, TRANSIENT_RETRY_SECS)
            await self._later()
            return
        assert page is None or isinstance(page, Pulled)
        held = next((message for message in page.messages if message.seq == seq), None) if page else None
        if held is None or not is_copy_of(held, item, self._my_id, room):
            whose = "nothing" if held is None else f"a message of {held.sender.id}"
            log.warning("the hub said it stored post %s as #%d, and holds %s there", item.client_id, seq, whose)
            await self._update(item.client_id, status=OutboxStatus.FAILED, error=NOT_KEPT_TEXT, error_code=NOT_KEPT)
            return
        sent = await self._update(item.client_id, status=OutboxStatus.SENT, message_id=held.id, seq=held.seq, room=room)
        await self._on_sent(sent, held)

    async def _later(self) -> None:
        await wait_or_timeout(self._kick, self._clock, TRANSIENT_RETRY_SECS)
