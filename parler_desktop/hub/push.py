"""Delivery fan-out: each subscribed connection has a bounded queue drained by its own writer
task, so a slow subscriber loses pushes (dropped when full) instead of stalling anyone else."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from parler_desktop.hub.config import HubFaults


class PushQueue:
    """The pending pushes of one connection."""

    def __init__(self, ws: ServerConnection, size: int) -> None:
        self._ws = ws
        self.last_sent = time.monotonic()
        self._queue: asyncio.Queue[str] = asyncio.Queue(maxsize=size)
        self._task = asyncio.get_running_loop().create_task(self._drain(), name="hub-push")

    def offer(self, text: str) -> bool:
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            return False
        return True

    async def _drain(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                await self._ws.send(text)
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
        """Queue ``text`` for every subscribed connection of every member but the author."""
        for member in members:
            if member == author:
                continue
            for queue in self._by_agent.get(member, ()):
                if self._dropped_on_purpose():
                    continue
                if queue.offer(text):
                    self.pushes_sent += 1

    def _dropped_on_purpose(self) -> bool:
        if self._faults.drop_pushes:
            return True
        probability = self._faults.push_drop_probability
        return probability > 0 and random.random() < probability
