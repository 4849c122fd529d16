"""SIGINT and SIGTERM as a call on the running asyncio loop, on every OS.

asyncio's ``loop.add_signal_handler`` is Unix-only: Windows' loops raise NotImplementedError
(asyncio's "Platform Support" page). There ``signal.signal`` serves instead; its handler, run in
the main thread, hands the call to the loop, which Ctrl+C wakes (asyncio's loops watch Python's
wake-up fd). SIGTERM is never delivered on Windows (TerminateProcess ends a process outright).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def calling_on_signals(callback: Callable[[], Any], signals: tuple[int, ...] = STOP_SIGNALS) -> Iterator[None]:
    """While inside, each of ``signals`` calls ``callback`` on the running loop; then as before."""
    loop = asyncio.get_running_loop()
    try:
        for signum in signals:
            loop.add_signal_handler(signum, callback)
    except NotImplementedError:  # Windows
        with _python_handlers(loop, callback, signals):
            yield
        return
    try:
        yield
    finally:
        for signum in signals:
            loop.remove_signal_handler(signum)


@contextlib.contextmanager
def _python_handlers(loop: asyncio.AbstractEventLoop, callback: Callable[[], Any], signals: tuple[int, ...]) -> Iterator[None]:
    def handler(_signum: int, _frame: object) -> None:
        loop.call_soon_threadsafe(callback)

    previous = {signum: signal.signal(signum, handler) for signum in signals}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)
