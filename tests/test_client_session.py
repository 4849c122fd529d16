"""HubSession against the real embedded hub: connect, catch up, live pushes, posting, read marks."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from parler_desktop.client.events import ConnectionState, CursorChanged, OutboxStatus, RoomsChanged
from parler_desktop.hub import HubLimits
from parler_desktop.protocol.frames import Joined
from parler_desktop.store import LocalStore
from support.client_harness import FAST, session_factory  # noqa: F401  (fixture)
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(30)


async def test_catch_up_then_live_pushes_each_message_once(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer, "team")
    backlog = [await say(peer, "team", f"old {i}") for i in range(5)]
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    joined = await session.redeem(code)
    assert isinstance(joined, Joined) and joined.room == "team"
    await log.wait_until(lambda: len(log.messages("team")) == 5, "backlog")
    live = [await say(peer, "team", f"new {i}") for i in range(5)]
    await log.wait_until(lambda: len(log.messages("team")) == 10, "live messages")
    seqs = [m.seq for m in log.messages("team")]
    assert seqs == backlog + live
    assert [m.text for m in log.messages("team")][-1] == "new 4"
    assert any(isinstance(e, RoomsChanged) and [r.name for r in e.rooms] == ["team"] for e in log.events)


async def test_reading_never_moves_the_cursor_but_mark_read_does(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer, "team")
    seqs = [await say(peer, "team", f"m{i}") for i in range(3)]
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: len(log.messages("team")) == 3, "messages")
    await session.refresh_rooms()
    assert [r.unread for r in session.rooms] == [3]  # fetched, not read

    await session.mark_read("team", seqs[1])
    await log.wait_until(lambda: any(isinstance(e, CursorChanged) and e.cursor == seqs[1] for e in log.events), "ack")
    await session.refresh_rooms()
    assert [r.unread for r in session.rooms] == [1]
    summaries = await session.store.call(LocalStore.room_summaries)
    assert [(s.name, s.unread, s.cursor) for s in summaries] == [("team", 1, seqs[1])]


async def test_a_room_read_as_it_streams_is_acked_before_it_falls_quiet(hub_factory, raw_agent, session_factory):
    """An agent that never pauses: pulls wait for pushes to fall quiet, but the human reading
    along needs the sync mark to move, or the room's unread count grows as it is read."""
    hub = hub_factory(limits=HubLimits().relaxed())  # the agent may post as fast as it likes
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer, "team")
    tuning = dataclasses.replace(FAST, reconcile_secs=600.0, quiet_secs=600.0, reader_pull_secs=0.2)
    session, log = await session_factory(hub.url, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    first = await say(peer, "team", "before")
    await session.redeem(code)
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [first], "the backlog, pulled")
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 3  # acked within reader_pull_secs (0.2 s) and a pull
    while not any(isinstance(e, CursorChanged) and e.cursor > first for e in log.events):
        seq = await say(peer, "team", "stream")  # each one read as soon as it is stored
        await log.wait_until(lambda: seq in [m.seq for m in log.messages("team")], "pushed and stored")
        await session.mark_read("team", seq)
        assert loop.time() < give_up, "the ack waited for the stream to fall quiet"


async def test_mark_read_never_acks_beyond_the_stored_history(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer, "team")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    first = await say(peer, "team", "one")
    await log.wait_until(lambda: len(log.messages("team")) == 1, "first message")
    await session.mark_read("team", first + 1000)  # a seq the store does not hold
    later = await say(peer, "team", "two")  # arrives after the mark: must stay unread
    await log.wait_until(lambda: any(isinstance(e, CursorChanged) and e.cursor == first for e in log.events), "ack")
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [first, later], "second message")
    await session.refresh_rooms()
    assert max(e.cursor for e in log.of(CursorChanged)) == first
    assert [r.unread for r in session.rooms] == [1]


async def test_post_is_sent_once_and_lands_in_the_store(hub, raw_agent, session_factory):
    peer = await raw_agent(hub.url, name="bot")
    await peer.ok({"op": "subscribe"}, "subscribed")
    code = await invite_code(peer, "team")
    session, log = await session_factory(hub.url)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    item = await session.post("team", "hello agents", mentions=["bot"])
    assert item.status is OutboxStatus.PENDING
    await log.wait_until(lambda: any(e.item.status is OutboxStatus.SENT for e in log.outbox(item.client_id)), "sent")
    sent = log.outbox(item.client_id)[-1].item
    delivered = await peer.recv_delivery()
    assert delivered["seq"] == sent.seq and delivered["parts"][0]["text"] == "hello agents"
    assert delivered["parts"][-1]["kind"] == "com.parler.sig"
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [sent.seq], "own message stored")
    pulled = await peer.ok({"op": "pull", "room": "team", "since": 0}, "pulled")
    assert [m["seq"] for m in pulled["messages"]] == [sent.seq]


async def test_an_ack_never_passes_the_sync_mark(hub, raw_agent, session_factory):
    """Pushed messages are stored before the history below them is known complete: reading the
    newest must not ack past the sync mark, or a message the hub pushed past a lost one would
    mark the lost one read unseen. The ack catches up once a pull completes the history."""
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer, "team")
    first = await say(peer, "team", "before")
    tuning = dataclasses.replace(FAST, reconcile_secs=600.0, quiet_secs=600.0, reader_pull_secs=600.0)  # no pulls
    session, log = await session_factory(hub.url, tuning=tuning)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [first], "the backlog, pulled")
    assert await session.store.call(LocalStore.sync_mark, "team") == first
    pushed = [await say(peer, "team", f"pushed {i}") for i in range(3)]
    await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [first, *pushed], "pushes stored")
    assert await session.store.call(LocalStore.sync_mark, "team") == first  # pushes do not move the mark
    await session.mark_read("team", pushed[-1])
    await log.wait_until(lambda: any(isinstance(e, CursorChanged) and e.cursor == first for e in log.events), "capped ack")
    await session.refresh_rooms()
    assert [r.unread for r in session.rooms] == [3] and max(e.cursor for e in log.of(CursorChanged)) == first
    session.notify_wake()  # a pull completes the history: the waiting ack goes out
    await log.wait_until(lambda: any(isinstance(e, CursorChanged) and e.cursor == pushed[-1] for e in log.events), "full ack")
