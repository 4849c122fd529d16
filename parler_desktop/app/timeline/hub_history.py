"""Older messages than the cache keeps, read from the hub as the reader scrolls back past them.

The cache prunes old read history (store/retention.py) and remembers each room's pruned messages
as spans; scrolling back past the oldest kept message asks the hub for the newest span below it
with a ``since`` read, which never moves the cursor (protocol.md §7.2). What comes back is shown,
not stored: the cache would only prune it again.
"""

from __future__ import annotations

import logging
from typing import Any

from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore, StoreError

log = logging.getLogger(__name__)


async def older_from_hub(bridge: Any, room: str, before_seq: int) -> tuple[list[StoredMessage], bool]:
    """The pruned span of ``room`` just below ``before_seq``, read from the hub, ascending; and
    whether there is more pruned below it. Nothing (and more: try again on the next scroll) when
    the hub cannot be asked now."""
    store, session = bridge.store, bridge.session
    if store is None or session is None:
        return [], True
    try:
        span = await store.call(LocalStore.pruned_span_before, room, before_seq)
        if span is None:
            return [], False
        since, through, count = span
        pulled = await session.pull_history(room, since, count)
        more = await store.call(LocalStore.pruned_span_before, room, since + 1) is not None
    except (ConnectionLost, HubRefused, BadReply, SessionClosed, StoreError) as error:
        log.info("older messages of %r not read from the hub: %s", room, error)
        return [], True
    return [m for m in pulled if m.seq <= through and m.seq < before_seq], more

