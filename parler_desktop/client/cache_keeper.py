"""The cache kept within its hub's retention policy, in the background (store/retention.py).

A pass prunes one small transaction at a time on the store's thread, each step taking its turn
behind the process's page writes (``page_writer.write_turn``), so neither the Qt thread nor a
catch-up waits on it. A pass runs a minute after the session is live, every ``interval`` seconds
after, and at once when the human changes the policy (``set_policy``). The first pass of a cache made before
incremental vacuum rewrites the file once (``LocalStore.use_incremental_vacuum``).
"""

from __future__ import annotations

import asyncio
import logging

from parler_desktop.client.page_writer import write_turn
from parler_desktop.settings import Settings
from parler_desktop.store import LocalStore, StoreError, StoreWorker
from parler_desktop.store.retention import RetentionPolicy

log = logging.getLogger(__name__)

PASS_INTERVAL_SECS = 3600.0
FIRST_PASS_SECS = 60.0


def retention_of(settings: Settings, hub_url: str) -> RetentionPolicy:
    """The policy the settings keep for ``hub_url`` (the default when they name none)."""
    text = settings.hub_retention.get(hub_url)
    return RetentionPolicy() if text is None else RetentionPolicy.from_text(text)


class CacheKeeper:
    def __init__(self, store: StoreWorker, policy: RetentionPolicy, interval: float = PASS_INTERVAL_SECS) -> None:
        self._store = store
        self.policy = policy
        self._interval = interval
        self._wake = asyncio.Event()
        self._vacuum_checked = False
        self.passes = 0  # passes finished (tests wait on it)

    def set_policy(self, policy: RetentionPolicy) -> None:
        """Keep ``policy`` from now on: a pass starts at once."""
        self.policy = policy
        self._wake.set()

    async def run(self) -> None:
        """Prune a pass a minute after the line is live (not in the catch-up's wake), then every
        ``interval`` or when the policy changes, for ever (cancelled with the connection)."""
        await self._wait(FIRST_PASS_SECS)
        while True:
            self._wake.clear()
            try:
                deleted = await self.prune_pass()
            except StoreError as error:  # (busy, or no room for the VACUUM): the next pass tries again
                log.warning("could not prune %s: %s", self._store.path.name, error)
            else:
                if deleted:
                    log.info("pruned %d messages from %s", deleted, self._store.path.name)
            await self._wait(self._interval)

    async def _wait(self, secs: float) -> None:
        try:
            await asyncio.wait_for(self._wake.wait(), secs)
        except TimeoutError:
            pass

    async def prune_pass(self) -> int:
        """Prune until the policy holds; how many messages went. Raises ``StoreError``."""
        policy, deleted = self.policy, 0
        if policy.keeps_everything or self._store.read_only:
            return 0
        if not self._vacuum_checked:
            async with write_turn():
                if await self._store.call(LocalStore.use_incremental_vacuum):
                    log.info("%s can shrink now (one VACUUM)", self._store.path.name)
            self._vacuum_checked = True
        while True:
            async with write_turn():
                step = await self._store.call(LocalStore.prune_step, policy)
            deleted += step.deleted
            if not step.more:
                self.passes += 1
                return deleted
