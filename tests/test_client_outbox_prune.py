"""Opening a home drops sent and discarded outbox items older than the keep period, never pending
or failed ones (nothing the human wrote and that has not reached the hub may disappear)."""

from __future__ import annotations

import time

from parler_desktop.client.outbox import FINISHED_ITEM_KEEP_SECS
from parler_desktop.client.session import HubSession
from parler_desktop.identity import load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.store import LocalStore
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus

HUB_URL = "ws://127.0.0.1:9/ws"  # never dialled: the session is not started


async def test_opening_a_home_prunes_only_old_finished_items(tmp_path):
    home = Home.resolve(tmp_path).ensure()
    identity = load_or_create_identity(home.key_file)
    old = time.time() - FINISHED_ITEM_KEEP_SECS - 3600
    items = {
        "old-sent": (old, OutboxStatus.SENT),
        "old-discarded": (old, OutboxStatus.DISCARDED),
        "old-pending": (old, OutboxStatus.PENDING),
        "old-failed": (old, OutboxStatus.FAILED),
        "new-sent": (time.time(), OutboxStatus.SENT),
    }
    store = LocalStore(home.store_path(HUB_URL, identity.agent_id))
    for client_id, (created_at, status) in items.items():
        store.outbox_add(OutboxItem(client_id, "team", ({"kind": "text", "text": client_id},), created_at))
        store.outbox_update(client_id, status=status)
    store.close()

    session = await HubSession.open(home, HUB_URL)
    try:
        kept = {item.client_id for item in await session.store.call(LocalStore.outbox_items)}
    finally:
        await session.stop()
    assert kept == {"old-pending", "old-failed", "new-sent"}
