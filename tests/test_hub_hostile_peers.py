"""Raw-socket attacks on the hub, each with legitimate agents served meanwhile.

A peer that never authenticates cannot keep its socket (the handshake deadline is absolute), one
address cannot hold the connection cap with such sockets, nor can many addresses together, a
deeply nested frame is a ``bad_frame`` before anything is stored, and a stored message is always
answered ``sent``.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from parler_desktop.protocol.json_nesting import nesting_exceeds
from support.raw_agent import RawAgent, make_room

ATTACKER = "127.0.0.2"  # another loopback address: the hub sees a second machine


def nested_data(depth: int) -> object:
    """A JSON value ``depth`` arrays deep."""
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def send_frame(room: str, parts: list[dict], **extra: object) -> dict:
    return {"op": "send", "target": {"kind": "room", "room": room}, "parts": parts, **extra}


async def accepted(socket: RawAgent) -> bool:
    """True if the hub serves this unauthenticated socket (junk gets ``bad_frame``), False if it
    refused it at the door (``at_capacity``, then closed)."""
    try:
        await socket.send_text(json.dumps({"op": "nonsense"}))
    except ConnectionClosed:
        return False
    return (await socket.recv()).get("code") == "bad_frame"


@pytest.mark.timeout(20)
async def test_junk_frames_do_not_extend_the_handshake(hub_factory, raw_agent):
    hub = hub_factory(limits={"handshake_timeout_secs": 0.5})
    socket = await raw_agent(hub.url, handshake=False)
    opened = time.monotonic()
    replies: list[dict] = []
    while not replies or replies[-1].get("code") == "bad_frame":  # junk, one per round trip
        try:
            await socket.send_text(json.dumps({"op": "junk"}))
        except ConnectionClosed:
            break
        replies.append(await socket.recv())
    if replies[-1].get("code") == "bad_frame":  # the socket closed between a reply and our next frame
        replies.append(await socket.recv())
    assert replies[-1] == {"type": "error", "message": "handshake timed out", "code": "timeout"}
    assert time.monotonic() - opened < 3.0 and len(replies) > 1
    await socket.wait_closed()


@pytest.mark.timeout(30)
async def test_one_address_cannot_hold_the_handshake_slots(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_handshaking_per_address": 3})
    held = [await raw_agent(hub.url, handshake=False, source=ATTACKER) for _ in range(3)]
    assert all([await accepted(socket) for socket in held])
    refused = await raw_agent(hub.url, handshake=False, source=ATTACKER)
    reply = await refused.recv()
    assert reply["code"] == "at_capacity" and "authenticating" in reply["message"]
    await refused.wait_closed()

    alice = await raw_agent(hub.url, name="alice")  # another address is served meanwhile
    assert (await alice.ok({"op": "ping"}))["type"] == "pong"

    assert (await held[0].handshake())["type"] == "welcome"  # authenticating frees its slot
    await held[1].close()  # and so does going away
    for _ in range(2):
        assert await accepted(await raw_agent(hub.url, handshake=False, source=ATTACKER))
    late = await raw_agent(hub.url, handshake=False, source=ATTACKER)
    assert (await late.recv())["code"] == "at_capacity"


@pytest.mark.timeout(60)
async def test_agents_are_served_through_a_flood_of_unauthenticated_sockets(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_connections": 60, "max_handshaking_per_address": 8, "handshake_timeout_secs": 2.0})
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "team", bob)
    await bob.ok({"op": "subscribe"}, "subscribed")

    flood = [await raw_agent(hub.url, handshake=False, source=ATTACKER) for _ in range(100)]
    served = [socket for socket, ok in zip(flood, await asyncio.gather(*map(accepted, flood))) if ok]
    assert len(served) == 8

    newcomer = await raw_agent(hub.url, name="carol")  # the cap is not held: new agents get in
    await make_room(alice, "second", newcomer)
    for number in range(50):
        sent = await alice.ok(send_frame(room, [{"kind": "text", "text": f"m{number}"}]), "sent")
        assert (await bob.recv_delivery())["seq"] == sent["seq"]
    for socket in served:  # the junk never kept them: they end at the deadline
        assert (await socket.recv(timeout=10))["code"] == "timeout"


@pytest.mark.timeout(30)
async def test_a_full_hub_drops_unauthenticated_sockets_never_sessions(hub_factory, raw_agent):
    hub = hub_factory(limits={"max_connections": 4, "max_unauthenticated": 2})
    alice = await raw_agent(hub.url, name="alice")
    first, second = [await raw_agent(hub.url, handshake=False, source=ATTACKER) for _ in range(2)]
    assert await accepted(first) and await accepted(second)

    third = await raw_agent(hub.url, handshake=False, source=ATTACKER)  # the unauthenticated share is full
    assert await accepted(third)
    assert await first.recv() == {"type": "error", "message": "hub at capacity — try again shortly", "code": "at_capacity"}
    await first.wait_closed()

    newcomer = await raw_agent(hub.url, handshake=False, source="127.0.0.3")  # drops the attacker's older one
    assert await accepted(newcomer) and (await second.recv())["code"] == "at_capacity"
    fourth = await raw_agent(hub.url, handshake=False, source=ATTACKER)  # one each now: the older goes
    assert await accepted(fourth) and (await third.recv())["code"] == "at_capacity"
    assert (await newcomer.handshake())["type"] == "welcome"

    sessions = [alice, newcomer] + [await raw_agent(hub.url, name=name) for name in ("bob", "carol")]
    assert (await fourth.recv())["code"] == "at_capacity"  # carol took the last unauthenticated seat
    refused = await raw_agent(hub.url, handshake=False)  # only sessions now: they are never dropped
    assert await refused.recv() == {"type": "error", "message": "hub at capacity — try again shortly", "code": "at_capacity"}
    for session in sessions:
        assert (await session.ok({"op": "ping"}))["type"] == "pong"


async def redial_unauthenticated(url: str, source: str, stop: asyncio.Event, dialed: set[int]) -> None:
    """An attacking socket from ``source`` that never authenticates and dials again whenever it is
    dropped or refused, until ``stop``; it joins ``dialed`` once its first dial has an answer."""
    while not stop.is_set():
        try:
            ws = await connect(url, local_addr=(source, 0), ping_interval=None, open_timeout=10)
        except (InvalidHandshake, OSError, TimeoutError):  # HTTP 429, say: dial again
            dialed.add(id(asyncio.current_task()))
            continue
        dialed.add(id(asyncio.current_task()))
        closed = asyncio.ensure_future(ws.wait_closed())
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait([closed, stopped], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        await ws.close()


@pytest.mark.timeout(45)
async def test_many_addresses_of_unauthenticated_sockets_cannot_lock_agents_out(hub_factory, raw_agent):
    """1,200 sockets from 200 loopback addresses (6 each, under the per-address cap), redialing
    when dropped, against the reference connection cap: a new agent from another address still
    authenticates and works, and an agent that was already in keeps its session."""
    hub = hub_factory()
    bob = await raw_agent(hub.url, name="bob")
    await bob.ok({"op": "subscribe"}, "subscribed")
    stop, dialed = asyncio.Event(), set()
    sources = [f"127.0.1.{number}" for number in range(1, 201)]
    attack = [
        asyncio.create_task(redial_unauthenticated(hub.url, source, stop, dialed)) for source in sources for _ in range(6)
    ]
    try:
        while len(dialed) < len(attack):  # every attacking socket has been admitted or refused once
            await asyncio.sleep(0.05)
        alice = await raw_agent(hub.url, name="alice")
        room = await make_room(alice, "through-the-flood", bob)
        sent = await alice.ok(send_frame(room, [{"kind": "text", "text": "still here"}]), "sent")
        assert (await bob.recv_delivery())["seq"] == sent["seq"]
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*attack), 20)


@pytest.mark.parametrize(
    ("depth", "accepted_by_reference"),
    [(124, True), (125, False), (500, False)],  # data sits 3 levels in: 124 + 3 = 127 levels
)
async def test_nesting_is_limited_at_decode_like_the_reference_parser(hub, raw_agent, depth, accepted_by_reference):
    alice = await raw_agent(hub.url, name="alice")
    bob = await raw_agent(hub.url, name="bob")
    room = await make_room(alice, "deep", bob)
    await bob.ok({"op": "subscribe"}, "subscribed")
    reply = await alice.request(send_frame(room, [{"kind": "data", "data": nested_data(depth)}]))
    stored = (await bob.ok({"op": "pull", "room": room, "since": 0}, "pulled"))["messages"]
    if accepted_by_reference:
        assert reply["type"] == "sent"
        assert (await bob.recv_delivery())["seq"] == reply["seq"] == stored[0]["seq"]
    else:
        assert reply["type"] == "error" and reply["code"] == "bad_frame" and "nested" in reply["message"]
        assert stored == []


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"op": "ping", "note": "[{" * 300, "deep": nested_data(120)})
    assert not nesting_exceeds(text) and not nesting_exceeds(text.encode())
    assert nesting_exceeds(json.dumps({"op": "ping", "deep": nested_data(127)}))


async def test_a_hub_on_a_full_disk_answers_storage_full_and_recovers(hub_factory, raw_agent, small_disk):
    hub = hub_factory(db_path=small_disk.path / "hub.sqlite3", blob_dir=small_disk.path / "blobs")
    alice = await raw_agent(hub.url, name="alice")
    room = await make_room(alice, "team")
    small_disk.fill()
    reply = await alice.request(send_frame(room, [{"kind": "text", "text": "no room for me"}]))
    assert reply == {"type": "error", "message": "the hub's disk is full — try again later", "code": "storage_full"}
    small_disk.free()
    sent = await alice.ok(send_frame(room, [{"kind": "text", "text": "now there is"}]), "sent")
    history = (await alice.ok({"op": "pull", "room": room, "since": 0}, "pulled"))["messages"]
    assert [m["seq"] for m in history] == [sent["seq"]]
