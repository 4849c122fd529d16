"""Socket reads into one reused buffer instead of a fresh 256 KiB ``bytes`` per read.

asyncio's socket transport reads with ``recv(256 KiB)`` for a plain protocol: every frame an
agent sends costs the allocation of that buffer (big enough for ``mmap``), its shrinking
(``mremap``) and its release (``munmap``), plus the page faults of new memory — three system
calls per frame, each an expensive one in a virtual machine. For a ``BufferedProtocol`` the
transport reads with ``recv_into`` into a buffer the protocol lends it; here that buffer is
shared by every connection of the thread's event loop (a hub's loop has one thread, and the
transport copies nothing between lending and being told how much arrived) and the bytes read
are copied out at once, the size of what arrived.
"""

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
