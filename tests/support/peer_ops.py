"""What a peer agent (a ``RawAgent``) does in client tests: invite, say something, read a room back
from the hub. One copy, so every test builds these frames the same way."""

from __future__ import annotations

from typing import Any


async def invite_code(agent: Any, room: str = "team") -> str:
    """A fresh channel invite code for ``room`` (created if new, owned by ``agent``)."""
    return (await agent.ok({"op": "invite", "kind": "channel", "room": room}, "invited"))["code"]


async def say(agent: Any, room: str, text: str) -> int:
    """Post ``text`` to ``room``; its seq."""
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": text}]}
    return (await agent.ok(frame, "sent"))["seq"]


async def hub_history(agent: Any, room: str = "team") -> list[dict]:
    """Every message the hub holds for ``room`` (up to a page of 1000), oldest first."""
    return (await agent.ok({"op": "pull", "room": room, "since": 0, "limit": 1000}, "pulled"))["messages"]


async def hub_seqs(agent: Any, room: str = "team") -> list[int]:
    return [message["seq"] for message in await hub_history(agent, room)]


async def member_of(hub_url: str, identity: Any, *codes: str) -> None:
    """Redeem ``codes`` as ``identity`` on a line of its own (before that identity's session starts)."""
    from support.raw_agent import RawAgent

    line = await RawAgent.connect(hub_url, identity=identity, name="human")
    try:
        for code in codes:
            await line.ok({"op": "redeem", "code": code}, "joined")
    finally:
        await line.close()
