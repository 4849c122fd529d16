"""Issue 47, item 4d: a post typed during a long catch-up goes out as soon as the session is
authenticated and subscribed, not after the catch-up (which spends the request budget)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from parler_desktop.client.events import ConnectionState, MessagesPulled, OutboxStatus
from parler_desktop.identity import Identity
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.peer_ops import hub_history, invite_code, member_of, say

pytestmark = pytest.mark.timeout(60)

ROOMS = 30


async def test_a_post_during_a_long_catch_up_goes_out_at_once(hub, raw_agent, session_factory):
    bot = await raw_agent(hub.url, name="bot")
    human = Identity.generate()
    rooms = [f"room-{number:02}" for number in range(ROOMS)]
    await member_of(hub.url, human, *[await invite_code(bot, room) for room in rooms])
    for number, room in enumerate(rooms):
        await say(bot, room, f"hello {number}")
    # 20 requests a minute: the catch-up (a rooms call, 30 pulls, 30 cursors) takes minutes
    tuning = dataclasses.replace(FAST, ops_per_minute=20)
    session, log = await session_factory(hub.url, identity=human, tuning=tuning)
    await log.wait_state(ConnectionState.CATCHING_UP)
    await log.wait_until(lambda: len(log.of(MessagesPulled)) >= 16, "the first rooms pulled")  # the budget is spent now
    item = await session.post("room-00", "typed while catching up")
    posted = asyncio.get_running_loop().time()
    await log.wait_until(lambda: log.outbox(item.client_id)[-1].item.status is OutboxStatus.SENT, "the post sent", timeout=20)
    assert asyncio.get_running_loop().time() - posted < 5
    assert session.state.state is ConnectionState.CATCHING_UP  # still catching up
    assert [m["parts"][0]["text"] for m in await hub_history(bot, "room-00")] == ["hello 0", "typed while catching up"]
