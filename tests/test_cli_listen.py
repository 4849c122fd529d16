"""``parler-desktop listen`` end to end, as a subprocess against real hubs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess

import pytest

from parler_desktop.cli.listen_command import readable_line, terminal_safe
from parler_desktop.client import HubSession
from parler_desktop.client.feed import FED_KEY, FedState, StoreFeed
from parler_desktop.identity import Identity, load_or_create_identity
from parler_desktop.paths import Home
from parler_desktop.protocol.canonical import SignatureState
from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore, StoreWorker
from support.client_harness import EventLog
from support.cli_runner import command, environment, run_cli, started_cli
from support.peer_ops import hub_seqs, say
from support.raw_agent import RawAgent
from support.os_needs import posix_signals, posix_terminal

pytestmark = pytest.mark.timeout(60)

HOSTILE = "fine \x1b[2J\x1b]0;pwned\x07 text\r\n\u202eevil\u202c end é"


async def team_with_messages(url: str, texts: list[str], identity: Identity | None = None) -> tuple[RawAgent, str]:
    """A peer that made room ``team``, posted ``texts`` and returns (peer, invite link)."""
    peer = await RawAgent.connect(url, identity=identity, name="bot")
    invited = await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
    for text in texts:
        await say(peer, "team", text)
    return peer, invited["url"]


async def joined_home(tmp_path, link: str):
    home = tmp_path / "home"
    joined = await run_cli(home, "join", link)
    assert joined.status == 0, joined.stderr
    return home


async def test_listen_once_json_prints_each_message_and_leaves_the_cursor(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, ["one", HOSTILE, "three"])
    home = await joined_home(tmp_path, link)
    result = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
    assert result.status == 0, result.stderr
    assert result.stdout.isascii()  # NDJSON escapes everything that could reach a terminal raw
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [m["text"] for m in lines] == ["one", HOSTILE, "three"]
    first = lines[0]
    assert first["room"] == "team" and first["from"] == {"id": peer.id, "name": "bot"}
    assert {"seq", "id", "ts"} <= first.keys() and first["signature"] == "unsigned"
    assert "live" in result.stderr  # states go to stderr

    me = await RawAgent.connect(hub.url, identity=load_or_create_identity(Home.resolve(home).key_file))
    rooms = await me.ok({"op": "rooms"}, "rooms")
    assert rooms["rooms"][0]["unread"] == 3  # listening never moved the cursor
    await me.close()
    await peer.close()


@posix_terminal
async def test_listen_on_a_terminal_prints_readable_lines_without_control_characters(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, [HOSTILE])
    home = await joined_home(tmp_path, link)
    import pty  # POSIX only (it needs termios)

    master, slave = pty.openpty()
    process = await asyncio.to_thread(
        subprocess.Popen,
        command(home, "listen", "--hub", hub.url, "--once"),
        stdout=slave, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=environment(),
    )
    os.close(slave)
    output = b""
    try:
        while True:
            try:
                chunk = await asyncio.to_thread(os.read, master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        assert await asyncio.to_thread(process.wait, 30) == 0
    finally:
        os.close(master)
        process.kill()
        await asyncio.to_thread(process.wait)
    text = output.decode()
    assert "[team] #" in text and "bot: fine" in text and "evil" in text and "é" in text
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    await peer.close()


def test_readable_lines_strip_terminal_controls_and_mark_unsigned_messages():
    message = StoredMessage(
        seq=7, id="x", room="te\x1bam", sender=EndpointRef(id="U1", name="b\x9bot"),
        parts=({"kind": "text", "text": "a\x1b[31mb\nc"},), ts=0,
    )
    line = readable_line(message, SignatureState.UNSIGNED)
    assert "\x1b" not in line and "\x9b" not in line
    assert "⚠" in line and "\n    c" in line
    assert terminal_safe("tab\tok\r\n") == "tab\tok\n"


async def test_listen_exits_1_when_the_join_secret_is_rejected(hub_factory, tmp_path):
    hub = hub_factory(join_secret="right")
    result = await run_cli(tmp_path / "home", "listen", "--hub", hub.url, PARLER_JOIN_SECRET="wrong")
    assert result.status == 1
    assert "join secret" in result.stderr


async def test_listen_gives_up_after_max_retries(tmp_path, refused_port):
    result = await run_cli(tmp_path / "home", "listen", "--hub", f"127.0.0.1:{refused_port}", "--max-retries", "1")
    assert result.status == 1
    assert "giving up after 1 retries" in result.stderr


@posix_signals
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_listen_exits_0_on_a_signal(hub, tmp_path, signum):
    async with started_cli(tmp_path / "home", "listen", "--hub", hub.url) as process:
        while b"live" not in (line := await asyncio.wait_for(process.stderr.readline(), 30)):
            assert line, "listen ended before it was live"
        process.send_signal(signum)
        assert await asyncio.wait_for(process.wait(), 30) == 0


@posix_signals
async def test_listen_survives_two_hub_kills_and_prints_every_message_once(hub_process_factory, tmp_path):
    hub = await asyncio.to_thread(hub_process_factory)
    peer_identity = Identity.generate()
    peer, link = await team_with_messages(hub.url, [f"before {i}" for i in range(5)], peer_identity)
    home = await joined_home(tmp_path, link)
    printed: list[dict] = []
    try:
        async with started_cli(home, "listen", "--hub", hub.url, "--json") as listener:

            async def read_until(count: int) -> None:
                while len(printed) < count:
                    printed.append(json.loads(await asyncio.wait_for(listener.stdout.readline(), 30)))

            await read_until(5)
            for round_number in range(2):
                for i in range(5):
                    await say(peer, "team", f"round {round_number} {i}")
                await peer.close()
                await asyncio.to_thread(hub.kill)
                await asyncio.to_thread(hub.restart)
                peer = await RawAgent.connect(hub.url, identity=peer_identity, name="bot")
            for i in range(5):
                await say(peer, "team", f"after {i}")
            await read_until(20)
            assert [m["seq"] for m in printed] == await hub_seqs(peer)
            listener.send_signal(signal.SIGINT)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            assert (await listener.stdout.read()) == b""  # nothing printed twice
    finally:
        await peer.close()


@posix_signals
async def test_listen_prints_a_push_before_it_is_stored_and_never_again(hub, tmp_path):
    """A push is printed as it is read: here while another connection holds the store's write
    lock (the write waits for it), and once only when the write lands; a new ``listen`` then
    knows it was printed."""
    peer, link = await team_with_messages(hub.url, ["before"])
    home = await joined_home(tmp_path, link)
    resolved = Home.resolve(home)
    store_file = resolved.store_path(hub.url, load_or_create_identity(resolved.key_file).agent_id)
    try:
        async with started_cli(home, "listen", "--hub", hub.url, "--json") as listener:

            async def next_text() -> str:
                return json.loads(await asyncio.wait_for(listener.stdout.readline(), 30))["text"]

            assert await next_text() == "before"
            while b"live" not in (line := await asyncio.wait_for(listener.stderr.readline(), 30)):
                assert line, "listen ended before it was live"
            # A push printed first: the room's first drain since "live" is over. Until it is, a
            # push waits for that drain (lines keep their order), and the drain reads the store on
            # the store's one thread, behind any write queued there before it: with the lock below
            # taken first, such a write would wait for the lock, and the push with it (the 4 s
            # below ran out now and then under the full suite; not reproduced on its own).
            await say(peer, "team", "live now")
            assert await next_text() == "live now"
            seqs = await hub_seqs(peer)

            def all_recorded() -> bool:
                with contextlib.closing(sqlite3.connect(store_file)) as db:
                    row = db.execute("SELECT value FROM meta WHERE key = ?", (FED_KEY + "team",)).fetchone()
                fed = FedState.parse(row[0] if row else None)
                return all(map(fed.has_fed, seqs))

            # The drains record what they printed in the store: the lock must not hold those writes.
            while not await asyncio.to_thread(all_recorded):
                await asyncio.sleep(0.05)
            lock = sqlite3.connect(store_file, isolation_level=None)
            try:
                lock.execute("BEGIN IMMEDIATE")  # listen's write of the push waits for this
                await say(peer, "team", "while the store is busy")
                assert await asyncio.wait_for(next_text(), 4) == "while the store is busy"
            finally:
                lock.execute("ROLLBACK")
                lock.close()
            await say(peer, "team", "after")
            assert await next_text() == "after"
            seqs = await hub_seqs(peer)
            while not await asyncio.to_thread(all_recorded):
                await asyncio.sleep(0.05)
            listener.send_signal(signal.SIGINT)
            assert await asyncio.wait_for(listener.wait(), 30) == 0
            assert (await listener.stdout.read()) == b""  # nothing printed twice
        again = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
        assert again.status == 0 and again.stdout == "", again.stderr
    finally:
        await peer.close()


async def test_listen_prints_what_the_window_stored_first_once_per_home(hub, tmp_path):
    peer, link = await team_with_messages(hub.url, ["a", "b"])
    home = await joined_home(tmp_path, link)
    window = await HubSession.open(Home.resolve(home), hub.url)  # the window, on the same home
    log = EventLog()
    window.add_listener(log)
    window.start()
    try:
        await log.wait_until(lambda: len(log.messages("team")) == 2, "the window stored the backlog")
        first = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
        assert [json.loads(line)["text"] for line in first.stdout.splitlines()] == ["a", "b"]
        await say(peer, "team", "c")
        await log.wait_until(lambda: len(log.messages("team")) == 3, "the window stored the new one")
        second = await run_cli(home, "listen", "--hub", hub.url, "--once", "--json")
        assert [json.loads(line)["text"] for line in second.stdout.splitlines()] == ["c"]
    finally:
        await window.stop()
        await peer.close()


def stored(seq: int, room: str = "team") -> StoredMessage:
    """A message as the feed reads it from the store."""
    return StoredMessage(seq=seq, id=f"m{seq}", room=room, sender=EndpointRef(id="U1", name="a"), parts=(), ts=seq)


@pytest.fixture
async def store(tmp_path):
    worker = StoreWorker(tmp_path / "store.sqlite3")
    await worker.open()
    yield worker
    await worker.close()


async def test_the_feed_fills_gaps_once_and_resumes_after_a_restart(store):
    fed: list[int] = []
    await store.call(LocalStore.insert_messages, [stored(1), stored(3)])  # 2 was a dropped push
    await store.call(LocalStore.set_sync_mark, "team", 1)
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    await feed.drain()
    await store.call(LocalStore.insert_messages, [stored(2)])  # reconciliation found it
    await store.call(LocalStore.set_sync_mark, "team", 3)
    await feed.drain()
    await feed.drain()
    assert fed == [1, 3, 2]
    await store.call(LocalStore.insert_messages, [stored(4)])
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()  # a new listen process
    assert fed == [1, 3, 2, 4]
    await store.call(LocalStore.insert_messages, [stored(6)])  # 5 was a dropped push too
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()
    await store.call(LocalStore.insert_messages, [stored(5)])
    await store.call(LocalStore.set_sync_mark, "team", 6)
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()  # knows 6 was fed
    assert fed == [1, 3, 2, 4, 6, 5]


async def test_while_catching_up_the_feed_holds_what_lies_above_the_sync_mark(store):
    """A push stored before the catch-up of the messages below it waits for them (the session
    is not live yet); once live, the drain feeds the rest in order."""
    fed: list[int] = []
    await store.call(LocalStore.insert_messages, [stored(1), stored(4)])  # 4 was pushed, 2–3 are being pulled
    await store.call(LocalStore.set_sync_mark, "team", 1)
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    await feed.drain(ahead=False)
    assert fed == [1] and feed.feed_live([stored(5)]) and fed == [1]  # no room counts as drained
    await store.call(LocalStore.insert_messages, [stored(2), stored(3), stored(5)])
    await store.call(LocalStore.set_sync_mark, "team", 5)
    await feed.drain()
    assert fed == [1, 2, 3, 4, 5]


async def test_what_this_process_stores_is_fed_at_once_and_never_again(store):
    fed: list[int] = []
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    await store.call(LocalStore.insert_messages, [stored(1)])
    await feed.drain()
    new = await store.call(LocalStore.insert_messages, [stored(2), stored(3, "ops")])  # a push, stored
    assert feed.feed_live(new) and fed == [1, 2]  # printed without a drain; "ops" was never drained
    await feed.drain()
    await feed.drain()
    assert fed == [1, 2, 3]
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()  # the drain recorded 2
    assert fed == [1, 2, 3]
    await store.call(LocalStore.insert_messages, [stored(4), stored(5)])  # a catch-up, stored
    feed.stored_behind("team")
    assert feed.feed_live(await store.call(LocalStore.insert_messages, [stored(6)])) and fed == [1, 2, 3]
    await feed.drain()  # 6 waited for the catch-up below it: the lines stay in seq order
    assert fed == [1, 2, 3, 4, 5, 6]


async def test_a_catch_up_stored_during_a_drain_holds_live_lines_until_the_next_drain(store):
    """A reconnect's catch-up can store a room's messages while a drain of that room is reading
    the store; a push read after the catch-up must not print before what it stored."""
    fed: list[int] = []

    def deliver(message: StoredMessage) -> bool:
        fed.append(message.seq)
        if message.seq == 2:  # the drain has read the store: now the catch-up stores 3 and 4
            feed.stored_behind("team")
        return True

    feed = StoreFeed(store, deliver)
    await store.call(LocalStore.insert_messages, [stored(1)])
    await feed.drain()
    await store.call(LocalStore.insert_messages, [stored(2)])
    await feed.drain()
    await store.call(LocalStore.insert_messages, [stored(3), stored(4)])
    assert feed.feed_live([stored(5)]) and fed == [1, 2]  # pushed after the catch-up: it waits
    await feed.drain()
    assert feed.feed_live([stored(5)]) and fed == [1, 2, 3, 4, 5]


async def test_a_push_read_before_its_room_is_drained_is_printed_before_the_pushes_after_it(store):
    """Soon after ``listen`` goes live a push can be read before the first drain of its room has
    finished: it waits for that drain, which prints it after what the store held (even when its
    write has not landed yet), and a push read after the drain comes after it."""
    fed: list[int] = []
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    await store.call(LocalStore.insert_messages, [stored(1)])
    assert feed.feed_live([stored(2)]) and fed == []  # read off the socket before the room's drain
    await feed.drain()  # 2 is not stored yet
    assert feed.feed_live([stored(3)]) and fed == [1, 2, 3]
    written = await store.call(LocalStore.insert_messages, [stored(2), stored(3)])
    assert feed.feed_live(written) and fed == [1, 2, 3]
    await feed.drain()
    assert feed.all_recorded() and fed == [1, 2, 3]


async def test_a_push_fed_as_it_arrives_is_recorded_once_its_write_lands(store):
    """``listen --once`` exits only when ``all_recorded``: a push printed before its write would
    otherwise be printed again by the next ``listen``."""
    fed: list[int] = []
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    await store.call(LocalStore.insert_messages, [stored(1)])
    await feed.drain()
    assert feed.all_recorded()
    assert feed.feed_live([stored(2)]) and fed == [1, 2]  # read off the socket, not stored yet
    assert not feed.all_recorded()
    await feed.drain()  # nothing new in the store: nothing to record yet
    assert not feed.all_recorded()
    written = await store.call(LocalStore.insert_messages, [stored(2)])
    assert feed.feed_live(written) and fed == [1, 2]  # its write announced: not fed again
    await feed.drain()
    assert feed.all_recorded() and fed == [1, 2]
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()  # a new listen
    assert fed == [1, 2]

async def test_a_room_whose_drain_never_ends_clean_holds_a_bounded_number_of_live_messages(store):
    """Issue 47: under a push flood into a joined room every drain raced a catch-up (dropped
    pushes are pulled), so the room never counted as drained and every live message was held
    for it: listen grew ~2.2 KB a message (96,000 held after 35 s). Past ``MAX_HELD`` the feed
    leaves them to the drains, which read them from the store in order, each once."""
    from parler_desktop.client.feed import MAX_HELD

    fed: list[int] = []
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True)
    live = [stored(seq) for seq in range(1, 2 * MAX_HELD + 1)]
    assert feed.feed_live(live) and fed == []  # the room was never drained: its lines wait
    assert len(feed._held["team"]) <= MAX_HELD
    await store.call(LocalStore.insert_messages, live)
    await store.call(LocalStore.set_sync_mark, "team", len(live))
    await feed.drain()
    assert fed == [m.seq for m in live]


async def test_a_hub_that_never_fills_the_seqs_it_skipped_leaves_a_bounded_record_said_once(store):
    """Issue 47: a hub that pushes every other seq of a room and never sends the rest (its pulls
    stop short) kept each pushed seq in the room's record above its gapless mark (~140 B a
    message). Past ``MAX_AHEAD`` the gaps below count as skipped, said once; every push is fed
    once, in order, and a new ``listen`` feeds none of them again."""
    from parler_desktop.client.feed import MAX_AHEAD

    fed: list[int] = []
    skipped: list[str] = []
    feed = StoreFeed(store, lambda m: fed.append(m.seq) or True, skipped.append)
    await store.call(LocalStore.insert_messages, [stored(1)])
    await store.call(LocalStore.set_sync_mark, "team", 1)
    await feed.drain()
    pushes = [stored(seq) for seq in range(3, 6 * MAX_AHEAD, 2)]  # 2, 4, 6… never come
    for start in range(0, len(pushes), 100):
        piece = pushes[start:start + 100]
        assert feed.feed_live(piece)
        await store.call(LocalStore.insert_messages, piece)
        await feed.drain()
        assert len(feed._fed["team"].ahead) <= MAX_AHEAD
    assert fed == [1] + [m.seq for m in pushes]
    assert skipped == ["team"]
    recorded = await store.call(LocalStore.get_meta, FED_KEY + "team")
    assert len(recorded.split()) <= MAX_AHEAD + 1
    await StoreFeed(store, lambda m: fed.append(m.seq) or True).drain()  # a new listen
    assert fed == [1] + [m.seq for m in pushes]
