"""Catching up after a night away, against the real hub: the pulls go on while their pages are
stored behind them, several rooms per transaction (client/page_writer.py), and still every
message is stored once, each room's in seq order, each room's sync mark and settled count right;
a line that drops midway leaves what was pulled before it stored."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from parler_desktop.client.events import ConnectionState, MessagesPulled, MessagesStored, StateChanged
from parler_desktop.hub import HubLimits
from parler_desktop.identity import Identity
from parler_desktop.store import LocalStore
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.fault_proxy import FaultProxy
from support.hostile_hub import HostileHub, Link, Misbehaviour
from support.peer_ops import hub_seqs, invite_code, say

pytestmark = pytest.mark.timeout(60)

ROOMS = [f"room-{n}" for n in range(6)]


async def test_a_catch_up_with_posts_meanwhile_stores_each_message_once_and_in_order(hub_factory, raw_agent, session_factory):
    hub = hub_factory(limits=HubLimits().relaxed())  # the bot may post as fast as it likes
    bot = await raw_agent(hub.url, name="bot")
    identity = Identity.generate()
    human = await raw_agent(hub.url, name="human", identity=identity)
    for room in ROOMS:
        await human.ok({"op": "redeem", "code": await invite_code(bot, room)}, "joined")
    for n in range(25):  # the night: every room's messages between every other room's
        for room in ROOMS:
            await say(bot, room, f"{room} night {n}")
    tuning = dataclasses.replace(FAST, page_size=7)  # several pages a room, several rooms a write
    session, log = await session_factory(hub.url, identity=identity, tuning=tuning, start=False)

    async def post_meanwhile() -> None:  # pushes while the rooms are pulled: held, stored after each room's pull
        n = 0
        while ConnectionState.LIVE not in log.states():
            await say(bot, ROOMS[n % len(ROOMS)], f"meanwhile {n}")
            n += 1
            await asyncio.sleep(0.005)

    posting = asyncio.ensure_future(post_meanwhile())
    session.start()
    await log.wait_state(ConnectionState.LIVE)
    await posting
    expected = {room: await hub_seqs(bot, room) for room in ROOMS}

    def all_stored() -> bool:
        return all(sorted(m.seq for m in log.messages(room)) == expected[room] for room in ROOMS)

    await log.wait_until(all_stored, "every message stored")
    for room in ROOMS:
        announced = [m.seq for m in log.messages(room)]
        assert announced == expected[room], f"{room}: announced out of order or twice"

    async def marks_and_counts_settled() -> bool:
        marks = {room: await session.store.call(LocalStore.sync_mark, room) for room in ROOMS}
        settled = await session.store.call(LocalStore.settled_unread)
        return marks == {room: seqs[-1] for room, seqs in expected.items()} and settled == {room: len(seqs) for room, seqs in expected.items()}

    deadline = asyncio.get_running_loop().time() + 15
    while not await marks_and_counts_settled():  # the pushed rooms' next pull moves their marks
        assert asyncio.get_running_loop().time() < deadline, "marks or settled counts not right"
        await asyncio.sleep(0.05)
    summaries = await session.store.call(LocalStore.room_summaries, identity.agent_id)
    assert {s.name: s.unread for s in summaries} == {room: len(seqs) for room, seqs in expected.items()}


async def test_a_line_that_drops_midway_leaves_the_rooms_pulled_before_it_stored(hub_factory, raw_agent, session_factory):
    """The writes wait for the pulls (client/page_writer.py), so a line that drops in the middle of
    a catch-up holds pages pulled and not written yet: they are written before the session goes
    back to reconnecting, not dropped and pulled again."""
    hub = hub_factory(limits=HubLimits().relaxed())
    proxy = await FaultProxy("127.0.0.1", hub.port).start()
    bot = await raw_agent(hub.url, name="bot")
    identity = Identity.generate()
    human = await raw_agent(hub.url, name="human", identity=identity)
    for room in ROOMS:
        await human.ok({"op": "redeem", "code": await invite_code(bot, room)}, "joined")
    for n in range(10):
        for room in ROOMS:
            await say(bot, room, f"{room} night {n}")
    session, log = await session_factory(proxy.url, identity=identity, tuning=dataclasses.replace(FAST, page_size=4), start=False)
    pulled: list[str] = []

    def cut_on_the_third_room(event: object) -> None:
        if isinstance(event, MessagesPulled) and event.room not in pulled:
            pulled.append(event.room)
            if len(pulled) == 3:
                proxy.cut()

    session.add_listener(cut_on_the_third_room)
    session.start()
    await log.wait_state(ConnectionState.BACKING_OFF)
    dropped_at = next(i for i, e in enumerate(log.events) if isinstance(e, StateChanged) and e.state is ConnectionState.BACKING_OFF)
    stored_before = {e.room for e in log.events[:dropped_at] if isinstance(e, MessagesStored)}
    assert set(pulled[:2]) <= stored_before  # the two rooms pulled whole before the drop
    for room in pulled[:2]:
        assert await session.store.call(LocalStore.sync_mark, room) == (await hub_seqs(bot, room))[-1]
    await log.wait_state(ConnectionState.LIVE)
    for room in ROOMS:
        assert sorted(m.seq for m in log.messages(room)) == await hub_seqs(bot, room)  # once each
    await proxy.close()


class PagesHeldUntilAllAsked(Misbehaviour):
    """An honest hub whose pulled pages reach the client only once ``rooms`` pulls were asked
    for on its line: a client asking for fewer at once waits until the reply times out."""

    def __init__(self, rooms: int) -> None:
        self.rooms = rooms

    def request(self, link: Link, frame: dict) -> None:
        link.state["pulls"] = link.state.get("pulls", 0) + (frame.get("op") == "pull")
        return None

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        held = link.state.setdefault("held", [])
        if reply.get("type") == "pulled" and link.state.get("pulls", 0) < self.rooms:
            held.append(reply)
            return []
        link.state["held"] = []
        return [*held, reply]


async def test_a_nights_short_pages_are_asked_for_at_once(hub_factory, raw_agent, session_factory):
    """After a night of a few messages in each of many rooms, the catch-up asks for every room's
    first page at once (as many as 16 full pages of their unread messages hold): 16 rooms at a
    time, each hub made seven round trips of a wake's 100 rooms, idle in between."""
    hub = hub_factory(limits=HubLimits().relaxed())
    bot = await raw_agent(hub.url, name="bot")
    identity = Identity.generate()
    human = await raw_agent(hub.url, name="human", identity=identity)
    rooms = [f"room-{n:02}" for n in range(24)]
    for room in rooms:
        await human.ok({"op": "redeem", "code": await invite_code(bot, room)}, "joined")
    for room in rooms:
        await say(bot, room, f"{room} night")
    proxy = await HostileHub(hub.url, PagesHeldUntilAllAsked(len(rooms))).start()
    try:
        session, log = await session_factory(proxy.url, identity=identity, tuning=dataclasses.replace(FAST, page_size=10))
        await log.wait_state(ConnectionState.LIVE)
        assert {m.room for m in log.of(MessagesPulled)} == set(rooms)
        assert proxy.links == 1  # live on the first line: no reply timed out
    finally:
        await proxy.close()
