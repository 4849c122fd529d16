"""StoreWorker.read: the reads a human waits on (a room's page) run on a second, read-only
connection on a thread of their own, beside the writes queued on the store's thread (issue 42
item 3: a room opened under traffic waited behind the pushes being stored). What it keeps of the
one-thread ordering: a read sees every write awaited before it, and one moment of the files."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from parler_desktop.store import LocalStore, StoreWorker

from test_store import make_message

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def worker(tmp_path: Path):
    opened = StoreWorker(tmp_path / "store.sqlite3")
    await opened.open()
    assert await opened.reader_opened()  # (opened on its thread, after the writer)
    yield opened
    await opened.close()


async def test_a_read_is_answered_while_the_writer_is_busy(worker: StoreWorker):
    await worker.call(LocalStore.insert_messages, [make_message(seq) for seq in range(1, 4)])
    release = threading.Event()  # the writer's thread held, as by a long write
    busy = asyncio.ensure_future(worker.call(lambda _store: release.wait(30)))
    queued = asyncio.ensure_future(worker.call(LocalStore.insert_messages, [make_message(4)]))
    try:
        page = await asyncio.wait_for(worker.read(LocalStore.messages_slice, "team", 0, 10), 10)
        assert [m.seq for m in page] == [1, 2, 3]  # the write queued behind the held one is not in yet
    finally:
        release.set()
    await asyncio.gather(busy, queued)
    assert [m.seq for m in await worker.read(LocalStore.messages_slice, "team", 0, 10)] == [1, 2, 3, 4]


async def test_a_read_sees_every_write_awaited_before_it(worker: StoreWorker):
    for seq in range(1, 201):
        await worker.call(LocalStore.insert_messages, [make_message(seq)])
        assert await worker.read(LocalStore.max_seq, "team") == seq
        await worker.call(LocalStore.set_cursor, "team", seq)
        assert await worker.read(LocalStore.cursor, "team") == seq


def _count_and_newest(store: LocalStore, room: str) -> tuple[int, int]:
    """Two statements: apart, a write committed between them would tell them apart."""
    return store.message_count(room), store.max_seq(room)


async def test_a_read_sees_one_moment_while_writes_go_on(worker: StoreWorker):
    writing = True

    async def write() -> None:
        seq = 0
        while writing:
            seq += 1
            await worker.call(LocalStore.insert_messages, [make_message(seq)])

    writer = asyncio.ensure_future(write())
    try:
        seen = [await worker.read(_count_and_newest, "team") for _ in range(300)]
    finally:
        writing = False
        await writer
    assert all(count == newest for count, newest in seen)  # seqs 1..n: the count is the newest seq
    assert seen[-1][0] > seen[0][0]  # the writes went on meanwhile


async def test_a_read_on_a_worker_without_a_reader_runs_in_turn(tmp_path: Path):
    """A command's worker (on its loop) and a read-only one (a full disk) have no second
    connection: a read takes its turn with the calls, as every call does."""
    path = tmp_path / "store.sqlite3"
    on_loop = StoreWorker(path, on_loop=True)
    await on_loop.open()
    _inserted, newest = await asyncio.gather(  # (started in this order)
        on_loop.call(LocalStore.insert_messages, [make_message(1)]), on_loop.read(LocalStore.max_seq, "team")
    )
    assert newest == 1
    await on_loop.close()
    read_only = StoreWorker(path, read_only=True)
    await read_only.open()
    assert [m.seq for m in await read_only.read(LocalStore.messages_slice, "team", 0, 5)] == [1]
    await read_only.close()


async def test_a_read_after_close_is_refused_and_queued_reads_complete(tmp_path: Path):
    worker = StoreWorker(tmp_path / "store.sqlite3")
    await worker.open()
    assert await worker.reader_opened()
    await worker.call(LocalStore.insert_messages, [make_message(1)])
    pending = asyncio.ensure_future(worker.read(LocalStore.max_seq, "team"))
    await asyncio.sleep(0)  # handed to the reader's thread
    await worker.close()
    assert await pending == 1
    with pytest.raises(RuntimeError):
        await worker.read(LocalStore.max_seq, "team")


async def test_the_reader_gives_verdicts_without_writing(tmp_path: Path):
    """A row stored without a signature verdict (an older version's) is checked as it is read;
    the reader cannot keep the verdict (read-only), and says it all the same."""
    from parler_desktop.protocol.values import SignatureState

    worker = StoreWorker(tmp_path / "store.sqlite3")
    await worker.open()
    assert await worker.reader_opened()
    await worker.call(LocalStore.insert_messages, [make_message(1)])  # no check given yet: no verdict
    worker.check_signatures_with(lambda _message: SignatureState.UNSIGNED)
    try:
        (message,) = await worker.read(LocalStore.messages_slice, "team", 0, 5)
        assert message.signature is SignatureState.UNSIGNED
    finally:
        await worker.close()
