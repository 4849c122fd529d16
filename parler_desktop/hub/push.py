"""Delivery fan-out that never waits on a subscriber.

A push is written to a subscriber's socket at once, in the sender's turn, while that socket keeps
up (its write buffer is below the high-water mark and nothing of its is queued); otherwise it
waits in the connection's bounded queue, which its own writer task drains as the socket does,
and a push finding that queue full is dropped (the subscriber's next pull finds it). So a slow
subscriber loses pushes instead of stalling the sender or anyone else, and the usual case costs
one socket write per subscriber: no task switch, no await, the frame encoded once for all.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import deque
from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from parler_desktop.hub.config import HubFaults


def write_now(ws: ServerConnection, frame: str | bytes) -> bool:
    """Write a text frame (``bytes``: UTF-8 JSON) without waiting, if the socket keeps up: it is
    open and its write buffer is under the high-water mark. False: the caller must wait for it.

    ``ws.send`` costs an async context manager and a timeout per frame; replies and pushes are
    most of what a busy hub writes, and a socket that keeps up never needs that wait."""
    transport = ws.transport
    if ws.state is not State.OPEN or transport.get_write_buffer_size() >= transport.get_write_buffer_limits()[1]:
        return False
    if _sending_fragments(ws):
        return False
    broadcast((ws,), frame, text=True)  # the library's non-waiting write (never fragmented here)
    return True


def _sending_fragments(ws: ServerConnection) -> bool:
    """The socket is in the middle of a fragmented message (a blob, §7.13): ``broadcast`` would
    skip it, losing the frame, where ``send`` waits for the message's end. (websockets names the
    state ``send_in_progress`` since 15, ``fragmented_send_waiter`` before.)"""
    return getattr(ws, "send_in_progress", None) is not None or getattr(ws, "fragmented_send_waiter", None) is not None


class PushQueue:
    """The pushes of one connection that its socket could not take yet."""

    def __init__(self, ws: ServerConnection, size: int) -> None:
        self._ws = ws
        self._size = size
        self.last_sent = time.monotonic()
        self._waiting: deque[bytes] = deque()
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._drain(), name="hub-push")

    def offer(self, frame: bytes) -> bool:
        """Write ``frame`` (UTF-8 JSON) now, or queue it; False when it had to be dropped."""
        if not self._waiting and write_now(self._ws, frame):
            self.last_sent = time.monotonic()
            return True
        if len(self._waiting) >= self._size:
            return False
        self._waiting.append(frame)
        self._wake.set()
        return True

    async def _drain(self) -> None:
        """Write the queue as the socket drains; a frame leaves the queue only once written, so
        ``offer`` never writes past one still waiting."""
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._waiting:
                    await self._ws.send(self._waiting[0], text=True)
                    self._waiting.popleft()
                    self.last_sent = time.monotonic()
        except ConnectionClosed:
            pass

    def close(self) -> None:
        self._task.cancel()


class Subscribers:
    """Which connections of which agents want pushes."""

    def __init__(self, faults: HubFaults) -> None:
        self._faults = faults
        self._by_agent: dict[str, set[PushQueue]] = {}
        self.pushes_sent = 0

    def add(self, agent: str, queue: PushQueue) -> None:
        self._by_agent.setdefault(agent, set()).add(queue)

    def remove(self, agent: str, queue: PushQueue) -> None:
        queues = self._by_agent.get(agent)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._by_agent[agent]

    def fan_out(self, text: str, members: Iterable[str], author: str) -> None:
        """Push ``text`` to every subscribed connection of every member but the author."""
        frame = text.encode()
        for member in members:
            if member == author:
                continue
            for queue in self._by_agent.get(member, ()):
                if self._dropped_on_purpose():
                    continue
                if queue.offer(frame):
                    self.pushes_sent += 1

    def _dropped_on_purpose(self) -> bool:
        if self._faults.drop_pushes:
            return True
        probability = self._faults.push_drop_probability
        return probability > 0 and random.random() < probability
