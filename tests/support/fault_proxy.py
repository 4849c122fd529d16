"""A fault-injecting TCP proxy on 127.0.0.1 for client tests.

It sits between the client and a real hub and breaks the line the ways networks do: ``cut()``
drops every connection at once (like a Wi-Fi switch), ``stall()`` stops forwarding bytes without
closing anything (like a sleeping laptop or a dead NAT entry: the socket looks open), and
``resume()`` lets bytes flow again. New connections are accepted while stalled, but carry nothing.
``stall(upstream=False)`` holds only what the hub sends: requests still arrive, replies do not.
With ``tls`` (a server SSLContext) it is also a TLS terminator, as real hubs sit behind: clients
speak ``wss://`` to it (``url`` names ``localhost``) and it forwards plain bytes to the hub;
``present(tls)`` restarts it on the same port with another certificate, as an operator who
replaces or renews the hub's certificate does.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl

CHUNK = 64 * 1024


class FaultProxy:
    def __init__(self, target_host: str, target_port: int, tls: ssl.SSLContext | None = None) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self._tls = tls
        self._server: asyncio.Server | None = None
        self._upstream_flowing = asyncio.Event()  # client → hub
        self._downstream_flowing = asyncio.Event()  # hub → client
        self._upstream_flowing.set()
        self._downstream_flowing.set()
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._handlers: set[asyncio.Task[object]] = set()  # one per accepted connection, until it ends
        self._closing = False
        self.accepted = 0  # connections accepted so far (each client reconnect adds one)

    @property
    def port(self) -> int:
        assert self._server is not None, "proxy not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"wss://localhost:{self.port}/ws" if self._tls else f"ws://127.0.0.1:{self.port}/ws"

    @property
    def open_connections(self) -> int:
        return len(self._links)

    async def start(self, port: int = 0) -> "FaultProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", port, ssl=self._tls)
        return self

    async def close(self) -> None:
        """Stop accepting, drop every connection and wait until each connection's handler has
        ended on its own (a handler the test's loop teardown cancelled instead would make
        asyncio log an error; cancelling them here would too)."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        self.resume()
        self.cut()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def present(self, tls: ssl.SSLContext) -> None:
        """Restart on the same port (same ``url``) presenting ``tls``'s certificate: every
        connection is dropped, as when the terminator restarts; the next ones get the new one."""
        port = self.port
        await self.close()
        self._closing = False
        self._tls = tls
        await self.start(port)

    def cut(self) -> None:
        """Abort every proxied connection on both sides (no close handshake)."""
        for client, upstream in list(self._links):
            client.transport.abort()
            upstream.transport.abort()
        self._links.clear()

    def stall(self, *, upstream: bool = True, downstream: bool = True) -> None:
        """Stop forwarding (both directions by default); connections stay open."""
        if upstream:
            self._upstream_flowing.clear()
        if downstream:
            self._downstream_flowing.clear()

    def resume(self) -> None:
        self._upstream_flowing.set()
        self._downstream_flowing.set()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        try:
            await self._forward(client_reader, client_writer)
        finally:
            self._handlers.discard(handler)

    async def _forward(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            client_writer.transport.abort()
            return
        link = (client_writer, upstream_writer)
        if self._closing:  # close() came while we dialled the hub: its cut() could not see this link
            for writer in link:
                writer.transport.abort()
            return
        self._links.add(link)
        pumps = [
            asyncio.ensure_future(self._pump(client_reader, upstream_writer, self._upstream_flowing)),
            asyncio.ensure_future(self._pump(upstream_reader, client_writer, self._downstream_flowing)),
        ]
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._links.discard(link)
            for writer in link:
                writer.transport.abort()

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, flowing: asyncio.Event) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while True:
                await flowing.wait()
                data = await reader.read(CHUNK)
                if not data:
                    return
                await flowing.wait()
                writer.write(data)
                await writer.drain()
