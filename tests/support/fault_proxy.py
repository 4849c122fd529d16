"""A fault-injecting TCP proxy on 127.0.0.1 for client tests.

It sits between the client and a real hub and breaks the line the ways networks do: ``cut()``
drops every connection at once (like a Wi-Fi switch), ``stall()`` stops forwarding bytes without
closing anything (like a sleeping laptop or a dead NAT entry: the socket looks open), and
``resume()`` lets bytes flow again. New connections are accepted while stalled, but carry nothing.
"""

from __future__ import annotations

import asyncio
import contextlib

CHUNK = 64 * 1024


class FaultProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self._server: asyncio.Server | None = None
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self.accepted = 0  # connections accepted so far (each client reconnect adds one)

    @property
    def port(self) -> int:
        assert self._server is not None, "proxy not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def open_connections(self) -> int:
        return len(self._links)

    async def start(self, port: int = 0) -> "FaultProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", port)
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self.cut()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    def cut(self) -> None:
        """Abort every proxied connection on both sides (no close handshake)."""
        for client, upstream in list(self._links):
            client.transport.abort()
            upstream.transport.abort()
        self._links.clear()

    def stall(self) -> None:
        """Stop forwarding in both directions; connections stay open."""
        self._flowing.clear()

    def resume(self) -> None:
        self._flowing.set()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            client_writer.transport.abort()
            return
        link = (client_writer, upstream_writer)
        self._links.add(link)
        pumps = [
            asyncio.ensure_future(self._pump(client_reader, upstream_writer)),
            asyncio.ensure_future(self._pump(upstream_reader, client_writer)),
        ]
        self._pumps.update(pumps)
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._pumps.difference_update(pumps)
            self._links.discard(link)
            for writer in link:
                writer.transport.abort()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while True:
                await self._flowing.wait()
                data = await reader.read(CHUNK)
                if not data:
                    return
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
