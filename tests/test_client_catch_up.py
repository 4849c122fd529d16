"""Catching up after a night away, against the real hub: the pulls go on while their pages are
stored behind them, several rooms per transaction (client/page_writer.py), and still every
message is stored once, each room's in seq order, each room's sync mark and settled count right;
a line that drops midway leaves what was pulled before it stored."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from parler_desktop.client import page_writer
from parler_desktop.client.events import ConnectionState, MessagesPulled, MessagesStored, SessionEvent, StateChanged
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


class PulledSent(Misbehaviour):
    """An honest hub counting the pulled messages it sent the client (``counts["sent"]``, shared
    by several hubs) against those the client announced stored (``stored``): the most sent and
    not stored at once (``counts["most"]``) is what was in flight, in the pulls' hands or queued
    for the writers."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "pulled":
            self.counts["sent"] += len(reply.get("messages", ()))
            self.counts["most"] = max(self.counts["most"], self.counts["sent"] - self.counts["stored"])
        return [reply]


async def test_several_hubs_catching_up_at_once_hold_no_more_pulled_messages_than_the_budget(
    hub_factory, raw_agent, session_factory, tmp_path, monkeypatch
):
    """Issue 42: a soak's catch-ups held ~68,000 decoded messages at their peaks, though at most
    50,000 were to wait for the writers: the first pages asked for at once and the pages in the
    pulls' hands were not counted. Every message pulled and not stored in the process, every
    hub's, from the moment its page is asked for, is within ``PULLED_MAX``; and each is stored
    once, in order."""
    monkeypatch.setattr(page_writer, "PULLED_MAX", 40)  # a night is 120 messages a hub, 360 in all
    identity, tuning = Identity.generate(), dataclasses.replace(FAST, page_size=7)
    counts = {"sent": 0, "stored": 0, "most": 0}
    rooms = [f"room-{n}" for n in range(6)]
    hubs = []
    for number in range(3):
        hub = hub_factory(limits=HubLimits().relaxed())
        bot = await raw_agent(hub.url, name="bot")
        human = await raw_agent(hub.url, name="human", identity=identity)
        for room in rooms:
            await human.ok({"op": "redeem", "code": await invite_code(bot, room)}, "joined")
            await say(bot, room, f"{room} before")
        proxy = await HostileHub(hub.url, PulledSent(counts)).start()
        store_path = tmp_path / f"hub-{number}.sqlite3"
        session, log = await session_factory(proxy.url, identity=identity, tuning=tuning, store_path=store_path)
        await log.wait_state(ConnectionState.LIVE)  # synced once: what follows is a catch-up
        await session.stop()
        hubs.append((bot, proxy, store_path))
    try:
        night = {}
        for number, (bot, _proxy, _path) in enumerate(hubs):
            for n in range(20):
                for room in rooms:
                    await say(bot, room, f"{room} night {n}")
            night[number] = {room: (await hub_seqs(bot, room))[1:] for room in rooms}

        def count_stored(event: SessionEvent) -> None:
            if isinstance(event, MessagesStored):
                counts["stored"] += len(event.messages)

        counts.update(sent=0, stored=0, most=0)
        page_writer.pulled_peak(reset=True)
        sessions = []
        for _bot, proxy, store_path in hubs:
            session, log = await session_factory(proxy.url, identity=identity, tuning=tuning, store_path=store_path, start=False)
            session.add_listener(count_stored)
            sessions.append((session, log))
        for session, _log in sessions:
            session.start()  # the three catch-ups at once
        for number, (_session, log) in enumerate(sessions):
            await log.wait_until(lambda: all(len(log.messages(room)) >= 20 for room in rooms), "the night stored")
            for room in rooms:
                assert [m.seq for m in log.messages(room)] == night[number][room], f"{room}: lost, out of order or twice"
        assert counts["stored"] == 360
        assert counts["most"] <= 40, counts  # sent by the hubs and not stored
        assert 40 - 7 <= page_writer.pulled_peak() <= 40  # (the budget was what held them)
    finally:
        for _bot, proxy, _path in hubs:
            await proxy.close()
