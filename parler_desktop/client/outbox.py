"""Posting exactly once: the durable outbox and the sender that drains it.

A message is signed and written to disk with a fresh ``clientId`` before any network I/O; the
sender (re)sends it with that same ``clientId`` on every connection until the hub answers
``sent`` (the hub turns a repeat into the original id and seq, protocol.md §7.5) or refuses it for
good. Whatever process opens the same store next resumes what an earlier one left pending.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable, Sequence

from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import OutboxChanged, OutboxItem, OutboxStatus
from parler_desktop.identity import Identity
from parler_desktop.protocol import canonical
from parler_desktop.protocol.frames import Send, Sent
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.values import Part, RoomTarget, normalize_parts
from parler_desktop.store import LocalStore, StoreWorker


TRANSIENT_RETRY_SECS = 5.0
# Sent and discarded items are kept this long (the timeline matches a fresh post to its message),
# then dropped when a session opens the store; pending and failed items are never dropped.
FINISHED_ITEM_KEEP_SECS = 30 * 24 * 3600.0


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
) -> OutboxItem:
    """A signed outbox item; raises ``ValueError`` for parts the hub would reject."""
    parts: list[Part] = [{"kind": "text", "text": text}] if text else []
    parts.extend(extra_parts)
    if not parts:
        raise ValueError("nothing to send: the message is empty")
    normalized = normalize_parts(parts)  # WireError is a ValueError
    signed = canonical.sign_parts(identity.agent_id, RoomTarget(room), normalized, reply_to, identity.sign)
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


def _announce(item: OutboxItem) -> list[OutboxChanged]:
    return [OutboxChanged(item)]


class Outbox:
    def __init__(
        self, store: StoreWorker, commit: Committer, clock: Clock, *, on_sent: Callable[[OutboxItem], None]
    ) -> None:
        self._store = store
        self._commit = commit
        self._clock = clock
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
            target=RoomTarget(item.room),
            parts=item.parts,
            mentions=item.mentions or None,
            reply_to=item.reply_to,
            client_id=item.client_id,
        )
        try:
            reply = await request(frame, Sent)
        except HubRefused as error:
            if error.is_transient:
                await wait_or_timeout(self._kick, self._clock, TRANSIENT_RETRY_SECS)
                return
            await self._update(item.client_id, status=OutboxStatus.FAILED, error=error.message, error_code=error.code)
            return
        assert isinstance(reply, Sent)
        sent = await self._update(item.client_id, status=OutboxStatus.SENT, message_id=reply.id, seq=reply.seq)
        self._on_sent(dataclasses.replace(sent, room=reply.room))
