"""A minimal raw-JSON Parler agent for hub tests: they test the wire, not our client.

``RawAgent`` keeps deliveries apart from replies (§1.4 demultiplexing) so a test can wait for a
reply and, separately, for a pushed delivery.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from parler_desktop.identity import Identity
from parler_desktop.protocol.canonical import canonical_card_bytes
from parler_desktop.protocol.values import AgentCard

REPLY_TIMEOUT = 10.0


class RawAgent:
    def __init__(self, ws: ClientConnection, identity: Identity, name: str) -> None:
        self.ws = ws
        self.identity = identity
        self.name = name
        self.deliveries: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._replies: asyncio.Queue[dict[str, Any] | bytes] = asyncio.Queue()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @property
    def id(self) -> str:
        return self.identity.agent_id

    @classmethod
    async def open(
        cls, url: str, identity: Identity | None = None, name: str = "agent", source: str | None = None
    ) -> "RawAgent":
        """Connect without a handshake; ``source`` picks the local address (e.g. ``127.0.0.2``,
        another loopback address, to play a second machine)."""
        extra = {"local_addr": (source, 0)} if source is not None else {}
        ws = await connect(url, max_size=None, ping_interval=None, compression=None, open_timeout=10, **extra)
        return cls(ws, identity or Identity.generate(), name)

    @classmethod
    async def connect(
        cls,
        url: str,
        identity: Identity | None = None,
        name: str = "agent",
        role: str | None = None,
        secret: str | None = None,
    ) -> "RawAgent":
        """Connect and complete the handshake (raises AssertionError if it fails)."""
        agent = await cls.open(url, identity, name)
        welcome = await agent.handshake(role=role, secret=secret)
        assert welcome["type"] == "welcome", welcome
        return agent

    def hello(self, role: str | None = None, **extra: Any) -> dict[str, Any]:
        frame: dict[str, Any] = {"op": "hello", "id": self.id, "name": self.name}
        if role is not None:
            frame["role"] = role
        frame.update(extra)
        return frame

    async def handshake(self, role: str | None = None, secret: str | None = None) -> dict[str, Any]:
        """Unsigned hello, then the signed one; returns the hub's answer to the signed hello."""
        challenge = await self.request(self.hello(role))
        assert challenge["type"] == "challenge", challenge
        nonce = challenge["nonce"]
        signed = self.hello(role, nonce=nonce, sig=self.identity.sign(nonce.encode()))
        if secret is not None:
            signed["secret"] = secret
        return await self.request(signed)

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if isinstance(message, str):
                    frame = json.loads(message)
                    if frame.get("type") == "delivery":
                        self.deliveries.put_nowait(frame)
                        continue
                    self._replies.put_nowait(frame)
                else:
                    self._replies.put_nowait(message)
        except Exception:  # the socket ended; recv_* report it by timing out or seeing `closed`
            pass
        finally:
            self._replies.put_nowait({"type": "_closed"})

    async def send_text(self, text: str) -> None:
        await self.ws.send(text)

    async def send_bytes(self, data: bytes) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        """The next reply frame (deliveries excluded); ``{"type": "_closed"}`` once the socket ended."""
        item = await asyncio.wait_for(self._replies.get(), timeout)
        if isinstance(item, bytes):
            raise AssertionError(f"expected a text reply, got {len(item)} binary bytes")
        if item.get("type") == "_closed":
            self._replies.put_nowait(item)
        return item

    async def recv_bytes(self, timeout: float = REPLY_TIMEOUT) -> bytes:
        item = await asyncio.wait_for(self._replies.get(), timeout)
        if not isinstance(item, bytes):
            raise AssertionError(f"expected a binary frame, got {item}")
        return item

    async def request(self, frame: dict[str, Any], timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        await self.ws.send(json.dumps(frame))
        return await self.recv(timeout)

    async def ok(self, frame: dict[str, Any], expected_type: str | None = None) -> dict[str, Any]:
        """A request that must succeed (not an error; of ``expected_type`` when given)."""
        reply = await self.request(frame)
        assert reply["type"] != "error", (frame, reply)
        if expected_type is not None:
            assert reply["type"] == expected_type, (frame, reply)
        return reply

    async def register(self, name: str | None = None, **card: Any) -> dict[str, Any]:
        """Publish a signed private directory card (§7.14), as the reference MCP server does as it
        connects; ``card`` adds fields (role, description, tags, skills)."""
        wire = {"id": self.id, "name": self.name if name is None else name, "kind": "agent", "protocolVersion": "0.2", **card}
        sig = self.identity.sign(canonical_card_bytes(AgentCard.from_wire(wire)))
        return await self.ok({"op": "register", "card": wire, "sig": sig}, "registered")

    async def recv_delivery(self, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.deliveries.get(), timeout)
        return frame["message"]

    async def wait_closed(self, timeout: float = REPLY_TIMEOUT) -> None:
        await asyncio.wait_for(self.ws.wait_closed(), timeout)

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


async def make_room(owner: RawAgent, room: str, *members: RawAgent, **invite: Any) -> str:
    """``owner`` creates ``room`` and every member redeems an invite to it; returns the room name."""
    invited = await owner.ok({"op": "invite", "kind": "channel", "room": room, **invite}, "invited")
    for member in members:
        await member.ok({"op": "redeem", "code": invited["code"]}, "joined")
    return invited["room"]
