"""Rosters: the hub pushes no presence or membership, so the rooms on screen are polled.

Between polls, a message from someone the roster does not list yet (an agent that just joined)
refreshes the rosters at once: the members panel shows who is talking. Each sender asks once per
room, so an old message from someone who has left since does not refresh it again and again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from parler_desktop.client.clock import Clock, wait_or_timeout
from parler_desktop.client.commit import Committer
from parler_desktop.client.connection import Requester
from parler_desktop.client.errors import HubRefused
from parler_desktop.client.events import MessagesArrived, MessagesStored, RosterChanged, SessionEvent
from parler_desktop.protocol.frames import Roster, RosterList
from parler_desktop.store import LocalStore


class RosterWatcher:
    def __init__(self, commit: Committer, clock: Clock, *, interval: float) -> None:
        self._commit = commit
        self._clock = clock
        self.interval = interval
        self._rooms: frozenset[str] = frozenset()
        self._members: dict[str, frozenset[str]] = {}  # room -> the ids its roster last listed
        self._asked: dict[str, set[str]] = {}  # room -> senders that refreshed its roster
        self._kick = asyncio.Event()

    def watch(self, rooms: Iterable[str]) -> None:
        """Keep these rooms' rosters fresh (refreshed now, then every ``interval``)."""
        self._rooms = frozenset(rooms)
        self._kick.set()

    def hear(self, event: SessionEvent) -> None:
        """A session event: messages from a sender a watched room's roster does not list
        refresh the rosters now."""
        if not isinstance(event, (MessagesArrived, MessagesStored)) or event.room not in self._rooms:
            return
        members = self._members.get(event.room)
        if members is None:
            return  # not listed yet: the refresh under way lists them
        asked = self._asked.setdefault(event.room, set())
        unlisted = {message.sender.id for message in event.messages} - members - asked
        if unlisted:
            asked |= unlisted
            self._kick.set()

    async def refresh(self, request: Requester, room: str) -> None:
        reply = await request(Roster(room=room), RosterList)
        assert isinstance(reply, RosterList)
        self._members[room] = frozenset(entry.id for entry in reply.entries)
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
