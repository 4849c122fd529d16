"""The headless commands on a real full disk (a small tmpfs as the home), and what they say when
a message is only queued: progress where there is room, one clear "disk full" where there is
none, and an outbox that is drained (or said to be waiting) before a command exits."""

from __future__ import annotations

import json

import pytest

from parler_desktop.client.feed import StoreFeed
from parler_desktop.store import LocalStore, StoreError, StoreProblem, StoreWorker
from support.cli_runner import run_cli
from support.peer_ops import hub_history, say
from support.raw_agent import RawAgent

from test_cli_listen import joined_home, team_with_messages
from test_store import make_message

pytestmark = pytest.mark.timeout(90)

BIG = 30_000  # characters per message: 120 of them are ~3.6 MB, more than the disk has left


async def test_listen_on_a_tight_disk_stores_what_fits_then_stops_with_one_message(hub, small_disk):
    peer, link = await team_with_messages(hub.url, [f"{n:03d}" + "x" * BIG for n in range(120)])
    home = await joined_home(small_disk.path, link)
    small_disk.fill(leave=1536 * 1024)

    tight = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json", timeout=60)
    assert tight.status == 1
    printed = [json.loads(line)["text"][:3] for line in tight.stdout.splitlines()]
    assert 0 < len(printed) < 120  # progress, in bounded writes
    assert tight.stderr.count("is full") == 1 and "Traceback" not in tight.stderr

    small_disk.free()
    rest = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json", timeout=60)
    assert rest.status == 0, rest.stderr
    printed += [json.loads(line)["text"][:3] for line in rest.stdout.splitlines()]
    assert printed == [f"{n:03d}" for n in range(120)]  # each once, in order
    await peer.close()


async def test_the_feed_prints_nothing_it_cannot_record_so_the_next_listen_prints_each_message_once(small_disk):
    store = StoreWorker(small_disk.path / "store.sqlite3")
    await store.open()
    printed: list[int] = []

    def new_listen() -> StoreFeed:
        return StoreFeed(store, lambda message: printed.append(message.seq) or True)

    try:
        await store.call(LocalStore.insert_messages, [make_message(seq) for seq in (1, 2, 3)], room_marks=[("team", 3)])
        small_disk.fill()
        with pytest.raises(StoreError) as refused:
            await new_listen().drain()
        assert refused.value.problem is StoreProblem.DISK_FULL and printed == []
        small_disk.free()
        await new_listen().drain()
        await new_listen().drain()
        assert printed == [1, 2, 3]
    finally:
        await store.close()


async def test_send_with_no_byte_free_says_the_disk_is_full(hub, small_disk):
    peer, link = await team_with_messages(hub.url, [])
    home = await joined_home(small_disk.path, link)
    small_disk.fill()
    result = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "hello")
    assert result.status == 1
    assert "is full" in result.stderr and "disk I/O error" not in result.stderr
    assert await hub_history(peer) == []
    await peer.close()


async def test_sends_queued_while_the_hub_is_down_go_out_before_listen_once_exits(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, [])
    home = await joined_home(tmp_path, link)
    hub.stop()
    for n in range(10):
        queued = await run_cli(home, "send", "--hub", hub.url, "--room", "team", "--timeout", "0.5", f"queued {n}")
        assert queued.status == 3, queued.stderr
        assert "queued; it will be sent by the next send, listen or window on this home" in queued.stderr
    hub.restart()
    drained = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert drained.status == 0, drained.stderr
    peer = await RawAgent.connect(hub.url, identity=peer.identity, name="bot")
    assert [m["parts"][0]["text"] for m in await hub_history(peer)] == [f"queued {n}" for n in range(10)]
    await say(peer, "team", "still served")
    await peer.close()


async def test_a_new_home_on_a_full_disk_says_the_disk_is_full(hub, small_disk):
    small_disk.fill()
    result = await run_cli(small_disk.path / "home", "listen", "--hub", hub.url, "--once")
    assert result.status == 1 and "disk is full" in result.stderr
    assert "No space left on device" not in result.stderr and "Traceback" not in result.stderr
