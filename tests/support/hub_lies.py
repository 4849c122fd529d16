"""Lies a hostile hub tells in its replies (issue 47, items 1, 2, 4a), and its flood of unreadable
pushes, as ``Misbehaviour``s of ``hostile_hub.py``; the client, command and window tests share them.

Each lies ``times`` times (None: until a test sets ``times = None`` to ``lies``, ``stop()``) and
counts its lies in ``lies``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

from support.hostile_hub import Link, Misbehaviour

FLOOD = 20_000
FRAGMENT = 64 * 1024  # of a blob's bytes sent by ``BlobBody``


class Lie(Misbehaviour):
    def __init__(self, times: int | None = 1) -> None:
        self.times = times
        self.lies = 0

    def lying(self) -> bool:
        return self.times is None or self.lies < self.times

    def told(self) -> None:
        self.lies += 1

    def stop(self) -> None:
        self.times = self.lies


def fake_message(seq: int, room: str, text: str) -> dict:
    return {"seq": seq, "id": f"fake-{seq}", "room": room, "from": {"id": "UFAKE", "name": "mallory"},
            "parts": [{"kind": "text", "text": text}], "ts": 1_700_000_000_000}


class PageOfAnotherRoom(Lie):
    """A pull of 'team' is answered with a page of room 'other' (the hub never sees the pull)."""

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "pull" and frame.get("room") == "team" and frame.get("limit") and self.lying():
            self.told()
            messages = [fake_message(900 + n, "other", f"other {n}") for n in range(5)]
            return [{"type": "pulled", "room": "other", "messages": messages, "cursor": 0}]
        return None


class PongForSend(Lie):
    """A ``send`` never reaches the hub: it is answered with a ``pong``."""

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "send" and self.lying():
            self.told()
            return [{"type": "pong"}]
        return None


class StaleSent(Misbehaviour):
    """Every ``send`` after the first is answered, on the first connection, with the first's ``sent``."""

    def __init__(self) -> None:
        self.first: dict | None = None

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "sent" and link.number == 1:
            if self.first is None:
                self.first = reply
            else:
                return [self.first]
        return [reply]


class SentButNotStored(Lie):
    """A ``send`` is answered with a ``sent`` of #6, which the hub never stored (nor saw)."""

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "send" and self.lying():
            self.told()
            return [{"type": "sent", "id": "never-stored", "seq": 6, "room": "team"}]
        return None


class AnotherAuthorsSeq(Lie):
    """A ``send`` reaches the hub, and its ``sent`` names the seq and id of another's message."""

    def __init__(self, seq: int, message_id: str, times: int | None = 1) -> None:
        super().__init__(times)
        self.claim = {"type": "sent", "id": message_id, "seq": seq, "room": "team"}

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "sent" and self.lying():
            self.told()
            return [self.claim]
        return [reply]


class StuckPage(Misbehaviour):
    """Every pull of 'team' after its first page gets that first page again (``reverse``: its
    messages in descending order, seqs going backwards); ``team_pulls`` counts them."""

    def __init__(self, reverse: bool = False) -> None:
        self.first: dict | None = None
        self.reverse = reverse
        self.team_pulls = 0

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") == "pull" and frame.get("room") == "team" and frame.get("limit"):
            self.team_pulls += 1
            if self.first is not None and frame.get("since"):
                return [self.first]
        return None

    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if request and request.get("room") == "team" and request.get("limit") and self.first is None:
            messages = reply["messages"][::-1] if self.reverse else reply["messages"]
            self.first = {**reply, "messages": messages}
            return [self.first]
        return [reply]


class MalformedFlood(Misbehaviour):
    """Right after the first connection's ``welcome``, ``FLOOD`` pushed messages the client
    cannot read; ``done`` once they are sent."""

    def __init__(self) -> None:
        self.done = threading.Event()

    def welcomed(self, link: Link):
        async def flood() -> None:
            for number in range(FLOOD):
                await link.to_client(f'{{"type":"delivery","message":{{"seq":"x{number}"}}}}')
                if number % 200 == 0:
                    await asyncio.sleep(0)
            self.done.set()

        return flood() if link.number == 1 else None


class SkippedSeqs(Misbehaviour):
    """Pushes of room 'team' whose seqs skip every other one, sent when a test calls ``push``;
    the hub never has the skipped ones (nor the pushed), so no pull ever fills the gaps."""

    def __init__(self) -> None:
        self.link: Link | None = None

    def welcomed(self, link: Link):
        self.link = link

    async def push_skipping(self, count: int, first: int = 1_000_001) -> None:
        assert self.link is not None
        deliveries = [{"type": "delivery", "message": fake_message(first + 2 * n, "team", f"pushed {n}")} for n in range(count)]
        for start in range(0, count, 100):
            await self.link.to_client(*deliveries[start:start + 100])


class BlobBody(Misbehaviour):
    """``get_blob`` answered by the hostile hub itself: ``blob_incoming`` announcing ``size``, then
    the pushes held until then (``hold_pushes``), then ``body`` as ``FRAGMENT``-byte fragments of
    one binary message; ``stall``: the message never ends (until the line closes)."""

    def __init__(self, size: int, body: bytes, stall: bool = False, hold_pushes: bool = False) -> None:
        self.size, self.body, self.stall, self.hold_pushes = size, body, stall, hold_pushes
        self.held: list[dict] = []

    def push(self, link: Link, delivery: dict) -> list:
        if not self.hold_pushes:
            return [delivery]
        self.held.append(delivery)
        return []

    def request(self, link: Link, frame: dict) -> list | None:
        if frame.get("op") != "get_blob":
            return None
        asyncio.ensure_future(self._send(link, frame["id"]))
        return []

    async def _send(self, link: Link, blob: str) -> None:
        async def fragments() -> Any:
            for start in range(0, len(self.body), FRAGMENT):
                yield self.body[start:start + FRAGMENT]
            if self.stall:
                await link.client.wait_closed()

        await link.to_client({"type": "blob_incoming", "id": blob, "size": self.size}, *self.held)
        with contextlib.suppress(Exception):  # (the client may drop the line: a stall's point)
            await link.client.send(fragments())
