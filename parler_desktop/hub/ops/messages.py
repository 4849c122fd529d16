"""``send`` (store, idempotent replay, push fan-out) and ``pull`` (cursor reads, long-poll)."""

from __future__ import annotations

import asyncio
import logging
from typing import NamedTuple

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.db import HubDatabaseConnection
from parler_desktop.hub.ids import now_ms, uuid7
from parler_desktop.hub.ops.common import check_len, fresh_delivery, not_member, stored_message
from parler_desktop.hub.ops.targets import check_target, resolve_target
from parler_desktop.hub.ratelimit import FixedWindowLimiter
from parler_desktop.hub.sql import messages
from parler_desktop.protocol import errors, wire_json
from parler_desktop.protocol.frames import Pull, Pulled, Send, Sent
from parler_desktop.protocol.parts import SIG_KIND, Dispatch
from parler_desktop.protocol.trim import trim
from parler_desktop.protocol.values import Target

log = logging.getLogger(__name__)


class Appended(NamedTuple):
    row: messages.MessageRow
    is_new: bool
    members: tuple[str, ...]


def normalize_mentions(mentions: tuple[str, ...] | None) -> list[str] | None:
    """Trimmed, lower-cased, empties dropped, first occurrence kept; empty → absent (§7.4)."""
    seen: dict[str, None] = {}
    for mention in mentions or ():
        cleaned = trim(mention).lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen) or None


def _string_chars(value: object) -> int:
    """Code points in every string leaf of a JSON value (a loop, not recursion: any depth)."""
    chars = 0
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return chars


def estimated_tokens(parts: tuple[dict, ...]) -> int:
    """⌈characters / 4⌉ over the words a message carries: text, and the string leaves of data and
    extension parts except the signature part (the reference hub's estimate)."""
    chars = 0
    for part in parts:
        kind = part["kind"]
        if kind == "text":
            chars += len(part["text"])
        elif kind == "data":
            chars += _string_chars(part["data"])
        elif kind != SIG_KIND:
            chars += sum(_string_chars(value) for key, value in part.items() if key != "kind")
    return -(-chars // 4)


def dispatch_roles(parts: tuple[dict, ...]) -> list[str]:
    roles = []
    for part in parts:
        dispatch = Dispatch.from_part(part)
        if dispatch is not None:
            roles.append(dispatch.role.lower())
    return roles


def _append(
    conn: HubDatabaseConnection,
    room_budget: FixedWindowLimiter,
    session: tuple[str, str, str | None],
    target: Target,
    body: tuple[str, str | None, str | None, str | None],
    roles: list[str],
    now: int,
) -> Appended:
    """The database half of ``send``: resolve, charge the room, replay or insert."""
    agent, name, role = session
    parts_json, mentions_json, reply_to, client_id = body
    room, members = resolve_target(conn, agent, target, now)
    if not room_budget.allow(room):  # charged inside the database job, after resolving
        raise OpError(f"rate limit: room '{room}' is too busy — slow down", errors.RATE_LIMITED)
    if client_id is not None:
        original = messages.find_replay(conn, room, agent, client_id)
        if original is not None:
            return Appended(original, False, ())
    row = messages.insert_message(
        conn,
        messages.NewMessage(
            uuid7(), room, agent, name, role, parts_json, mentions_json, reply_to, now, client_id
        ),
    )
    if roles and room.startswith("svc."):
        messages.record_dispatches(conn, row, roles)
    return Appended(row, True, members)


async def handle_send(ctx: HubContext, session: SessionState, frame: Send) -> Sent:
    assert session.agent is not None
    limits = ctx.config.limits
    check_target(ctx, frame.target)
    parts_json = wire_json.dumps(list(frame.parts), sort_keys=True)
    check_len(ctx, "message", parts_json, limits.max_parts_bytes)
    if frame.mentions is not None:
        if len(frame.mentions) > limits.max_mentions:
            raise OpError(f"too many mentions (limit {limits.max_mentions})", errors.TOO_LARGE)
        for mention in frame.mentions:
            check_len(ctx, "mention", mention)
    check_len(ctx, "reply id", frame.reply_to)
    check_len(ctx, "client id", frame.client_id)
    if not ctx.budgets.sends_per_agent.allow(session.agent):
        raise OpError("rate limit: too many messages — slow down", errors.RATE_LIMITED)
    mentions = normalize_mentions(frame.mentions)
    tokens = estimated_tokens(frame.parts)  # everything that can fail runs before the append
    appended = await ctx.db.call(
        _append,
        ctx.budgets.sends_per_room,
        (session.agent, session.name, session.role),
        frame.target,
        (
            parts_json,
            wire_json.dumps(mentions) if mentions else None,
            frame.reply_to,
            frame.client_id,
        ),
        dispatch_roles(frame.parts),
        now_ms(),
    )
    row = appended.row
    if appended.is_new:
        ctx.stats.messages_total += 1
        ctx.stats.tokens_total += tokens
        _announce(ctx, appended, session.agent)
    return Sent(id=row.id, seq=row.seq, room=row.room)


def _announce(ctx: HubContext, appended: Appended, sender: str) -> None:
    """Wake long-polls and push the stored message. It is stored, so the sender is answered
    ``sent`` whatever happens here (an error would make a sender without a clientId post it
    again); members that miss the push find it with their next pull."""
    try:
        ctx.wakeups.wake(appended.row.room)
        if appended.members:
            ctx.subscribers.fan_out(fresh_delivery(appended.row), appended.members, sender)
    except Exception:
        log.exception("announcing message %s failed; it is stored", appended.row.id)


async def handle_pull(ctx: HubContext, session: SessionState, frame: Pull) -> Pulled:
    """A pull; with ``waitSecs`` an empty cursor read parks until the room has news (§7.2 step 4).

    Any wake-up of the room (a message, an approval, a deletion) re-reads; the poll keeps waiting
    while the read is still empty and time is left, as the reference hub does — so a ``limit: 0``
    long-poll always waits out its time.
    """
    assert session.agent is not None
    limits = ctx.config.limits
    check_len(ctx, "room", frame.room)
    limit = min(limits.default_pull_limit if frame.limit is None else frame.limit, limits.max_pull_limit)
    wait = min(float(frame.wait_secs or 0), limits.max_wait_secs)
    parks = wait > 0 and frame.since is None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        waiter = ctx.wakeups.register(frame.room) if parks else None  # before the read: no lost wake
        try:
            result = await ctx.db.call(messages.pull, frame.room, session.agent, frame.since, frame.ack, limit)
            if result is None:
                raise not_member(frame.room)
            remaining = deadline - loop.time()
            if waiter is None or result.messages or remaining <= 0 or ctx.wakeups.closed:
                return Pulled(
                    room=frame.room,
                    messages=tuple(stored_message(row) for row in result.messages),
                    cursor=result.cursor,
                )
            try:
                await asyncio.wait_for(asyncio.shield(waiter), timeout=remaining)
            except TimeoutError:
                pass
        finally:
            if waiter is not None:
                ctx.wakeups.unregister(frame.room, waiter)
