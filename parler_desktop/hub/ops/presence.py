"""Self-reported presence, attention, the protocol ping and push subscription (§7.7, §7.11)."""

from __future__ import annotations

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.common import check_len
from parler_desktop.hub.push import PushQueue
from parler_desktop.hub.sql import agents
from parler_desktop.protocol.errors import BAD_FRAME
from parler_desktop.protocol.frames import (
    AttentionOk,
    Ping,
    Pong,
    Presence,
    PresenceOk,
    SetAttention,
    Subscribe,
    Subscribed,
)


async def handle_presence(ctx: HubContext, session: SessionState, frame: Presence) -> PresenceOk:
    check_len(ctx, "presence status", frame.status)
    check_len(ctx, "presence activity", frame.activity)
    await ctx.db.call(
        agents.set_presence, session.agent, frame.status, frame.activity, frame.attention, now_ms()
    )
    return PresenceOk()


async def handle_set_attention(ctx: HubContext, session: SessionState, frame: SetAttention) -> AttentionOk:
    await ctx.db.call(agents.set_attention, session.agent, frame.attention, now_ms())
    return AttentionOk()


async def handle_ping(ctx: HubContext, session: SessionState, frame: Ping) -> Pong:
    await ctx.db.call(agents.touch_presence, session.agent, now_ms())
    return Pong()


async def handle_subscribe(ctx: HubContext, session: SessionState, frame: Subscribe) -> Subscribed:
    """Register this connection for pushes; repeating it is harmless."""
    if ctx.config.faults.refuse_subscribe:
        raise OpError("unknown op 'subscribe'", BAD_FRAME)
    if session.push_queue is None:
        assert session.agent is not None
        session.push_queue = PushQueue(session.ws, ctx.config.limits.push_queue_size)
        ctx.subscribers.add(session.agent, session.push_queue)
    return Subscribed()
