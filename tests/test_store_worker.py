"""StoreWorker: the store runs on its own thread and a big write does not stall the event loop;
for a command without a window it runs on the loop's thread, one call at a time, and the loop
gets a turn between calls."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from parler_desktop.store import LocalStore, StoreError, StoreWorker

from test_store import make_message


@pytest.fixture
async def worker(tmp_path: Path):
    opened = StoreWorker(tmp_path / "store.sqlite3")
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture(params=[False, True], ids=["own thread", "on the loop"])
def on_loop(request: pytest.FixtureRequest) -> bool:
    return request.param


@pytest.fixture
async def either_worker(tmp_path: Path, on_loop: bool):
    """An open worker of each kind: on its own thread, and on the loop (a command's)."""
    opened = StoreWorker(tmp_path / "store.sqlite3", on_loop=on_loop)
    await opened.open()
    yield opened
    await opened.close()


async def test_calls_run_on_one_thread_that_is_not_the_loop_thread(worker: StoreWorker):
    def thread_of(store: LocalStore) -> int:
        return threading.get_ident()

    threads = {await worker.call(thread_of) for _ in range(5)}
    assert len(threads) == 1
    assert threads != {threading.get_ident()}


@pytest.mark.parametrize("on_loop", [True], ids=["on the loop"])
async def test_on_the_loop_calls_run_on_its_thread_and_the_loop_runs_between_them(either_worker: StoreWorker):
    worker = either_worker
    ran: list[str] = []

    def note(store: LocalStore, name: str) -> int:
        ran.append(name)
        return threading.get_ident()

    loop = asyncio.get_running_loop()
    loop.call_soon(ran.append, "the loop")  # ready before the calls: runs after the first of them
    threads = [await worker.call(note, "first"), await worker.call(note, "second")]
    assert threads == [threading.get_ident()] * 2
    assert ran == ["first", "the loop", "second"]


async def test_calls_pass_arguments_and_run_in_order(either_worker: StoreWorker):
    worker = either_worker
    writes = [worker.call(LocalStore.insert_messages, [make_message(seq)]) for seq in (5, 3, 9)]
    read = worker.call(LocalStore.messages_slice, "team", offset=0, limit=10)
    *inserted, stored = await asyncio.gather(*writes, read)
    assert [[m.seq for m in batch] for batch in inserted] == [[5], [3], [9]]
    assert [m.seq for m in stored] == [3, 5, 9]


async def test_store_errors_reach_the_awaiting_caller(tmp_path: Path, on_loop: bool):
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"not a database" * 300)
    broken = StoreWorker(path, on_loop=on_loop)
    with pytest.raises(StoreError) as raised:
        await broken.open()
    assert raised.value.is_corrupt
    with pytest.raises(RuntimeError):
        await broken.call(LocalStore.room_names)
    await broken.close()


async def test_calls_after_close_are_refused(tmp_path: Path):
    worker = StoreWorker(tmp_path / "store.sqlite3")
    await worker.open()
    pending = asyncio.create_task(worker.call(LocalStore.insert_messages, [make_message(1)]))
    await asyncio.sleep(0)  # the task has handed its call to the worker thread
    await worker.close()
    with pytest.raises(RuntimeError):
        await worker.call(LocalStore.room_names)
    assert [m.seq for m in await pending] == [1]  # queued before close: completed, not lost

    reopened = StoreWorker(worker.path)
    await reopened.open()
    assert await reopened.call(LocalStore.max_seq, "team") == 1
    await reopened.close()


async def test_the_loop_keeps_running_while_a_thousand_message_page_is_written(worker: StoreWorker):
    """Proved by the loop doing work the write waits for, not by timing gaps (a busy machine
    stretches those, and a 1000-row write is too quick for a gap to tell the two threads apart)."""
    page = [make_message(seq, text=f"line {seq} " * 20, mentions=("bob",)) for seq in range(1, 1001)]
    loop = asyncio.get_running_loop()
    loop_ran = threading.Event()

    def write_and_see_the_loop_run(store: LocalStore) -> tuple[int, bool]:
        loop.call_soon_threadsafe(loop_ran.set)  # only a loop that is free to run can run this
        inserted = store.insert_messages(page, mentions_me=lambda m: "bob" in (m.mentions or ()))
        return len(inserted), loop_ran.wait(10)  # on the loop thread this could never come true

    assert await worker.call(write_and_see_the_loop_run) == (1000, True)


async def test_indexing_for_search_takes_its_turn_a_batch_at_a_time(either_worker: StoreWorker):
    """Given a turn (the lock a catch-up's page writes hold), each batch indexed waits for it:
    indexing costs more than storing and must not run beside another hub's writes."""
    await either_worker.call(LocalStore.insert_messages, [make_message(seq) for seq in range(1, 121)], index_now=False)
    turn = asyncio.Lock()
    await turn.acquire()  # a write under way
    indexing = asyncio.ensure_future(either_worker.index_all_pending(turn))
    await asyncio.sleep(0.05)
    assert (await either_worker.call(LocalStore.search_progress)).indexed == 0
    turn.release()
    await asyncio.wait_for(indexing, 10)
    assert (await either_worker.call(LocalStore.search_progress)).done
