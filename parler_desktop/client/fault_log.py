"""Faults a hub causes, said once and then counted.

A hub that floods (20,000 unreadable or unsolicited frames a second) made a line for each: 638,330
lines on ``listen``'s stderr in 30 s, and the window's log rotated through all its files, losing
what came before. So the first fault of a kind is said at once, and the ones of that kind that
follow within ``REPEAT_WINDOW_SECS`` are counted and said as one line when the window ends (or
the session stops); a flood that goes on is one line per window. The session keeps one for all
its connections, and both the window and the commands hear it (as ``Notice``s).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

REPEAT_WINDOW_SECS = 10.0


@dataclass
class _Repeats:
    timer: asyncio.TimerHandle
    count: int = 0
    last: str = ""


class FaultLog:
    def __init__(self, say: Callable[[str], None], *, window_secs: float = REPEAT_WINDOW_SECS) -> None:
        """``say`` tells the person (the session's ``Notice``); each line is logged too."""
        self._say = say
        self._window_secs = window_secs
        self._repeats: dict[str, _Repeats] = {}

    def report(self, kind: str, text: str) -> None:
        """Say ``text``, unless a fault of ``kind`` was said less than a window ago: then count it."""
        repeats = self._repeats.get(kind)
        if repeats is not None:
            repeats.count += 1
            repeats.last = text
            return
        self._tell(text)
        self._open(kind)

    def flush(self) -> None:
        """Say every count still waiting for its window's end (the session stops)."""
        for kind in list(self._repeats):
            self._window_ended(kind, reopen=False)

    def _open(self, kind: str) -> None:
        timer = asyncio.get_running_loop().call_later(self._window_secs, self._window_ended, kind)
        self._repeats[kind] = _Repeats(timer)

    def _window_ended(self, kind: str, reopen: bool = True) -> None:
        repeats = self._repeats.pop(kind)
        repeats.timer.cancel()
        if repeats.count:
            self._tell(f"{repeats.last} ({repeats.count} more like this in {self._window_secs:g} s or less)")
            if reopen:
                self._open(kind)  # a flood that goes on is a line a window

    def _tell(self, text: str) -> None:
        log.info("%s", text)
        self._say(text)
