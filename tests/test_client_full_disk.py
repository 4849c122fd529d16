"""The session's pulls on a real full disk (a small tmpfs holds the store): what a refused write
leaves behind must still be described by the room's sync mark, which ``listen`` trusts."""

from __future__ import annotations

import pytest

from parler_desktop.client.events import ConnectionState, MessagesStored, StoreFailed
from parler_desktop.store import LocalStore
from support.client_harness import session_factory  # noqa: F401  (fixture)
from support.peer_ops import invite_code, say

pytestmark = pytest.mark.timeout(45)


async def test_a_disk_filling_right_after_a_stored_page_chunk_leaves_nothing_above_the_sync_mark(
    hub, raw_agent, small_disk, session_factory
):
    peer = await raw_agent(hub.url, name="bot")
    code = await invite_code(peer)
    for n in range(120):  # more than one bounded write (page_store.MESSAGES_PER_WRITE)
        await say(peer, "team", f"message {n}")
    path = small_disk.path / "store.sqlite3"
    session, log = await session_factory(hub.url, store_path=path)

    def fill_on_first_store(event: object) -> None:
        if isinstance(event, MessagesStored) and not log.of(StoreFailed):
            small_disk.fill()  # the very next write finds no byte free

    session.add_listener(fill_on_first_store)
    await log.wait_state(ConnectionState.LIVE)
    await session.redeem(code)
    await log.wait_until(lambda: log.of(StoreFailed), "the full disk refusing a write")
    assert log.of(StoreFailed)[0].error.problem.name == "DISK_FULL"
    await session.stop()
    small_disk.free()

    store = LocalStore(path)
    try:
        mark = store.sync_mark("team") or 0
        assert store.message_count("team") > 0  # the first chunk was kept
        assert store.messages_after("team", mark, 1000) == []  # and its mark says so
    finally:
        store.close()
