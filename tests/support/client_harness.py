"""Helpers for client and CLI tests: sessions on a throwaway store, and an event log to wait on.

Import the ``session_factory`` fixture into a test module to use it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from parler_desktop.client import HubSession, SessionTuning
from parler_desktop.client.events import (
    ConnectionState,
    MessagesStored,
    OutboxChanged,
    SessionEvent,
    StateChanged,
)
from parler_desktop.identity import Identity
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import StoreWorker

# Timings small enough for tests, large enough not to trip on a loaded 2-core machine.
FAST = SessionTuning(
    heartbeat_secs=1.0,
    heartbeat_jitter_secs=0.2,
    pong_timeout_secs=2.0,
    reply_timeout_secs=5.0,
    open_timeout_secs=5.0,
    backoff_base_secs=0.05,
    backoff_cap_secs=0.5,
    reconcile_secs=1.0,
    poll_secs=0.3,
    quiet_secs=0.2,
    roster_secs=1.0,
)


class EventLog:
    """Every event a session emitted, plus a way to wait until they satisfy a condition."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []
        self._changed = asyncio.Event()

    def __call__(self, event: SessionEvent) -> None:
        self.events.append(event)
        self._changed.set()

    def of(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]

    def messages(self, room: str | None = None) -> list[StoredMessage]:
        return [
            message
            for event in self.of(MessagesStored)
            if room is None or event.room == room
            for message in event.messages
        ]

    def states(self) -> list[ConnectionState]:
        return [event.state for event in self.of(StateChanged)]

    def outbox(self, client_id: str) -> list[OutboxChanged]:
        return [event for event in self.of(OutboxChanged) if event.item.client_id == client_id]

    async def wait_until(self, condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition():
            remaining = deadline - loop.time()
            if remaining <= 0:
                tail = "\n  ".join(repr(event)[:200] for event in self.events[-15:])
                raise AssertionError(f"timed out waiting for {what}; last events:\n  {tail}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass

    async def wait_state(self, state: ConnectionState, count: int = 1, timeout: float = 15.0) -> None:
        await self.wait_until(lambda: self.states().count(state) >= count, f"{count}× {state}", timeout)


async def wait_for(condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    """Poll ``condition`` (for things no event announces, e.g. another process's output)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


SessionFactory = Callable[..., Any]


@pytest.fixture
async def session_factory(tmp_path: Path) -> AsyncIterator[SessionFactory]:
    """``await session_factory(url, name=..., tuning=..., identity=..., store_path=...)`` →
    ``(session, log)``, started; every session is stopped and its store closed at teardown."""
    opened: list[tuple[HubSession, StoreWorker]] = []

    async def make(
        url: str,
        *,
        name: str = "human",
        identity: Identity | None = None,
        store_path: Path | None = None,
        start: bool = True,
        **kwargs: Any,
    ) -> tuple[HubSession, EventLog]:
        kwargs.setdefault("tuning", FAST)
        store = StoreWorker(store_path or tmp_path / f"store-{len(opened)}.sqlite3")
        await store.open()
        session = HubSession(url, identity or Identity.generate(), store, name=name, **kwargs)
        log = EventLog()
        session.add_listener(log)
        opened.append((session, store))
        if start:
            session.start()
        return session, log

    yield make
    for session, store in reversed(opened):
        await session.stop()
        await store.close()
