"""A hostile hub for client tests: a real hub behind a frame-rewriting WebSocket proxy.

The client meets a hub that speaks the real handshake (nonce, signed hello, ``welcome``: the
frames come from the real hub behind) and then misbehaves the way a test's ``Misbehaviour``
says. Every client frame and every hub frame goes through it as parsed JSON:

- ``request(link, frame)``: a client frame (handshake included). Return ``None`` to forward it
  to the real hub (as the hook left it: changed in place, it goes as JSON of what it is now), or
  a list of frames to answer it with instead (the real hub never sees it).
- ``reply(link, reply, request)``: the real hub's answer to ``request`` (replies leave in the
  order the requests came, protocol.md §1.4, so each is paired with its request). Return the
  frames the client gets instead (``[reply]`` passes it on, ``[]`` swallows it).
- ``push(link, delivery)``: a ``delivery`` from the real hub; return what the client gets.
- ``welcomed(link)``: called once the handshake is over; a coroutine started here (a flood, say)
  runs until the line closes.

A frame to send is a dict (sent as JSON), a ``str`` (sent as text as it is) or ``bytes``
(a binary frame). ``link.to_client(*frames)`` sends unsolicited frames; ``link.close()`` drops
the line. ``HostileHub.links`` counts the connections made, ``requests`` every op seen (by op).

``HostileHub(upstream_url, misbehaviour)`` runs on the caller's loop (``await start()``);
``HostileHub.in_thread(...)`` runs it on a loop of its own thread, so a flood does not compete
with the window under test for its thread.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import threading
from collections.abc import Coroutine
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

Frame = dict[str, Any] | str | bytes


class Misbehaviour:
    """An honest pass-through; a test overrides the hooks it needs."""

    def request(self, link: "Link", frame: dict[str, Any]) -> list[Frame] | None:
        return None

    def reply(self, link: "Link", reply: dict[str, Any], request: dict[str, Any] | None) -> list[Frame]:
        return [reply]

    def push(self, link: "Link", delivery: dict[str, Any]) -> list[Frame]:
        return [delivery]

    def welcomed(self, link: "Link") -> Coroutine[Any, Any, None] | None:
        return None


class Link:
    """One client connection and its line to the real hub."""

    def __init__(self, client: ServerConnection, upstream: ClientConnection, number: int) -> None:
        self.client = client
        self.upstream = upstream
        self.number = number  # 1 for the first connection the hub accepted
        self.outstanding: collections.deque[dict[str, Any]] = collections.deque()
        self.welcomed = False
        self.state: dict[str, Any] = {}  # free for a misbehaviour's notes

    async def to_client(self, *frames: Frame) -> None:
        for frame in frames:
            await self.client.send(json.dumps(frame) if isinstance(frame, dict) else frame)

    async def close(self) -> None:
        await self.client.close()
        await self.upstream.close()


class HostileHub:
    def __init__(self, upstream_url: str, misbehaviour: Misbehaviour | None = None) -> None:
        self.upstream_url = upstream_url
        self.misbehaviour = misbehaviour or Misbehaviour()
        self.links = 0
        self.requests: collections.Counter[str] = collections.Counter()
        self._server: Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "hostile hub not started"
        port = self._server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}/ws"

    async def start(self) -> "HostileHub":
        self._server = await serve(self._serve, "127.0.0.1", 0, ping_interval=None, max_size=None,
                                   compression=None)
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @classmethod
    def in_thread(cls, upstream_url: str, misbehaviour: Misbehaviour | None = None) -> "HostileHub":
        """Start one on a loop of its own thread; ``stop()`` ends both."""
        hub = cls(upstream_url, misbehaviour)
        started = threading.Event()

        def run() -> None:
            hub._loop = asyncio.new_event_loop()
            hub._loop.run_until_complete(hub.start())
            started.set()
            hub._loop.run_forever()
            hub._loop.run_until_complete(hub.close())
            hub._loop.close()

        hub._thread = threading.Thread(target=run, name="hostile-hub", daemon=True)
        hub._thread.start()
        if not started.wait(10):
            raise TimeoutError("the hostile hub did not start")
        return hub

    def stop(self) -> None:
        if self._thread is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _serve(self, client: ServerConnection) -> None:
        self.links += 1
        async with connect(self.upstream_url, ping_interval=None, max_size=None, compression=None) as upstream:
            link = Link(client, upstream, self.links)
            down = asyncio.ensure_future(self._downstream(link))
            try:
                await self._upstream(link)
            finally:
                down.cancel()
                with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                    await down

    async def _upstream(self, link: Link) -> None:
        """Client → hub: each frame offered to the misbehaviour, forwarded unless answered."""
        with contextlib.suppress(ConnectionClosed):
            async for raw in link.client:
                if isinstance(raw, bytes):
                    await link.upstream.send(raw)
                    continue
                frame = json.loads(raw)
                self.requests[str(frame.get("op"))] += 1
                answer = self.misbehaviour.request(link, frame)
                if answer is None:
                    link.outstanding.append(frame)
                    await link.upstream.send(raw if frame == json.loads(raw) else json.dumps(frame))
                else:
                    await link.to_client(*answer)
        await link.upstream.close()

    async def _downstream(self, link: Link) -> None:
        """Hub → client: replies paired with their requests, pushes apart."""
        try:
            async for raw in link.upstream:
                if isinstance(raw, bytes):
                    await link.client.send(raw)
                    continue
                frame = json.loads(raw)
                if frame.get("type") == "delivery":
                    await link.to_client(*self.misbehaviour.push(link, frame))
                    continue
                request = link.outstanding.popleft() if link.outstanding else None
                await link.to_client(*self.misbehaviour.reply(link, frame, request))
                if frame.get("type") == "welcome" and not link.welcomed:
                    link.welcomed = True
                    started = self.misbehaviour.welcomed(link)
                    if started is not None:
                        task = asyncio.ensure_future(self._until_closed(started))
                        self._tasks.add(task)
                        task.add_done_callback(self._tasks.discard)
        except ConnectionClosed:
            pass
        await link.client.close()

    @staticmethod
    async def _until_closed(work: Coroutine[Any, Any, None]) -> None:
        with contextlib.suppress(ConnectionClosed):
            await work
