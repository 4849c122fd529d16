"""HubConnection and the no-push fallback against a scripted hub that misbehaves on purpose.

A scripted peer (not the embedded hub) is the only way to send what a correct hub never sends:
broken frames, unknown pushes, stray binary frames, a hub that refuses ``subscribe``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable

import pytest
from websockets.asyncio.server import ServerConnection, serve

from parler_desktop.client import connection
from parler_desktop.client.connection import DECODE_OFF_LOOP_CHARS, HubConnection, expect
from parler_desktop.client.clock import SystemClock
from parler_desktop.client.errors import BadReply, ConnectionLost, HandshakeRefused, HubRefused
from parler_desktop.client.events import ConnectionState, Notice
from parler_desktop.client.pacing import PacedRequester, RequestPacer
from parler_desktop.identity import Identity, verify_signature
from parler_desktop.protocol.frames import Ping, Pull, Pulled
from support.client_harness import session_factory  # noqa: F401  (fixture)

pytestmark = pytest.mark.timeout(20)


def stored(seq: int, text: str, room: str = "team") -> dict:
    return {"seq": seq, "id": f"m{seq}", "room": room, "from": {"id": "UPEER", "name": "peer"},
            "parts": [{"kind": "text", "text": text}], "ts": 1_700_000_000_000 + seq}


async def accept_hello(ws: ServerConnection) -> None:
    hello = json.loads(await ws.recv())
    await ws.send(json.dumps({"type": "challenge", "nonce": "nonce-1", "version": "0.2"}))
    signed = json.loads(await ws.recv())
    assert verify_signature(hello["id"], b"nonce-1", signed["sig"])
    await ws.send(json.dumps({"type": "welcome", "id": hello["id"], "name": hello["name"]}))


async def scripted(handler: Callable[[ServerConnection], Awaitable[None]]):
    server = await serve(handler, "127.0.0.1", 0, ping_interval=None)
    port = server.sockets[0].getsockname()[1]
    return server, f"ws://127.0.0.1:{port}/ws"


async def test_bad_frames_from_the_hub_become_notices_and_the_line_keeps_working():
    closed_with: list[int | None] = []

    async def hub(ws: ServerConnection) -> None:
        await accept_hello(ws)
        await ws.send("not json")
        await ws.send(json.dumps({"type": "delivery", "message": {"seq": "x"}}))
        await ws.send(json.dumps({"type": "brand_new_push", "x": 1}))
        await ws.send(b"\x00\x01")
        await ws.send(json.dumps({"type": "delivery", "message": stored(5, "ok")}))
        assert json.loads(await ws.recv()) == {"op": "ping"}
        await ws.send(json.dumps({"type": "pong"}))
        assert json.loads(await ws.recv())["op"] == "pull"
        await ws.send(json.dumps({"type": "pulled", "room": 5}))  # wrong type for room
        assert json.loads(await ws.recv()) == {"op": "ping"}
        await ws.send(json.dumps({"type": "pong"}))
        await ws.wait_closed()
        closed_with.append(ws.close_code)

    server, url = await scripted(hub)
    notices: list[str] = []
    try:
        conn = await HubConnection.open(url, open_timeout=5, on_notice=notices.append)
        await conn.handshake(Identity.generate(), "me", None, None, timeout=5)
        delivered = await asyncio.wait_for(conn.deliveries.wait(), 5)
        assert [m.seq for m in delivered] == [5]
        # Three kinds said at once; the second unsolicited frame is counted (client/fault_log.py).
        assert len(notices) == 3 and all("ignored" in text for text in notices)
        await conn.ping(timeout=5)
        with pytest.raises(BadReply):
            expect(await conn.request(Pull(room="team", since=0), timeout=5), Pulled, "pull")
        await conn.ping(timeout=5)  # still in step: one reply per request
        await conn.close()
        await asyncio.wait_for(server_closed(closed_with), 5)
        assert closed_with == [1000]
    finally:
        server.close()
        await server.wait_closed()


async def server_closed(closed_with: list) -> None:
    while not closed_with:
        await asyncio.sleep(0.01)


async def test_the_hubs_last_words_say_why_it_hung_up():
    async def hub(ws: ServerConnection) -> None:
        await ws.send(json.dumps({"type": "error", "message": "hub at capacity", "code": "at_capacity"}))
        await ws.close()

    server, url = await scripted(hub)
    try:
        conn = await HubConnection.open(url, open_timeout=5, on_notice=lambda text: None)
        await asyncio.wait_for(conn.wait_closed(), 5)
        assert "at capacity" in conn.close_reason and "at_capacity" in conn.close_reason
        with pytest.raises(ConnectionLost):
            await conn.request(Ping(), timeout=5)
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("hello_sent", [False, True], ids=["hung up before the hello", "hello crossed its last words"])
async def test_a_hub_at_capacity_refuses_the_handshake_saying_why_whenever_it_hangs_up(hello_sent):
    """The hub sends ``at_capacity`` right after the upgrade and closes (§7.12): whether that
    lands before our hello leaves or as its answer, the handshake is refused with the hub's
    reason (the window says "at capacity"), not a line lost for no reason."""

    async def hub(ws: ServerConnection) -> None:
        if hello_sent:
            await ws.recv()
        await ws.send(json.dumps({"type": "error", "message": "hub at capacity — try again shortly", "code": "at_capacity"}))
        await ws.close(1013, "at capacity")

    server, url = await scripted(hub)
    try:
        conn = await HubConnection.open(url, open_timeout=5, on_notice=lambda text: None)
        if not hello_sent:
            await asyncio.wait_for(conn.wait_closed(), 5)
        with pytest.raises(HandshakeRefused) as refused:
            await conn.handshake(Identity.generate(), "boss", None, None, timeout=5)
        assert (refused.value.code, refused.value.message) == ("at_capacity", "hub at capacity — try again shortly")
        assert refused.value.is_transient
    finally:
        server.close()
        await server.wait_closed()


async def test_a_hub_without_push_is_polled(session_factory):
    """Subscribe is refused (an old hub): new messages still arrive, by polling ``rooms``."""
    history: list[dict] = [stored(1, "first")]
    ops: list[str] = []

    async def hub(ws: ServerConnection) -> None:
        await accept_hello(ws)
        async for raw in ws:
            frame = json.loads(raw)
            ops.append(frame["op"])
            if frame["op"] == "subscribe":
                reply = {"type": "error", "message": "unknown op 'subscribe'", "code": "bad_frame"}
            elif frame["op"] == "rooms":
                reply = {"type": "rooms", "rooms": [{"name": "team", "kind": "channel", "members": 2, "unread": len(history)}]}
            elif frame["op"] == "pull" and "since" in frame:
                messages = [m for m in history if m["seq"] > frame["since"]]
                reply = {"type": "pulled", "room": "team", "messages": messages,
                         "cursor": messages[-1]["seq"] if messages else frame["since"]}
            elif frame["op"] == "pull":
                reply = {"type": "pulled", "room": "team", "messages": [], "cursor": 0}
            elif frame["op"] == "ping":
                reply = {"type": "pong"}
            else:
                reply = {"type": "error", "message": f"unexpected {frame['op']}"}
            await ws.send(json.dumps(reply))

    server, url = await scripted(hub)
    try:
        session, log = await session_factory(url)
        await log.wait_state(ConnectionState.LIVE)
        assert any(isinstance(e, Notice) and "polling" in e.text for e in log.events)
        assert [m.seq for m in log.messages("team")] == [1]
        history.append(stored(4, "second"))
        await log.wait_until(lambda: [m.seq for m in log.messages("team")] == [1, 4], "the polled message")
        assert ops.count("subscribe") == 1
    finally:
        server.close()
        await server.wait_closed()


async def test_a_pulled_page_is_decoded_off_the_loop_and_keeps_its_place_among_the_frames(monkeypatch):
    """A page of hundreds of long messages (over ``DECODE_OFF_LOOP_CHARS``) is decoded on a worker
    thread, not on the loop (the window's thread), and the frames after it still come in order. A
    broken big page is refused as a small one is, and the line keeps working."""
    page = [stored(seq, f"message {seq} " + "x" * 500) for seq in range(1, 601)]
    broken = [*page[:300], {**page[300], "seq": "x"}, *page[301:]]

    async def hub(ws: ServerConnection) -> None:
        await accept_hello(ws)
        for messages, push in ((page, 601), (broken, 602)):
            assert json.loads(await ws.recv())["op"] == "pull"
            await ws.send(json.dumps({"type": "pulled", "room": "team", "messages": messages, "cursor": 0}))
            await ws.send(json.dumps({"type": "delivery", "message": stored(push, "pushed after the page")}))
        assert json.loads(await ws.recv()) == {"op": "ping"}
        await ws.send(json.dumps({"type": "pong"}))
        await ws.wait_closed()

    decoded_on: list[tuple[int, bool]] = []  # (characters, on the loop's thread)
    decode = connection.decode_hub_frame

    def watched(text):  # noqa: ANN001, ANN202 - the real decoder, noting where it ran
        decoded_on.append((len(text), threading.current_thread() is threading.main_thread()))
        return decode(text)

    monkeypatch.setattr(connection, "decode_hub_frame", watched)
    server, url = await scripted(hub)
    try:
        conn = await HubConnection.open(url, open_timeout=5, on_notice=lambda text: None)
        await conn.handshake(Identity.generate(), "me", None, None, timeout=5)
        reply = expect(await conn.request(Pull(room="team", since=0), timeout=5), Pulled, "pull")
        assert [m.seq for m in reply.messages] == list(range(1, 601))
        assert [m.seq for m in await asyncio.wait_for(conn.deliveries.wait(), 5)] == [601]
        with pytest.raises(BadReply):
            expect(await conn.request(Pull(room="team", since=0), timeout=5), Pulled, "pull")
        assert [m.seq for m in await asyncio.wait_for(conn.deliveries.wait(), 5)] == [602]
        await conn.ping(timeout=5)
        big = [on_loop for size, on_loop in decoded_on if size >= DECODE_OFF_LOOP_CHARS]
        small = [on_loop for size, on_loop in decoded_on if size < DECODE_OFF_LOOP_CHARS]
        assert big == [False, False] and small and all(small)
        await conn.close()
    finally:
        server.close()
        await server.wait_closed()


async def test_requests_sent_back_to_back_get_their_own_replies_refusals_and_retries():
    """Pipelined pulls (``request_each``: several rooms' first pages at once): the three go out
    before any reply is read, and each gets its own answer in order; a refusal stays with its
    frame, and one the hub rate-limits is asked again on its own once the hold is over."""
    pulled: list[str] = []

    async def hub(ws: ServerConnection) -> None:
        await accept_hello(ws)
        rooms = [json.loads(await ws.recv())["room"] for _ in range(3)]  # all three before any answer
        pulled.extend(rooms)
        await ws.send(json.dumps({"type": "pulled", "room": "a", "messages": [stored(1, "in a", "a")], "cursor": 1}))
        await ws.send(json.dumps({"type": "error", "code": "rate_limited", "message": "slow down"}))
        await ws.send(json.dumps({"type": "error", "code": "not_member", "message": "not a member of c"}))
        retried = json.loads(await ws.recv())
        pulled.append(retried["room"])
        await ws.send(json.dumps({"type": "pulled", "room": "b", "messages": [stored(2, "in b", "b")], "cursor": 2}))
        await ws.wait_closed()

    server, url = await scripted(hub)
    try:
        conn = await HubConnection.open(url, open_timeout=5, on_notice=lambda text: None)
        await conn.handshake(Identity.generate(), "me", None, None, timeout=5)
        pacer = RequestPacer(SystemClock(), first_hold_secs=0.05)
        a, b, c = await PacedRequester(conn, pacer, timeout=5).each([Pull(room=room, since=0) for room in "abc"], Pulled)
        assert pulled == ["a", "b", "c", "b"]
        assert [m.text for m in a.messages] == ["in a"] and [m.text for m in b.messages] == ["in b"]
        assert isinstance(c, HubRefused) and c.code == "not_member"
        await conn.close()
    finally:
        server.close()
        await server.wait_closed()
