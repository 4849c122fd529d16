"""Ownership of background tasks: every task has an owner that reports its failure and cancels it.

A bare ``asyncio.create_task`` can be garbage-collected mid-flight and its exception vanishes
into a "Task exception was never retrieved" log line; a supervisor keeps the reference, turns a
crash into a report the user sees, and cancels what is left on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from parler_desktop.store import StoreError

log = logging.getLogger(__name__)

FailureReporter = Callable[[str, BaseException], None]


def log_failure(task: asyncio.Task[Any]) -> None:
    """Log how a finished task failed (with its traceback); nothing if it did not."""
    if not task.cancelled() and task.exception() is not None:
        log.error("task %s failed", task.get_name(), exc_info=task.exception())


def log_unheard_failure(task: asyncio.Task[Any]) -> None:
    """For a store write whose awaiter was cancelled: log how it failed, unless the store refused
    it. A refused write keeps nothing of itself, and the refusal is the session's to report: its
    next write meets the same full disk or damaged file and says so once (``StoreFailed``), while
    a command stopping on one has said so already."""
    if not task.cancelled() and not isinstance(task.exception(), StoreError):
        log_failure(task)


class TaskSupervisor:
    """A named group of tasks that dies together."""

    def __init__(self, name: str, on_failure: FailureReporter | None = None, *, log_failures: bool = True) -> None:
        """``log_failures=False``: the tasks' awaiters handle their errors; do not log them too."""
        self.name = name
        self._on_failure = on_failure
        self._log_failures = log_failures
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, name: str, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Start ``coro`` on the running loop, owned by this supervisor."""
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.name}:{name}")
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            return
        if self._on_failure is not None and isinstance(error, StoreError):
            # A full disk or a damaged cache: the owner tells the user (StoreFailed) and waits
            # for "retry now". A logged trace would also open the "something went wrong" box.
            log.warning("task %s stopped: %s", task.get_name(), error)
        elif self._log_failures:
            log_failure(task)
        if self._on_failure is not None:
            self._on_failure(task.get_name(), error)

    @property
    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        return frozenset(self._tasks)

    async def finish_all(self) -> None:
        """Wait until every owned task has finished, cancelling none (failures are reported)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def cancel_all(self) -> None:
        """Cancel every owned task and wait until they have all finished."""
        current = asyncio.current_task()
        pending = [task for task in self._tasks if task is not current]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
