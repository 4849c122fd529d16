"""The asyncio loop the window runs on: qasync's, with asyncio's costs where qasync adds its own.

A pushed message wakes a few callbacks on its way from the socket to the screen, and qasync made
each dearer than asyncio does:

- ``call_soon`` went through ``call_later``, which checks every callback with ``inspect`` and
  logs it at debug level (some thirty Python calls); asyncio checks callbacks only in debug mode.
- A ready socket's callback was put off to the next turn of Qt's loop (a zero timer); asyncio
  runs it in the turn that found the socket ready, and so does this loop (with asyncio's error
  handling: an exception goes to the loop's exception handler).

The second overrides a private method of qasync (``pyproject.toml`` bounds its version, and
``tests/test_event_loop.py`` fails if the hook stops being called).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import Context
from typing import Any

import qasync
from PySide6.QtCore import QSocketNotifier


class AppEventLoop(qasync.QEventLoop):
    def call_soon(self, callback: Callable[..., Any], *args: Any, context: Context | None = None) -> asyncio.Handle:
        if self.get_debug():
            return super().call_soon(callback, *args, context=context)
        return self._add_callback(asyncio.Handle(callback, args, self, context=context))

    def _QEventLoop__on_notifier_ready(
        self, notifiers: dict[int, QSocketNotifier], notifier: QSocketNotifier, fd: int, callback: Callable[..., Any], args: tuple
    ) -> None:
        """qasync's hook for a ready socket: run its callback now (qasync's wrapper enables the
        notifier again afterwards unless the callback replaced or removed it).

        The callback runs inside the notifier's own signal: one that closes the socket drops
        qasync's reference to the notifier, which must outlive the signal, so a callback on the
        next turn holds it until then."""
        notifier.setEnabled(False)
        if notifiers.get(fd) is notifier:
            asyncio.Handle(self._QEventLoop__notifier_cb_wrapper, (notifiers, notifier, fd, callback, args), self)._run()
        if notifiers.get(fd) is not notifier:
            self.call_soon(_release, notifier)


def _release(_notifier: QSocketNotifier) -> None:
    """Drops the last reference to a notifier, a turn after its signal."""
