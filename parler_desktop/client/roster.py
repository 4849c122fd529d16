"""Rosters: the hub pushes no presence or membership, so the rooms on screen are polled."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import RosterChanged
from parler_desktop.protocol.frames import Roster, RosterList
from parler_desktop.store import LocalStore


class RosterWatcher:
    def __init__(self, commit: Committer, clock: Clock, *, interval: float) -> None:
        self._commit = commit
        self._clock = clock
        self.interval = interval
        self._rooms: frozenset[str] = frozenset()
        self._kick = asyncio.Event()

    def watch(self, rooms: Iterable[str]) -> None:
        """Keep these rooms' rosters fresh (refreshed now, then every ``interval``)."""
        self._rooms = frozenset(rooms)
        self._kick.set()

    async def refresh(self, request: Requester, room: str) -> None:
        reply = await request(Roster(room=room), RosterList)
        assert isinstance(reply, RosterList)
        await self._commit(
            LocalStore.replace_roster, room, reply.entries, announce=lambda _: [RosterChanged(room, reply.entries)]
        )

    async def run(self, request: Requester) -> None:
        while True:
            self._kick.clear()
            for room in sorted(self._rooms):
                try:
                    await self.refresh(request, room)
                except HubRefused:
                    continue  # not a member (any more): the rooms refresh drops it
            await wait_or_timeout(self._kick, self._clock, self.interval)
