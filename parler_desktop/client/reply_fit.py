"""Whether a hub's reply fits the request it answers (issue 47: a hub is a stranger).

The hub answers each request with one reply, in order (protocol.md §1.4). A reply of another
type, or about another room, is not an answer we can use, however well formed: taken as one, a
page of another room moved the sync mark of the room asked for, and a ``pong`` for a ``send``
crashed the outbox. It is the hub's fault (``OutOfTurn``): nothing of it is taken, and the
connection it came on is dropped (``HubConnection.reject``), so the session reconnects with
backoff. An ``error`` frame is the hub's refusal (``HubRefused``); a frame that cannot be read
is ``BadReply``, left to the request's owner (a room's page is then refused with a notice).
"""

from __future__ import annotations

from parler_desktop.client.errors import BadReply, HubRefused, OutOfTurn
from parler_desktop.protocol.frames import (
    ClientFrame,
    DeleteRoom,
    ErrorFrame,
    HubFrame,
    JoinRequests,
    Malformed,
    Pull,
    Pulled,
    ResolveJoin,
    Roster,
    Send,
    UnknownFrame,
)
from parler_desktop.protocol.values import RoomTarget

Reply = HubFrame | Malformed | UnknownFrame | bytes
ReplyKind = type[HubFrame] | tuple[type[HubFrame], ...]

ROOM_REQUESTS = (Pull, Roster, JoinRequests, ResolveJoin, DeleteRoom)  # a ``room`` the reply names again


def expect(reply: Reply, kind: ReplyKind, op: str) -> HubFrame:
    """``reply`` if it is a ``kind`` (or one of them); an error frame raises HubRefused, one that
    cannot be read BadReply, any other frame OutOfTurn."""
    if isinstance(reply, kind):
        return reply
    if isinstance(reply, ErrorFrame):
        raise HubRefused(reply.message, reply.code, op)
    if isinstance(reply, Malformed):
        raise BadReply(f"the hub's reply to {op} could not be read: {reply.reason}")
    raise OutOfTurn(f"the hub answered {op} with {describe(reply)}")


def fitting(frame: ClientFrame, reply: Reply, kind: ReplyKind) -> HubFrame:
    """``reply`` as the answer to ``frame`` (``expect``), or OutOfTurn when it is about another
    room than ``frame`` asked about."""
    answer = expect(reply, kind, frame.TAG)
    asked = asked_room(frame)
    answered = getattr(answer, "room", None)
    if asked is not None and isinstance(answered, str) and answered != asked:
        raise OutOfTurn(f"the hub answered {frame.TAG} for room {asked!r} with a {answer.TAG} of room {answered!r}")
    if isinstance(answer, Pulled):
        stray = next((message for message in answer.messages if message.room != answer.room), None)
        if stray is not None:
            raise OutOfTurn(f"the hub's page of room {answer.room!r} holds #{stray.seq} of room {stray.room!r}")
    return answer


def asked_room(frame: ClientFrame) -> str | None:
    """The room a request is about, which its reply must name (None: it names none)."""
    if isinstance(frame, ROOM_REQUESTS):
        return frame.room
    if isinstance(frame, Send) and isinstance(frame.target, RoomTarget):
        return frame.target.room
    return None


def describe(frame: HubFrame | Malformed | UnknownFrame | bytes) -> str:
    """A frame as a log line names it: "a pong", "an unknown frame 'x'", "bytes"."""
    if isinstance(frame, bytes):
        return f"a binary frame of {len(frame)} bytes"
    if isinstance(frame, Malformed):
        return f"a malformed frame ({frame.reason})"
    if isinstance(frame, UnknownFrame):
        return f"an unknown frame {frame.tag!r}"
    return f"{'an' if frame.TAG[:1] in 'aeiou' else 'a'} {frame.TAG!r}"
