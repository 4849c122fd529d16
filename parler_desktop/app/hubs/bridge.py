"""SessionBridge: the one QObject between a HubSession (plain asyncio) and the Qt world.

The session calls its listeners synchronously on the event loop, which under qasync is the Qt
thread, so each event is re-emitted at once as a typed signal. Models and widgets observe this
object, never the session; user actions go back through it and run under the task supervisor.

One event is not a signal: pushed messages not stored yet (``MessagesArrived``) are on their way
to the screen, and a Qt signal to a Python slot cost ~50 µs of that way on an idle machine
(``bench/bench_push.py``'s stages), so they go to plain callbacks (``on_arrival``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from parler_desktop.client.events import (
    ConnectionState,
    CursorChanged,
    MessagesArrived,
    MessagesPulled,
    MessagesStored,
    Notice,
    OutboxChanged,
    OutboxItem,
    PullsOver,
    RoomsChanged,
    RosterChanged,
    SessionEvent,
    StateChanged,
    StoreFailed,
)
from parler_desktop.client.errors import SessionClosed
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.protocol.frames import Invited, Joined, JoinPending, JoinResolved
from parler_desktop.protocol.values import JoinRequest
from parler_desktop.store import StoreError, StoreProblem


def why_not_posted(error: Exception) -> str:
    """The composer's line for a message that could not be written to the outbox."""
    if isinstance(error, StoreError) and error.problem is StoreProblem.DISK_FULL:
        return "Not sent: the disk is full — free some space, then press Send again."
    return f"Not sent: {error}"


class SessionBridge(QObject):
    sessionChanged = Signal()  # a different session (hub or identity) is now attached, or none
    stateChanged = Signal(object)  # StateChanged
    messagesPulled = Signal(str, object)  # room, tuple[StoredMessage, ...]: pulled, not stored yet
    pullsOver = Signal()  # every page of a pass of pulls was announced
    messagesStored = Signal(str, object, bool)  # room, tuple[StoredMessage, ...], live
    roomsChanged = Signal(object)  # tuple[RoomInfo, ...]
    cursorChanged = Signal(str, int)
    rosterChanged = Signal(str, object)  # room, tuple[RosterEntry, ...]
    outboxChanged = Signal(object)  # OutboxItem
    notice = Signal(str, str)  # text, room ("" when not about one room)
    storeFailed = Signal(object)  # StoreError: the session is OFFLINE until "retry now"

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Owns every coroutine the window starts; a crash becomes a notice, not a lost traceback.
        self.tasks = TaskSupervisor("window", self._task_failed)
        self.writes = TaskSupervisor("keep", self._task_failed)  # ``keep``'s: finished, never cancelled
        self._session: Any = None
        self._heard: weakref.WeakSet = weakref.WeakSet()  # sessions this bridge listens to (once each)
        self.last_state: StateChanged | None = None
        self._arrival_handlers: list[weakref.WeakMethod] = []

    def _task_failed(self, name: str, error: BaseException) -> None:
        self.notice.emit(f"{name} failed: {error}", "")

    def keep(self, name: str, write: Callable[..., Any], *args: Any) -> None:
        """Write what the human did (``write(store, *args)``) to the session's store, if any: the
        window awaits these writes (``writes.finish_all``) before it lets go of the store, and
        never cancels them, so a decision taken just before quitting is there at the next start
        (cancelled with the window's tasks, it was lost when the store's thread was busy)."""
        if self.store is not None:
            self.writes.spawn(name, self.store.call(write, *args))

    def on_arrival(self, handler: Callable[[str, Sequence[Any]], None]) -> None:
        """Call the QObject's method ``handler(room, messages)`` with pushed messages not stored
        yet, while its object lives (see the module docstring for why this is not a signal)."""
        self._arrival_handlers.append(weakref.WeakMethod(handler))  # type: ignore[arg-type]

    def _arrived(self, room: str, messages: Sequence[Any]) -> None:
        for reference in list(self._arrival_handlers):
            handler = reference()
            if handler is None or not shiboken6.isValid(handler.__self__):
                self._arrival_handlers.remove(reference)  # its object is gone, as a connection would be
            else:
                handler(room, messages)

    # -- the attached session -------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self._session

    @property
    def store(self) -> Any:
        """The session's StoreWorker (reads for the models), or None before a session exists."""
        return None if self._session is None else self._session.store

    @property
    def agent_id(self) -> str:
        return "" if self._session is None else self._session.agent_id

    @property
    def name(self) -> str:
        return "" if self._session is None else self._session.name

    @property
    def role(self) -> str | None:
        return None if self._session is None else self._session.role

    @property
    def hub_url(self) -> str:
        return "" if self._session is None else self._session.hub_url

    def attach(self, session: Any, state: StateChanged | None = None) -> None:
        """Follow ``session`` from now on: a new one should not be started yet, so no event is
        missed; one already running (another hub's, shown in the window) comes with its last
        ``state``. A session followed before is not listened to twice."""
        self._session = session
        self.last_state = state
        if session not in self._heard:
            self._heard.add(session)
            session.add_listener(lambda event: self._deliver(session, event))
        self.sessionChanged.emit()
        if state is not None:
            self.stateChanged.emit(state)

    def detach(self) -> Any:
        session, self._session = self._session, None
        self.last_state = None
        self.sessionChanged.emit()
        return session

    def _deliver(self, session: Any, event: SessionEvent) -> None:
        if session is not self._session:
            return  # a replaced session still winding down
        if isinstance(event, StateChanged):
            self.last_state = event
            self.stateChanged.emit(event)
        elif isinstance(event, MessagesArrived):
            self._arrived(event.room, event.messages)
        elif isinstance(event, MessagesPulled):
            self.messagesPulled.emit(event.room, event.messages)
        elif isinstance(event, PullsOver):
            self.pullsOver.emit()
        elif isinstance(event, MessagesStored):
            self.messagesStored.emit(event.room, event.messages, event.live)
        elif isinstance(event, RoomsChanged):
            self.roomsChanged.emit(event.rooms)
        elif isinstance(event, CursorChanged):
            self.cursorChanged.emit(event.room, event.cursor)
        elif isinstance(event, RosterChanged):
            self.rosterChanged.emit(event.room, event.entries)
        elif isinstance(event, OutboxChanged):
            self.outboxChanged.emit(event.item)
        elif isinstance(event, Notice):
            self.notice.emit(event.text, event.room or "")
        elif isinstance(event, StoreFailed):
            self.storeFailed.emit(event.error)

    @property
    def is_live(self) -> bool:
        return self.last_state is not None and self.last_state.state is ConnectionState.LIVE

    @property
    def is_sending(self) -> bool:
        """The session's outbox is sending: from the handshake on, through a catch-up, not only live."""
        return self.last_state is not None and self.last_state.state in (ConnectionState.CATCHING_UP, ConnectionState.LIVE)

    # -- actions (each runs as a supervised task; failures surface as notices) ---------------
    async def post(
        self,
        room: str,
        text: str,
        mentions: Sequence[str] = (),
        reply_to: str | None = None,
        extra_parts: Sequence[dict] = (),
        session: Any = None,
        target: Any = None,
    ) -> OutboxItem:
        """Write the message to the outbox of ``session`` (default: the attached one; a caller
        that took the session when the human pressed Enter names it, so the post goes to that
        hub even if the window shows another meanwhile); returns once it is on disk (it is sent
        in the background). ``target``: a service or DM target instead of ``room``
        (``HubSession.post``). Raises StoreError (e.g. the disk is full), ValueError (a message
        the hub would refuse) or SessionClosed: the caller keeps the human's text until this
        returns."""
        return await (session or self._require_session()).post(
            room, text, mentions=tuple(mentions), reply_to=reply_to, extra_parts=tuple(extra_parts), target=target
        )

    def retry_outbox(self, client_id: str) -> None:
        if self._session is not None:
            self.tasks.spawn("retry", self._session.retry_outbox(client_id))

    def discard_outbox(self, client_id: str) -> None:
        if self._session is not None:
            self.tasks.spawn("discard", self._session.discard_outbox(client_id))

    def mark_read(self, room: str, seq: int) -> None:
        if self._session is not None:
            self.tasks.spawn("mark read", self._session.mark_read(room, seq))

    def watch_roster(self, rooms: Sequence[str]) -> None:
        """Keep these rooms' rosters fresh (the session refreshes them now and periodically)."""
        if self._session is not None:
            self._session.watch_roster(rooms)

    def reconnect_now(self) -> None:
        if self._session is not None:
            self._session.reconnect_now()

    def notify_network_changed(self) -> None:
        if self._session is not None:
            self._session.notify_network_changed()

    def notify_wake(self) -> None:
        if self._session is not None:
            self._session.notify_wake()

    async def refresh_roster(self, room: str) -> None:
        """Fetch ``room``'s roster once; it arrives as ``rosterChanged``."""
        await self._require_session().refresh_roster(room)

    async def invite(self, kind: str, room: str, require_approval: bool = False) -> Invited:
        """Mint an invite (creating the room if it is new); the session refreshes the room list.
        With ``require_approval`` a redeemer only asks to join; the room's owner approves it."""
        return await self._require_session().invite(kind, room, require_approval=require_approval)

    async def redeem(self, code: str) -> Joined | JoinPending:
        return await self._require_session().redeem(code)

    async def join_requests(self, room: str, *, urgent: bool = True) -> tuple[JoinRequest, ...]:
        """Who waits for our approval to join ``room`` (we must own it), oldest first;
        ``urgent``: the human asked (not a poll)."""
        return await self._require_session().join_requests(room, urgent=urgent)

    async def resolve_join(self, room: str, agent: str, approve: bool) -> JoinResolved:
        return await self._require_session().resolve_join(room, agent, approve)

    async def message_agent(self, agent: str, text: str) -> OutboxItem:
        """``text`` to ``agent``'s DM, made by the hub when need be, through the outbox as any post
        (``HubSession.message_agent``): on disk on return; raises as ``post`` does."""
        return await self._require_session().message_agent(agent, text)

    async def pull_older(self, room: str, before: int) -> int:
        return await self._require_session().pull_older(room, before)

    def _require_session(self) -> Any:
        if self._session is None:
            raise SessionClosed("not connected to a hub")
        return self._session
