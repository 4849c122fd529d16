"""Store writes whose events must not be lost to a cancellation.

When a connection dies, the tasks serving it are cancelled. A store write already handed to the
store's thread completes anyway; if the event announcing it were emitted by the cancelled task,
it would never be emitted, and since the store returns only *new* rows, a later re-fetch would
not announce those messages either (the window would never show them). So the write and its
event run together in a task of their own that the caller's cancellation does not reach.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, Concatenate, ParamSpec, TypeVar

from parler_desktop.client.events import SessionEvent
from parler_desktop.client.tasks import TaskSupervisor, log_unheard_failure
from parler_desktop.store import LocalStore, StoreWorker

P = ParamSpec("P")
T = TypeVar("T")

class Committer:
    def __init__(self, store: StoreWorker, emit: Callable[[SessionEvent], None]) -> None:
        self._store = store
        self._emit = emit
        # A failed write reaches its caller (logged only if the caller was cancelled meanwhile,
        # and the failure was not the store's refusal, which the session reports itself).
        self._writes = TaskSupervisor("store-write", log_failures=False)

    async def __call__(
        self,
        write: Callable[Concatenate[LocalStore, P], T],
        *args: Any,
        announce: Callable[[T], Iterable[SessionEvent]],
        **kwargs: Any,
    ) -> T:
        """Run ``write(store, *args, **kwargs)``, then emit ``announce(result)``, even if we are
        cancelled meanwhile."""

        async def write_and_announce() -> T:
            result = await self._store.call(write, *args, **kwargs)
            for event in announce(result):
                self._emit(event)
            return result

        task = self._writes.spawn(write.__name__, write_and_announce())
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(log_unheard_failure)  # nobody is left to hear how it ended
            raise

    async def drain(self) -> None:
        """Wait for writes still running (before closing the store)."""
        pending = self._writes.tasks
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
