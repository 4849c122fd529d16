"""``EmbeddedHub``: a Hub on its own thread and event loop, for the desktop window and tests.

The caller's loop (Qt's, or a test's) never runs hub work, so neither can stall the other.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from parler_desktop.hub.config import HubConfig
from parler_desktop.hub.event_loop import new_hub_loop
from parler_desktop.hub.server import Hub

START_TIMEOUT_SECS = 30


class EmbeddedHub:
    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self.hub = Hub(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return self.hub.url

    def start(self) -> str:
        """Start listening; returns the WebSocket URL. Raises what ``Hub.start`` raised."""
        if self._thread is not None:
            return self.hub.url
        loop = new_hub_loop()
        thread = threading.Thread(target=loop.run_forever, name="embedded-hub", daemon=True)
        thread.start()
        started = asyncio.run_coroutine_threadsafe(self.hub.start(), loop)
        try:
            started.result(START_TIMEOUT_SECS)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        self._loop, self._thread = loop, thread
        return self.hub.url

    def stop(self) -> None:
        if self._loop is None or self._thread is None:
            return
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        try:
            asyncio.run_coroutine_threadsafe(self.hub.stop(), loop).result(START_TIMEOUT_SECS)
        except concurrent.futures.TimeoutError:
            pass
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
