"""The page writer behind a catch-up's pulls (client/page_writer.py), over a real local store.

What it promises: pages queued by the pulls are stored in order, several rooms per transaction
and a whole write's worth at a time, each chunk moving its room's sync mark in the transaction
that stores it; nothing is written while the pulls go on, until they are over (and the other
hubs' too, for a while) or too much waits; a room is reported complete only once all its pages are stored; a disk that
refuses a write gets it again in halves, each part with the mark of what it holds; a pull
waits for room while the messages pulled and not stored, every hub's, fill the budget (unless
only waiting pulls hold it); a failure reaches the pulls; the writers of every hub write one
at a time.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from parler_desktop.client import page_writer
from parler_desktop.client.page_writer import PageWriter, PulledChunk, RoomPulled
from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore, StoreError, StoreWorker
from parler_desktop.store.errors import StoreProblem, store_error

pytestmark = pytest.mark.timeout(30)

BOT = EndpointRef(id="UBOT", name="bot", role="worker")


def message(seq: int, room: str) -> StoredMessage:
    return StoredMessage(seq, f"m{seq}", room, BOT, ({"kind": "text", "text": f"message {seq}"},), 1_700_000_000_000 + seq)


def page(room: str, seqs: range) -> PulledChunk:
    return PulledChunk(room, [message(seq, room) for seq in seqs], seqs[-1])


async def pull(writer: PageWriter, chunk: PulledChunk) -> None:
    """As the pulls do: room for the page before it is asked for, then the page queued."""
    await writer.reserve([(chunk.room, len(chunk.messages))])
    writer.put(chunk)


class Writes:
    """The writes a writer makes to a real store (each one transaction), and the rooms it reports."""

    def __init__(self, store: StoreWorker) -> None:
        self.store = store
        self.batches: list[list[tuple[str, int, int | None]]] = []  # (room, messages, mark) per chunk
        self.done: list[tuple[str, bool]] = []
        self.refuse: list[int] = []  # write sizes (messages) to refuse with a full disk, in turn

    async def write(self, chunks: list[PulledChunk]) -> set[str]:
        size = sum(len(chunk.messages) for chunk in chunks)
        if self.refuse and size > self.refuse[0]:
            raise store_error(self.store.path, StoreProblem.DISK_FULL, "no space left", "saving messages")
        self.batches.append([(chunk.room, len(chunk.messages), chunk.mark) for chunk in chunks])
        marks = [(chunk.room, chunk.mark) for chunk in chunks if chunk.mark is not None]
        stored = await self.store.call(LocalStore.insert_messages, [m for c in chunks for m in c.messages], room_marks=marks)
        return {m.room for m in stored}

    async def report(self, rooms: list[tuple[RoomPulled, bool]]) -> None:
        self.done.extend((room.room, stored_new) for room, stored_new in rooms)


@pytest.fixture
async def writes(tmp_path: Path):
    store = StoreWorker(tmp_path / "store.sqlite3")
    await store.open()
    yield Writes(store)
    await store.close()


async def test_nothing_is_written_while_the_pulls_go_on_until_they_are_over(writes, monkeypatch):
    monkeypatch.setattr(page_writer, "MESSAGES_PER_WRITE", 10)
    monkeypatch.setattr(page_writer, "PULLED_MAX", 100)
    writer = PageWriter(writes.write, writes.report)
    for number in range(9):  # 90 messages, 9 writes' worth
        writer.put(page(f"room-{number}", range(10 * number + 1, 10 * number + 11)))
        writer.put(RoomPulled(f"room-{number}", 10))
    await asyncio.sleep(0.05)
    assert writes.batches == [] and writes.done == []
    await writer.flush()  # the pulls are over
    assert [len(batch) for batch in writes.batches] == [1] * 9
    assert writes.done == [(f"room-{number}", True) for number in range(9)]


async def test_pages_of_several_rooms_go_in_one_write_and_each_room_is_done_once_stored(writes, monkeypatch):
    monkeypatch.setattr(page_writer, "MESSAGES_PER_WRITE", 10)
    monkeypatch.setattr(page_writer, "PULLED_MAX", 12)
    writer = PageWriter(writes.write, writes.report)
    await pull(writer, page("a", range(1, 5)))
    writer.put(RoomPulled("a", 4))
    await pull(writer, page("b", range(5, 9)))
    await pull(writer, page("b", range(9, 13)))  # 12 pulled: the budget is spent
    await asyncio.sleep(0.05)
    assert writes.batches == []
    await writer.reserve([("c", 1)])  # no room for a page of one: a write of up to 10 makes it
    writer.put(RoomPulled("b", 8))
    assert writes.batches == [[("a", 4, 4), ("b", 4, 8)]]  # (a page is split only when it alone is too big)
    writer.release("c")
    assert writes.done == [("a", True)]  # b has a page still queued
    await writer.flush()
    assert writes.batches[1:] == [[("b", 4, 12)]]
    assert writes.done == [("a", True), ("b", True)]
    writer.put(page("a", range(1, 5)))  # stored already: nothing new
    writer.put(RoomPulled("a", 4))
    await writer.flush()
    assert writes.done[-1] == ("a", False)
    assert await writes.store.call(LocalStore.sync_mark, "b") == 12


async def test_a_full_disk_gets_the_write_again_in_halves_each_with_the_mark_of_what_it_holds(writes):
    writer = PageWriter(writes.write, writes.report)
    writes.refuse = [3]  # a write of more than 3 messages finds the disk full
    writer.put(page("a", range(1, 9)))
    writer.put(RoomPulled("a", 8))
    await writer.flush()
    assert writes.batches == [[("a", 3, 3)], [("a", 3, 6)], [("a", 1, 7), ("a", 1, 8)]]
    assert writes.done == [("a", True)]
    assert await writes.store.call(LocalStore.message_count, "a") == 8


async def test_a_write_that_fails_for_good_reaches_the_pulls_and_leaves_the_marks_true(writes, monkeypatch):
    monkeypatch.setattr(page_writer, "MESSAGES_PER_WRITE", 4)
    monkeypatch.setattr(page_writer, "PULLED_MAX", 4)
    writer = PageWriter(writes.write, writes.report)
    await pull(writer, page("a", range(1, 5)))
    await pull(writer, page("a", range(5, 9)))  # (once the first page is written)
    writes.refuse = [0]  # now even one message: the disk stays full
    with pytest.raises(StoreError):
        await writer.flush()
    with pytest.raises(StoreError):
        writer.put(page("a", range(9, 10)))
    await writer.close()
    assert await writes.store.call(LocalStore.sync_mark, "a") == 4
    assert await writes.store.call(LocalStore.messages_after, "a", 4, 10) == []


async def test_a_pull_waits_for_room_while_the_writes_make_it(writes, monkeypatch):
    monkeypatch.setattr(page_writer, "PULLED_MAX", 8)
    monkeypatch.setattr(page_writer, "MESSAGES_PER_WRITE", 8)
    held = asyncio.Event()

    async def slow_write(chunks: list[PulledChunk]) -> set[str]:
        await held.wait()
        return await writes.write(chunks)

    writer = PageWriter(slow_write, writes.report)
    await pull(writer, page("a", range(1, 9)))  # 8 pulled: the budget is spent
    pulling = asyncio.ensure_future(pull(writer, page("b", range(9, 13))))  # the writer starts, and waits
    await asyncio.sleep(0.05)
    assert not pulling.done()
    held.set()
    await asyncio.wait_for(pulling, 5)
    await writer.flush()
    assert [batch for batch in writes.batches] == [[("a", 8, 8)], [("b", 4, 12)]]


def test_a_store_file_is_never_left_with_a_chunk_above_its_mark(tmp_path: Path):
    """(The store side of a chunk's mark: several rooms' marks in one transaction, all or none.)"""
    store = LocalStore(tmp_path / "store.sqlite3")
    try:
        store.insert_messages([message(1, "a"), message(2, "b")], room_marks=[("a", 1), ("b", 2)])
        assert (store.sync_mark("a"), store.sync_mark("b")) == (1, 2)
        store._db.execute("CREATE TRIGGER refuse BEFORE UPDATE OF sync_mark ON rooms WHEN NEW.name = 'b' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises((StoreError, sqlite3.Error)):
            store.insert_messages([message(3, "a"), message(4, "b")], room_marks=[("a", 3), ("b", 4)])
        assert (store.sync_mark("a"), store.message_count("a"), store.message_count("b")) == (1, 1, 1)
    finally:
        store.close()


async def test_the_writers_of_every_hub_write_one_at_a_time(writes, tmp_path: Path):
    """Each write holds its store's thread (and much of it the GIL) for 10-20 ms: five hubs
    writing at once kept the window's thread waiting, so the process writes one at a time."""
    second = StoreWorker(tmp_path / "second.sqlite3")
    await second.open()
    under_way: list[str] = []
    overlapped: list[bool] = []

    def watched(name: str, store: StoreWorker):
        async def write(chunks: list[PulledChunk]) -> set[str]:
            overlapped.append(bool(under_way))
            under_way.append(name)
            try:
                await asyncio.sleep(0.02)
                return {m.room for m in await store.call(LocalStore.insert_messages, [m for c in chunks for m in c.messages])}
            finally:
                under_way.remove(name)
        return write

    try:
        writers = [PageWriter(watched("first", writes.store), writes.report), PageWriter(watched("second", second), writes.report)]
        for round_ in range(3):
            for number, writer in enumerate(writers):
                writer.put(page(f"room-{number}", range(100 * round_ + 10 * number + 1, 100 * round_ + 10 * number + 5)))
        await asyncio.gather(*(writer.flush() for writer in writers))
        assert overlapped == [False, False]
    finally:
        await second.close()


async def test_pulls_that_are_over_wait_for_the_other_hubs_pulls_to_write(writes, monkeypatch):
    """A hub whose pulls are over first wrote while the other hubs still pulled, taking the
    cores from them: it waits for them (for ``OTHER_PULLS_WAIT_SECS`` at most)."""
    first, second = PageWriter(writes.write, writes.report), PageWriter(writes.write, writes.report)
    first.put(page("a", range(1, 5)))
    first_done = asyncio.ensure_future(first.flush())  # its pulls are over, the second's are not
    await asyncio.sleep(0.1)
    assert writes.batches == [] and not first_done.done()
    second.put(page("b", range(5, 9)))
    await second.flush()  # over too: both write
    await asyncio.wait_for(first_done, 5)
    assert sorted(writes.batches) == [[("a", 4, 4)], [("b", 4, 8)]]

    monkeypatch.setattr(page_writer, "OTHER_PULLS_WAIT_SECS", 0.2)
    stuck = PageWriter(writes.write, writes.report)  # pulls that do not end (a hub that answers slowly)
    stuck.put(page("c", range(9, 13)))
    third = PageWriter(writes.write, writes.report)
    third.put(page("d", range(13, 17)))
    await asyncio.wait_for(third.flush(), 5)  # written once the wait is over
    assert writes.batches[-1] == [("d", 4, 16)]
    await stuck.close()


async def test_the_bound_on_what_waits_is_shared_by_every_hub_s_writer(writes, monkeypatch):
    """Issue 47: each hub's writer held up to ``PULLED_MAX`` pulled messages, so five hubs
    catching up held five times as many. The bound is the process's: once that many wait, in
    whichever hubs' queues, the writers write and the pulls wait for them."""
    monkeypatch.setattr(page_writer, "PULLED_MAX", 100)
    monkeypatch.setattr(page_writer, "MESSAGES_PER_WRITE", 10)
    pulled = 0
    written = 0
    most_waiting = 0

    async def write(chunks: list[PulledChunk]) -> set[str]:
        nonlocal written
        rooms = await writes.write(chunks)
        written += sum(len(chunk.messages) for chunk in chunks)
        return rooms

    async def pulls(hub: int, writer: PageWriter) -> None:
        nonlocal pulled, most_waiting
        for number in range(10):  # 100 messages a hub
            first = 1000 * hub + 10 * number + 1
            await pull(writer, page(f"room-{hub}", range(first, first + 10)))
            pulled += 10
            most_waiting = max(most_waiting, pulled - written)
            await asyncio.sleep(0)
        writer.put(RoomPulled(f"room-{hub}", 100))
        await writer.flush()

    writers = [PageWriter(write, writes.report) for _hub in range(5)]
    try:
        await asyncio.wait_for(asyncio.gather(*(pulls(hub, writer) for hub, writer in enumerate(writers))), 20)
    finally:
        for writer in writers:
            await writer.close()
    assert most_waiting <= 100, most_waiting
    assert sorted(writes.done) == [(f"room-{hub}", True) for hub in range(5)]
    assert written == 500


async def test_pulls_waiting_for_room_only_they_hold_are_let_go_one_at_a_time(writes, monkeypatch):
    """Pages in the pulls' hands (a group's first pages, a first sync's held ones) are not
    queued, so no write can make room for them: pulls that all waited with nothing to write would
    wait for ever. A pull waits while another can still queue a page to write; when all of
    them wait, one is let go."""
    monkeypatch.setattr(page_writer, "PULLED_MAX", 10)
    first, second = PageWriter(writes.write, writes.report), PageWriter(writes.write, writes.report)
    try:
        await first.reserve([("a", 6)])
        await second.reserve([("b", 4)])  # the budget is spent, nothing queued
        waiting = asyncio.ensure_future(first.reserve([("a", 3)]))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the second pull may still queue its page, and its write make room
        await asyncio.wait_for(second.reserve([("b", 3)]), 5)  # both would wait: one is let go
        await asyncio.sleep(0.05)
        assert not waiting.done() and writes.batches == []
        second.put(page("b", range(1, 8)))  # the one let go queues its pages: written, they make room
        await asyncio.wait_for(waiting, 5)
        assert writes.batches == [[("b", 7, 7)]]
    finally:
        await first.close()
        await second.close()
    assert page_writer._writers().pulled == 0


async def test_what_a_short_page_did_not_bring_is_free_at_once(writes, monkeypatch):
    """A page reserves the most it may hold; the room it did not take is free as soon as it is
    in, not when its room's pull is over (a wake's first pages, asked for 64 rooms at once,
    held a fifth of the budget so and made the last ones wait for writes)."""
    monkeypatch.setattr(page_writer, "PULLED_MAX", 10)
    writer = PageWriter(writes.write, writes.report)
    try:
        await writer.reserve([("a", 6), ("b", 4)])
        writer.release("a", 6 - 2)  # a's page brought 2
        assert writer.free() == 4
        writer.put(page("a", range(1, 3)))
        writer.release("a")  # its pull is over: nothing more to free
        writer.release("b")
        assert writer.free() == 10 - 2  # what waits for the writer
    finally:
        await writer.close()
