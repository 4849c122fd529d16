"""Opening, replacing and closing one hub's session, and what can go wrong on the way.

Each hub the window holds has one ``HubConnector``: it opens the hub's session (starting the
embedded hub first for ``""``), attaches it to the hub's ``HubEntry`` and starts it. Everything
that can fail (key file, store, address, secret file, port, a full disk, a damaged cache) is
said on that hub's own connection line and never touches the other hubs. A read-only store (a
full disk) reopens by itself once the disk has room again; a damaged cache is offered a fresh
start that keeps its unsent messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.client.cache_keeper import retention_of
from parler_desktop.client.session import HubSession
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import has_room_near, os_error_text
from parler_desktop.hub import HubDatabaseError
from parler_desktop.identity import KeyFileError
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings
from parler_desktop.store import LocalStore, StoreError

REOPEN_CHECK_SECS = 2.0  # how often a read-only hub checks whether the disk has room again

EmbeddedUrl = Callable[[], Awaitable[str]]  # starts the embedded hub if need be; its ws:// URL


class HubConnector:
    def __init__(
        self, entry: HubEntry, home: Home, embedded_url: EmbeddedUrl, before_drop: Callable[[HubEntry], Awaitable[None]],
        tell: Callable[[str], None],
    ) -> None:
        """``before_drop(entry)`` runs before a session is let go (the window saves the drafts
        typed into it and finishes writing what the human did); ``tell`` reports a sentence that belongs in the log and status bar."""
        self.entry = entry
        self._home = home
        self._embedded_url = embedded_url
        self._before_drop = before_drop
        self._tell = tell
        self._room_watch: tuple[HubSession, asyncio.Task] | None = None  # a read-only session waiting for disk room
        entry.bridge.storeFailed.connect(self._store_failed)

    @property
    def tasks(self) -> TaskSupervisor:
        return self.entry.bridge.tasks

    async def connect(self, hub_url: str | None = None) -> bool:
        """Attach a session for ``hub_url`` (default: the entry's; ``""`` = the embedded hub);
        False (and the reason on the hub's line) on failure."""
        await self.drop()
        entry = self.entry
        if hub_url is not None:
            entry.url = hub_url
        self._set_damaged(None)
        try:
            url = entry.url or await self._embedded_url()
            retention = retention_of(load_settings(self._home.settings_file).settings, entry.url)
            session = await HubSession.open(self._home, url, retention=retention)  # with this hub's own join secret
        except StoreError as error:
            entry.status.show_problem(f"Could not connect: {error}", can_retry=True)
            self._offer_fresh_cache(error)
            return False
        except OSError as error:
            entry.status.show_problem(f"Could not connect: {os_error_text(error)}", can_retry=True)
            return False
        except HubDatabaseError as error:  # the embedded hub's database: a full disk, another hub
            entry.status.show_problem(f"Could not start the local hub: {error}", can_retry=True)
            return False
        except (KeyFileError, ValueError) as error:
            entry.status.show_problem(f"Could not connect: {error}", can_retry=True)
            return False
        entry.bridge.attach(session)
        session.start()
        return True

    async def drop(self) -> None:
        if self.entry.bridge.session is not None:
            await self._before_drop(self.entry)
            session = self.entry.bridge.detach()
            await session.stop()

    def retry(self) -> None:
        """Retry now with no session, or a read-only one: open it again (e.g. once disk space was
        freed); a live session's Retry now is the session's own."""
        session = self.entry.bridge.session
        if session is None or session.read_only is not None:
            self.tasks.spawn("connect", self.connect())
        else:
            session.reconnect_now()

    def _store_failed(self, error: StoreError) -> None:
        """The session stopped on its store (it waits for Retry now, or after a full disk for room
        again): say why, offer the way out. A session whose store is read-only (a full disk)
        shows the cache and reopens by itself once the disk has room again."""
        self._tell(str(error))
        self._offer_fresh_cache(error)
        session = self.entry.bridge.session
        if session is None or session.read_only is None:
            return
        self.entry.status.show_problem(f"Read-only: {error}", can_retry=True)
        watch = self._room_watch  # one per session: a session opened since (Retry now) needs its own
        if watch is None or watch[0] is not session or watch[1].done():
            self._room_watch = (session, self.tasks.spawn("reopen", self._reopen_when_there_is_room(session)))

    async def _reopen_when_there_is_room(self, session: HubSession) -> None:
        while self.entry.bridge.session is session:
            await asyncio.sleep(REOPEN_CHECK_SECS)
            if self.entry.bridge.session is session and has_room_near(session.store.path):
                await self.connect()
                return

    def _offer_fresh_cache(self, error: StoreError) -> None:
        if error.fresh_cache_fixes:
            self._set_damaged(error.path)

    def _set_damaged(self, path: Path | None) -> None:
        if self.entry.damaged_store != path:
            self.entry.damaged_store = path
            self.entry.changed.emit()

    async def start_fresh_cache(self) -> str | None:
        """Set the damaged cache aside (kept, named in the message), keep its unsent messages,
        and connect again: the cache refills from the hub and the kept messages are sent. The
        sentence to tell, or None when there was nothing to do or it failed (said on the line)."""
        damaged = self.entry.damaged_store
        if damaged is None:
            return None
        await self.drop()  # the session's store must be closed before its file moves
        try:
            fresh = await asyncio.to_thread(LocalStore.start_fresh, damaged)
        except StoreError as error:
            self.entry.status.show_problem(f"Could not start a fresh cache: {error}", can_retry=True)
            return None
        if not await self.connect():
            return None
        recovered = f" {fresh.outbox_recovery.text}" if fresh.outbox_recovery else ""
        return (
            f"Started with a fresh cache; the damaged one is kept as {fresh.moved_to}. "
            f"{fresh.kept_unsent} unsent message(s) will be sent.{recovered}"
        )
