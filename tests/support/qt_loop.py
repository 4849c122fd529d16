"""qasync under pytest-qt: one event loop (the app's ``AppEventLoop``) per test on pytest-qt's QApplication.

The loop is marked running without ``exec()``: ``qtbot.waitUntil`` processes Qt events, and with
them the loop's callbacks, timers and sockets. Tests import ``qloop`` and use ``run_coroutine``
to wait for a coroutine's result. Never combine it with pytest-asyncio's loop in one test.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Coroutine
from typing import Any

import pytest

from parler_desktop.ui.event_loop import AppEventLoop


@pytest.fixture
def qloop(qapp):
    loop = AppEventLoop(qapp, already_running=True)  # the window's loop
    asyncio.set_event_loop(loop)
    yield loop
    close_loop(qapp, loop)
    del loop
    # Collect the loop's Qt objects (its timer object sits in reference cycles) here, on the Qt
    # thread: a collection that happens to run on a hub or store thread later would destroy them
    # there, leaving a timer registered for a dead object.
    gc.collect()


def close_loop(qapp, loop: AppEventLoop) -> None:
    """Cancel the loop's tasks and those they start as they end (giving them up to 5 s), then close it, as the app does
    once its window is gone (idempotent)."""
    cancelled: set[asyncio.Task] = set()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pending = {task for task in asyncio.all_tasks(loop) if not task.done()}
        if not pending:
            break
        for task in pending - cancelled:  # (a task may start others as it ends: cancel those too)
            task.cancel()
        cancelled |= pending
        qapp.processEvents()
    asyncio.events._set_running_loop(None)
    loop._QEventLoop__is_running = False  # stop() would call QApplication.exit()
    loop.close()
    asyncio.set_event_loop(None)


def run_coroutine(qtbot, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], timeout: float = 10) -> Any:
    """Run ``coro`` on the qasync loop while Qt keeps processing events; return its result."""
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=int(timeout * 1000))
    return task.result()
