"""The asyncio loop the window runs on: qasync's, with ``call_soon`` as cheap as asyncio's own.

Every wake-up of a waiting task is a ``call_soon``: a pushed message takes a few on its way from
the socket to the screen. qasync's checks each callback with ``inspect`` and logs it at debug
level, some thirty Python calls; asyncio does neither outside its debug mode, and neither does
this loop (the callback still runs on the next turn of Qt's loop, in order).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import Context
from typing import Any

import qasync


class AppEventLoop(qasync.QEventLoop):
    def call_soon(self, callback: Callable[..., Any], *args: Any, context: Context | None = None) -> asyncio.Handle:
        if self.get_debug():
            return super().call_soon(callback, *args, context=context)
        return self._add_callback(asyncio.Handle(callback, args, self, context=context))
