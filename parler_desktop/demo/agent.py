"""One scripted agent: its own identity and WebSocket, speaking the real protocol to the hub.

Nothing is faked on the way to the window: the agent signs its messages like any agent
(``com.parler.sig``), invites and redeems through the hub, uploads files as blobs and sets its
presence, so what the supervisor watches is exactly what a real agent would produce.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from typing import Any

from parler_desktop.client.connection import HubConnection, ReplyKind, expect
from parler_desktop.client.outbox import build_item
from parler_desktop.identity import Identity
from parler_desktop.protocol import StoredMessage
from parler_desktop.protocol.frames import (
    ClientFrame, Invite, Invited, Joined, JoinPending, Presence, PresenceOk, PutBlob, Redeem, Send, Sent, Subscribe, Subscribed,
)
from parler_desktop.protocol.parts import FileRef, Handoff, TaskStatus
from parler_desktop.protocol.values import Part, RoomTarget

log = logging.getLogger(__name__)

TIMEOUT = 15.0


class DemoAgent:
    def __init__(self, name: str, role: str, identity: Identity, connection: HubConnection) -> None:
        self.name = name
        self.role = role
        self.identity = identity
        self._connection = connection

    @classmethod
    async def connect(cls, url: str, name: str, role: str, identity: Identity, join_secret: str | None = None) -> "DemoAgent":
        """Dial and prove the identity; raises the client's errors (HubUnreachable, HandshakeRefused, …)."""
        connection = await HubConnection.open(url, open_timeout=TIMEOUT, on_notice=lambda text: log.info("%s: %s", name, text))
        try:
            await connection.handshake(identity, name, role, join_secret, timeout=TIMEOUT)
        except BaseException:
            await connection.close()
            raise
        return cls(name, role, identity, connection)

    async def close(self) -> None:
        await self._connection.close()

    async def _ask(self, frame: ClientFrame, kind: ReplyKind, op: str) -> Any:
        """The reply to ``frame`` if it is a ``kind``; an error reply raises HubRefused."""
        return expect(await self._connection.request(frame, timeout=TIMEOUT), kind, op)

    async def open_room(self, room: str) -> Invited:
        """A code for ``room`` (created on first use; any member may mint more)."""
        return await self._ask(Invite(kind="channel", room=room), Invited, "invite")

    async def join(self, code: str) -> Joined | JoinPending:
        return await self._ask(Redeem(code=code), (Joined, JoinPending), "redeem")

    async def post(
        self, room: str, text: str = "", *, parts: Sequence[Part] = (), mentions: Sequence[str] = (), reply_to: str | None = None
    ) -> Sent:
        """Signed as the window signs the human's posts (``build_item``), sent at once."""
        item = build_item(self.identity, room, text, mentions=mentions, reply_to=reply_to, extra_parts=parts, created_at=time.time())
        frame = Send(target=RoomTarget(room), parts=item.parts, mentions=item.mentions or None, reply_to=reply_to, client_id=item.client_id)
        return await self._ask(frame, Sent, "send")

    async def task(self, room: str, task: str, status: str, note: str | None = None, text: str = "") -> Sent:
        return await self.post(room, text, parts=[TaskStatus(status=status, task=task, note=note).to_part()])

    async def hand_off(self, room: str, to: str, next_step: str, summary: str, text: str = "") -> Sent:
        return await self.post(room, text, parts=[Handoff(next=next_step, summary=summary, to=to).to_part()], mentions=[to])

    async def share(self, room: str, name: str, data: bytes, media_type: str, summary: str, text: str = "") -> Sent:
        digest = hashlib.sha256(data).hexdigest()
        await self._connection.put_blob(PutBlob(target=RoomTarget(room), sha256=digest, size=len(data), media_type=media_type), data, timeout=TIMEOUT)
        ref = FileRef(blob=digest, name=name, size=len(data), media_type=media_type, summary=summary)
        return await self.post(room, text, parts=[ref.to_part()])

    async def presence(self, status: str, activity: str | None = None) -> None:
        await self._ask(Presence(status=status, activity=activity), PresenceOk, "presence")

    async def subscribe(self) -> None:
        """Have the hub push every new message in this agent's rooms (``delivery`` frames)."""
        await self._ask(Subscribe(), Subscribed, "subscribe")

    async def messages(self) -> list[StoredMessage]:
        """The next pushed messages (waits for at least one; needs ``subscribe`` first)."""
        return await self._connection.deliveries.wait()
