"""Model and view tests without a network: a stand-in session over a real local store.

``StoreBackedSession`` has what the window's models use of a HubSession (its StoreWorker, who we
are, the typed events); tests write messages to the store the way the session does and then
announce them. Fixtures: ``store``, ``session``, ``bridge`` (needs ``qloop``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.qt_loop import run_coroutine

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.client.events import MessagesStored, SessionEvent
from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore, StoreWorker

ME = EndpointRef(id="UME", name="boss", role="supervisor")
ALICE = EndpointRef(id="UALICE", name="alice", role="planner")


def message(seq: int, room: str, text: str = "", sender: EndpointRef = ALICE, **fields: Any) -> StoredMessage:
    return StoredMessage(
        seq=seq,
        id=f"m{seq}",
        room=room,
        sender=sender,
        parts=({"kind": "text", "text": text or f"message {seq}"},),
        ts=1_700_000_000_000 + seq * 1000,
        **fields,
    )


class StoreBackedSession:
    def __init__(self, store: StoreWorker) -> None:
        self.store = store
        self.agent_id, self.name, self.role, self.hub_url = ME.id, ME.name, ME.role, "ws://127.0.0.1:1/ws"
        self._listeners: list[Callable[[SessionEvent], None]] = []
        self.watched: list[str] = []
        self.wakes = 0

    def add_listener(self, callback: Callable[[SessionEvent], None]) -> None:
        self._listeners.append(callback)

    def emit(self, event: SessionEvent) -> None:
        for callback in self._listeners:
            callback(event)

    def watch_roster(self, rooms: Sequence[str]) -> None:
        self.watched = list(rooms)

    def notify_wake(self) -> None:
        self.wakes += 1


@pytest.fixture
def store(qtbot, qloop, tmp_path: Path):
    worker = StoreWorker(tmp_path / "store.sqlite3")
    run_coroutine(qtbot, qloop, worker.open())
    yield worker
    run_coroutine(qtbot, qloop, worker.close())


@pytest.fixture
def session(store: StoreWorker) -> StoreBackedSession:
    return StoreBackedSession(store)


@pytest.fixture
def bridge(session: StoreBackedSession) -> SessionBridge:
    made = SessionBridge()
    made.attach(session)
    return made


def store_call(qtbot, qloop, store: StoreWorker, fn: Callable[..., Any], *args: Any) -> Any:
    return run_coroutine(qtbot, qloop, store.call(fn, *args))


def add_messages(qtbot, qloop, session: StoreBackedSession, messages: Sequence[StoredMessage], live: bool = True) -> None:
    """Write messages the way the session does (mentions of "boss" flagged), then announce them."""
    stored = store_call(
        qtbot, qloop, session.store, LocalStore.insert_messages, messages, lambda m: ME.name in (m.mentions or ())
    )
    by_room: dict[str, list[StoredMessage]] = {}
    for m in stored:
        by_room.setdefault(m.room, []).append(m)
    for room, batch in by_room.items():
        session.emit(MessagesStored(room, tuple(batch), live))
