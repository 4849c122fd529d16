"""The hub's periodic housekeeping task: runs the retention sweep and removes freed blob files."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from parler_desktop.hub.context import HubContext
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.sql.retention import RetentionPolicy, sweep

log = logging.getLogger(__name__)


async def sweep_once(ctx: HubContext) -> list[str]:
    limits = ctx.config.limits
    policy = RetentionPolicy(
        limits.message_retention_days,
        limits.messages_kept_per_room,
        limits.unkeyed_facts_kept,
        limits.blob_idle_days,
    )
    freed = await ctx.db.call(sweep, policy, now_ms())
    if freed:
        await asyncio.to_thread(_remove_files, [ctx.blobs.path_of(blob) for blob in freed])
    return freed


def _remove_files(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


async def run_janitor(ctx: HubContext) -> None:
    """Sweep at start and then every ``janitor_interval_secs`` until cancelled."""
    while True:
        try:
            await sweep_once(ctx)
        except Exception:
            log.exception("retention sweep failed")
        await asyncio.sleep(ctx.config.limits.janitor_interval_secs)
