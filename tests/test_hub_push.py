"""Push fan-out under back-pressure: a subscriber that stops reading loses pushes (its queue is
bounded) and never slows the sender or the other subscribers (§7.7)."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect

from parler_desktop.identity import Identity
from support.raw_agent import make_room

MESSAGES = 40
BODY = "x" * 400_000  # big enough that socket buffers fill after a few pushes


async def stalled_subscriber(url: str, identity: Identity):
    """A subscribed socket that then stops reading (the client buffers one frame at most)."""
    ws = await connect(url, max_size=None, max_queue=1, ping_interval=None)
    await ws.send(json.dumps({"op": "hello", "id": identity.agent_id, "name": "slow"}))
    nonce = json.loads(await ws.recv())["nonce"]
    await ws.send(json.dumps({"op": "hello", "id": identity.agent_id, "name": "slow", "nonce": nonce,
                              "sig": identity.sign(nonce.encode())}))
    assert json.loads(await ws.recv())["type"] == "welcome"
    await ws.send('{"op":"subscribe"}')
    assert json.loads(await ws.recv())["type"] == "subscribed"
    return ws


async def room_with_a_stalled_subscriber(hub, raw_agent):  # noqa: ANN001, ANN201
    """An author, a reading subscriber and a member whose subscribed socket stalls, in one room."""
    author = await raw_agent(hub.url, name="author")
    reader = await raw_agent(hub.url, name="reader")
    slow_identity = Identity.generate()
    slow_member = await raw_agent(hub.url, name="slow", identity=slow_identity)
    room = await make_room(author, "team", reader, slow_member)
    slow = await stalled_subscriber(hub.url, slow_identity)
    await reader.ok({"op": "subscribe"})
    return author, reader, slow_member, slow, room


async def send_big(author, room: str, i: int) -> None:  # noqa: ANN001
    await author.ok({"op": "send", "target": {"kind": "room", "room": room},
                     "parts": [{"kind": "text", "text": f"{i}:{BODY}"}]}, "sent")


@pytest.mark.timeout(60)
async def test_a_stalled_subscriber_drops_pushes_without_blocking_anyone(hub_factory, raw_agent):
    hub = hub_factory(limits={"push_queue_size": 2})
    author, reader, slow_member, slow, room = await room_with_a_stalled_subscriber(hub, raw_agent)
    for i in range(MESSAGES):
        await send_big(author, room, i)
    for i in range(MESSAGES):  # the reading subscriber gets every push, in order
        delivered = await reader.recv_delivery(timeout=20)
        assert delivered["parts"][0]["text"].startswith(f"{i}:")

    received = 0
    await slow.send('{"op":"ping"}')  # resume reading: the pong follows whatever was still queued
    while True:
        frame = json.loads(await slow.recv())
        if frame["type"] == "pong":
            break
        received += 1
    assert 0 < received < MESSAGES  # some pushes went out, the rest were dropped
    pulled = await slow_member.ok({"op": "pull", "room": room, "since": 0, "limit": 1000})
    assert len(pulled["messages"]) == MESSAGES  # a pull is still complete
    slow.transport.abort()  # a graceful close would wait on pushes still in flight to a 1-frame buffer


@pytest.mark.timeout(60)
async def test_each_push_reaches_a_reading_subscriber_while_another_one_is_stalled(hub_factory, raw_agent):
    """Every delivery arrives before the author's next send, although the stalled subscriber's
    socket is full and its queue holds pushes all along: nothing waits on it."""
    hub = hub_factory()
    author, reader, _slow_member, slow, room = await room_with_a_stalled_subscriber(hub, raw_agent)
    for i in range(MESSAGES):
        await send_big(author, room, i)
        delivered = await reader.recv_delivery(timeout=20)
        assert delivered["parts"][0]["text"].startswith(f"{i}:")
    assert reader.deliveries.empty()
    slow.transport.abort()


@pytest.mark.timeout(30)
async def test_a_send_to_each_kind_of_target_is_pushed_to_the_rooms_other_members(hub, raw_agent):
    """A room, a new and an existing DM, a service the send joins: each push reaches the room's
    other subscribed members, never an agent outside it, never its author."""
    alice, bob, carol, worker = [await raw_agent(hub.url, name=name) for name in ("alice", "bob", "carol", "worker")]
    room = await make_room(alice, "team", bob)
    await bob.ok({"op": "register", "card": {"id": bob.id, "name": "bob", "kind": "agent"}}, "registered")
    await worker.ok({"op": "serve", "service": "review"})
    for agent in (alice, bob, carol, worker):
        await agent.ok({"op": "subscribe"}, "subscribed")

    sends = [(alice, {"kind": "room", "room": room}, "to the room", [bob]),
             (alice, {"kind": "dm", "agent": bob.id}, "opens a dm", [bob]),
             (alice, {"kind": "dm", "agent": bob.id}, "in that dm", [bob]),
             (carol, {"kind": "service", "service": "review"}, "for review", [worker])]
    for sender, target, text, recipients in sends:
        await sender.ok({"op": "send", "target": target, "parts": [{"kind": "text", "text": text}]}, "sent")
        for recipient in recipients:
            assert (await recipient.recv_delivery())["parts"][0]["text"] == text
    for agent in (alice, bob, carol, worker):
        await agent.ok({"op": "ping"}, "pong")  # a push written before it would be read by now
        assert agent.deliveries.empty(), agent.name


async def test_a_push_offered_while_a_blob_goes_out_in_fragments_follows_it():
    """Our hub sends a blob's message in fragments (§7.13); a push offered meanwhile, the socket
    keeping up, went to websockets' broadcast, which skips a connection in the middle of a
    fragmented message: the push was lost. It waits for the message's end instead."""
    import asyncio

    from websockets.asyncio.server import serve

    from parler_desktop.hub.push import PushQueue

    halfway, offered = asyncio.Event(), asyncio.Event()

    async def handler(ws) -> None:  # noqa: ANN001
        async def fragments():  # noqa: ANN202
            yield b"first half"
            halfway.set()
            await offered.wait()
            yield b"second half"

        queue = PushQueue(ws, 4)
        sending = asyncio.ensure_future(ws.send(fragments()))
        await halfway.wait()
        assert queue.offer(b'{"type":"delivery"}')
        offered.set()
        await sending
        await ws.wait_closed()
        queue.close()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None) as client:
            assert await asyncio.wait_for(client.recv(), 5) == b"first halfsecond half"
            assert await asyncio.wait_for(client.recv(), 5) == '{"type":"delivery"}'
