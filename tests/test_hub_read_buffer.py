"""The hub reads every socket into one shared buffer (``hub/read_buffer.py``): frames from many
agents at once, and frames many reads long, still arrive whole and unmixed."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from parler_desktop.hub.read_buffer import READ_BUFFER_BYTES
from support.raw_agent import make_room

AUTHORS = 4
MESSAGES_EACH = 6


def body(author: int, index: int) -> str:
    """Every other message is several buffers long, each one different throughout."""
    size = 3 * READ_BUFFER_BYTES + 1_000 if index % 2 else 40
    seed = hashlib.sha256(f"{author}:{index}".encode()).hexdigest()
    return (seed * (size // len(seed) + 1))[:size]


@pytest.mark.timeout(60)
async def test_big_and_small_frames_from_many_agents_at_once_arrive_whole(hub, raw_agent):
    reader = await raw_agent(hub.url, name="reader")
    authors = [await raw_agent(hub.url, name=f"author-{i}") for i in range(AUTHORS)]
    room = await make_room(reader, "busy", *authors)
    await reader.ok({"op": "subscribe"}, "subscribed")

    async def post_all(i: int) -> None:
        for index in range(MESSAGES_EACH):
            await authors[i].ok({"op": "send", "target": {"kind": "room", "room": room},
                                 "parts": [{"kind": "text", "text": body(i, index)}]}, "sent")

    await asyncio.gather(*(post_all(i) for i in range(AUTHORS)))
    expected = {(author.id, body(i, index)) for i, author in enumerate(authors) for index in range(MESSAGES_EACH)}
    delivered = set()
    for _ in range(len(expected)):
        message = await reader.recv_delivery(timeout=20)
        delivered.add((message["from"]["id"], message["parts"][0]["text"]))
    assert delivered == expected


@pytest.mark.timeout(30)
async def test_the_hub_lends_its_sockets_a_buffer_to_read_into(hub, raw_agent):
    await raw_agent(hub.url, name="someone")
    connections = hub._embedded.hub._server.connections
    assert connections and all(isinstance(c, asyncio.BufferedProtocol) for c in connections)
