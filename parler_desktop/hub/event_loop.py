"""The hub's event loop: uvloop where it is installed (Linux and macOS), asyncio's own elsewhere.

Much of a hub's time goes to event-loop and socket work for frames it barely touches: uvloop
(libuv, in C) does that work for about 8% less CPU per send than asyncio's selector loop (the
hub's CPU per send under ``bench/bench_hub.py``'s load, medians of 24 interleaved rounds: 145
against 158 µs), CPU the desktop window's thread gets back while the embedded hub is busy. The
hub's code is the same on both; uvloop has no Windows build.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

try:
    import uvloop
except ImportError:  # Windows, or an install without it
    uvloop = None

T = TypeVar("T")
HUB_LOOP_NAME = "asyncio" if uvloop is None else "uvloop"


def new_hub_loop() -> asyncio.AbstractEventLoop:
    return uvloop.new_event_loop() if uvloop is not None else asyncio.new_event_loop()


def run_hub_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on a new hub loop."""
    with asyncio.Runner(loop_factory=new_hub_loop) as runner:
        return runner.run(main)
