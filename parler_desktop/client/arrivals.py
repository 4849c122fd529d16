"""Pushed messages shown before they are stored: a quiet room's push is on screen a store round
trip sooner (the write to the local store costs ~0.7 ms, the paint about as much again).

Showing is not acknowledging (design.md §3): a message is announced as ``MessagesArrived`` as it
is read off the socket, then written and announced again as ``MessagesStored``. The hub cursor
still moves only up to the room's sync mark, which covers stored messages alone, so a row shown
early is never acked before its write lands; if the write fails (a full disk) the row stays on
screen unread, and the catch-up after "retry now" stores it. ``up_to`` is how far the human may
have seen a room: read markers take a seen seq up to it, so an ack wanted for a row shown before
its write landed is kept until the sync mark passes it.

The announced messages come with their signature verdict, checked here on the event loop (about
0.06 ms for a signed message), so an early row looks exactly as it will once stored; the store
keeps that verdict rather than checking again. Only a few messages at once are shown early: a
burst is paced a frame at a time anyway, and its signatures are checked on the store's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from parler_desktop.client.events import MessagesArrived, SessionEvent
from parler_desktop.client.sync import group_by_room
from parler_desktop.protocol.values import SignatureState, StoredMessage

SHOWN_AT_ONCE = 4  # more pushes read at once than this are a burst: they wait for the store


class Arrivals:
    def __init__(
        self, emit: Callable[[SessionEvent], None], signature_of: Callable[[StoredMessage], SignatureState]
    ) -> None:
        self._emit = emit
        self._signature_of = signature_of
        self._newest: dict[str, int] = {}

    def announce(self, messages: Sequence[StoredMessage]) -> list[StoredMessage]:
        """Announce a few pushed messages (with their verdicts) before they are stored; returns
        the messages to store (announced ones carry their verdict)."""
        if not messages or len(messages) > SHOWN_AT_ONCE:
            return list(messages)
        checked = sorted((m.with_signature(self._signature_of(m)) for m in messages), key=lambda m: m.seq)
        for room, arrived in group_by_room(checked).items():
            self._newest[room] = max(self._newest.get(room, 0), arrived[-1].seq)
            self._emit(MessagesArrived(room, tuple(arrived)))
        return checked

    def up_to(self, room: str) -> int:
        """The newest seq of ``room`` announced before it was stored (0: none)."""
        return self._newest.get(room, 0)
