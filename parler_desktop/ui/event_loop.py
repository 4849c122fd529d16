"""The asyncio loop the window runs on: qasync's, with asyncio's costs where qasync adds its own.

A pushed message wakes a few callbacks on its way from the socket to the screen (the WebSocket
reader, then the session's inbox), and qasync made each dearer than asyncio does:

- ``call_soon`` went through ``call_later``, which checks every callback with ``inspect`` and
  logs it at debug level (some thirty Python calls); asyncio checks callbacks only in debug mode.
- Each ready callback had a Qt timer of its own, and so a turn of Qt's loop of its own: the
  reader woken by a frame ran a turn after the socket was read, the session a turn after that.
  Here ready callbacks wait in one queue, as in asyncio: the callbacks a ready socket's callback
  makes ready run right after it, in the same turn, and so do the ones those make ready, for up
  to ``READY_BUDGET_SECS`` (then Qt gets its turn: input and painting are never held up longer
  than that, and a task that yields with ``sleep(0)`` lets Qt in). Callbacks made ready elsewhere
  (a Qt signal, a timer) run on the next turn, started by one zero-time timer; those made ready
  while the queue runs need none (starting it on a push's way was a call into Qt, and a wake-up
  later for an empty queue).
- A ready socket's callback was put off to the next turn of Qt's loop (a zero timer); asyncio
  runs it in the turn that found the socket ready, and so does this loop (with asyncio's error
  handling: an exception goes to the loop's exception handler).

Blocking calls (``asyncio.to_thread``, and the host name lookup of every connection to a hub
named by name) run on a ``ThreadPoolExecutor`` that closing the loop does not wait for, as
asyncio's own loop does not: qasync's executor made ``close()`` wait, and a lookup that a dead
network holds for many seconds (a laptop just woken) held the quitting app, with its home lock, so
that launching it again handed over to a window already gone. Calls still queued run all the
same (a settings write is never dropped); Python waits for them as the process exits.

The last overrides a private method of qasync (``pyproject.toml`` bounds its version, and
``tests/test_event_loop.py`` fails if the hook stops being called). In debug mode callbacks take
qasync's own (checked, logged) path.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import Context
from typing import Any

import qasync
from PySide6.QtCore import QSocketNotifier, QTimer

READY_BUDGET_SECS = 0.002  # ready callbacks run in one turn of Qt's loop for at most about this long


class AppEventLoop(qasync.QEventLoop):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ready: deque[asyncio.Handle] = deque()
        self._ready_timer: QTimer | None = QTimer(singleShot=True, interval=0)
        self._ready_timer.timeout.connect(self._run_ready)
        self._ready_timer_due = False  # the timer is started (a flag: asking it calls into Qt for each callback)
        self._draining = False  # the ready queue is being run (what call_soon adds runs in this turn)
        self._blocking_calls = ThreadPoolExecutor(thread_name_prefix="parler-blocking")
        self.set_default_executor(self._blocking_calls)

    def call_soon(self, callback: Callable[..., Any], *args: Any, context: Context | None = None) -> asyncio.Handle:
        if self.get_debug():
            return super().call_soon(callback, *args, context=context)
        handle = asyncio.Handle(callback, args, self, context=context)
        self._ready.append(handle)
        if not self._draining:  # (while draining, the queue is run before the turn ends)
            self._start_ready_timer()
        return handle

    def _start_ready_timer(self) -> None:
        if not self._ready_timer_due and self._ready_timer is not None:
            self._ready_timer_due = True
            self._ready_timer.start()

    def _run_ready(self) -> None:
        """Run the ready callbacks in order, those they make ready after them, until the queue
        is empty or the budget is spent (the timer then runs the rest on the next turn)."""
        self._ready_timer_due = False
        ready = self._ready
        ends = time.perf_counter() + READY_BUDGET_SECS
        draining, self._draining = self._draining, True
        try:
            while ready:  # (a callback that runs Qt's loop may run some of these inside it)
                handle = ready.popleft()
                if not handle._cancelled:
                    handle._run()
                if time.perf_counter() > ends:
                    break
        finally:
            self._draining = draining
        if ready:
            self._start_ready_timer()

    def close(self) -> None:
        """Close, then free what the loop's work left in reference cycles (a closed window and
        its widgets), while Python can still free it: closing is the app's last step before the
        interpreter exits, and the collection Python makes as it exits frees Qt value wrappers
        the wrong way. A row option's ``rect`` wrapper points into the option; freed then,
        shiboken passed that pointer to ``free()``, and one frozen ``self-test`` in five ended
        in "free(): invalid pointer" (SIGABRT) after it had passed."""
        self._blocking_calls.shutdown(wait=False)
        self.set_default_executor(None)  # or qasync's close() waits for the executor's threads
        super().close()
        if self._ready_timer is not None:
            self._ready_timer.stop()
            self._ready_timer = None
        self._ready.clear()
        gc.collect()

    def _QEventLoop__on_notifier_ready(
        self, notifiers: dict[int, QSocketNotifier], notifier: QSocketNotifier, fd: int, callback: Callable[..., Any], args: tuple
    ) -> None:
        """qasync's hook for a ready socket: run its callback now, at the head of the ready queue
        (qasync's wrapper enables the notifier again afterwards unless the callback replaced or
        removed it), then the queue with what it made ready.

        The callbacks run inside the notifier's own signal: one that closes the socket drops
        qasync's reference to the notifier, which must outlive the signal, so a callback on the
        next turn holds it until then."""
        notifier.setEnabled(False)
        if notifiers.get(fd) is notifier:
            self._ready.appendleft(asyncio.Handle(self._QEventLoop__notifier_cb_wrapper, (notifiers, notifier, fd, callback, args), self))
        self._run_ready()
        if notifiers.get(fd) is not notifier:  # (after the callbacks: they may close the socket too)
            self.call_soon(_release, notifier)


def _release(_notifier: QSocketNotifier) -> None:
    """Drops the last reference to a notifier, a turn after its signal."""
