"""Benchmark the local store: page inserts, event-loop stalls, and a 100,000-message room.

Run: .venv/bin/python bench/bench_store.py

Figures are printed against baselines measured in the same run: a bare round-trip through a
one-thread executor (what any ``await worker.call`` costs at least) and the loop's longest gap
while idle (scheduler noise). Targets: the loop never stalls more than ~20 ms while 100 pages
of 1,000 messages are written through StoreWorker; the newest 200 rows of a 100,000-message room
are counted and read in a few milliseconds.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore, StoreWorker

PAGE = 1000
PAGES = 100
SENDERS = [EndpointRef(id=f"UAGENT{i}", name=f"agent-{i}", role="worker") for i in range(5)]


def page_of_messages(room: str, first_seq: int) -> list[StoredMessage]:
    """A realistic page: a paragraph of text, a signature part, every tenth message a mention."""
    return [
        StoredMessage(
            seq=seq,
            id=f"0190f3c2-{seq:012d}",
            room=room,
            sender=SENDERS[seq % len(SENDERS)],
            parts=(
                {"kind": "text", "text": f"Step {seq}: rebuilt the index and ran the suite; " * 4},
                {"kind": "com.parler.sig", "alg": "ed25519", "sig": "QUJD" * 22, "ts": 1_710_000_000_000 + seq},
            ),
            ts=1_710_000_000_000 + seq,
            mentions=("supervisor",) if seq % 10 == 0 else None,
        )
        for seq in range(first_seq, first_seq + PAGE)
    ]


def mentions_supervisor(message: StoredMessage) -> bool:
    return "supervisor" in (message.mentions or ())


class LoopGapMeter:
    """Measures the longest gap between wake-ups of a 1 ms ticker: how long the loop was held."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._running = True
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> "LoopGapMeter":
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0.01)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._running = False
        await self._task

    async def _tick(self) -> None:
        last = time.perf_counter()
        while self._running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last)
            last = now


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def timed(fn, repeat: int = 20) -> float:
    """Median wall time of ``fn()`` over ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def executor_round_trip() -> float:
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=1) as executor:
        samples = []
        for _ in range(500):
            start = time.perf_counter()
            await loop.run_in_executor(executor, int)
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        round_trip = await executor_round_trip()
        async with LoopGapMeter() as idle:
            await asyncio.sleep(1.0)
        print(f"baseline: executor round-trip {ms(round_trip)}; idle loop longest gap {ms(idle.longest)}")

        direct = LocalStore(root / "direct.sqlite3")
        pages = [page_of_messages("team", 1 + i * PAGE) for i in range(10)]
        start = time.perf_counter()
        for page in pages:
            direct.insert_messages(page, mentions_supervisor)
        per_page = (time.perf_counter() - start) / len(pages)
        direct.close()
        print(
            f"insert 1,000-message pages directly: {ms(per_page)} per page, "
            f"{PAGE / per_page:,.0f} messages/s ({per_page / round_trip:,.0f}x a round-trip)"
        )

        path = root / "big.sqlite3"
        worker = StoreWorker(path)
        await worker.open()
        pages = [page_of_messages("busy", 1 + i * PAGE) for i in range(PAGES)]
        async with LoopGapMeter() as writing:
            start = time.perf_counter()
            for page in pages:
                await worker.call(LocalStore.insert_messages, page, mentions_supervisor)
            elapsed = time.perf_counter() - start
        print(
            f"insert {PAGES} pages through StoreWorker: {ms(elapsed / PAGES)} per page; longest loop "
            f"stall {ms(writing.longest)} (target <= 20 ms; idle {ms(idle.longest)})"
        )
        await worker.call(LocalStore.set_cursor, "busy", PAGES * PAGE - 500)
        await worker.close()

        start = time.perf_counter()
        store = LocalStore(path)
        opened = time.perf_counter() - start
        newest = timed(lambda: store.messages_slice("busy", store.message_count("busy") - 200, 200))
        middle = timed(lambda: store.messages_slice("busy", store.message_count("busy") // 2, 200), repeat=5)
        oldest = timed(lambda: store.messages_slice("busy", 0, 200))
        summaries = timed(store.room_summaries)
        row = timed(lambda: store.row_of_seq("busy", PAGES * PAGE - 500))
        for room in range(300):
            store.insert_messages(page_of_messages(f"room-{room:03d}", 200_000 + room * PAGE)[:20])
        many_rooms = timed(store.room_summaries, repeat=5)
        start = time.perf_counter()
        store.forget_room("busy")
        forget = time.perf_counter() - start
        store.close()
        print(f"100,000-message room: open store {ms(opened)}")
        print(f"  count + newest 200 rows   {ms(newest)} ({newest / round_trip:5.1f}x a round-trip)")
        print(f"  count + oldest 200 rows   {ms(oldest)} ({oldest / round_trip:5.1f}x a round-trip)")
        print(f"  count + middle 200 rows   {ms(middle)} ({middle / round_trip:5.1f}x a round-trip)")
        print(f"  room_summaries (500 unread) {ms(summaries)}; row_of_seq near the end {ms(row)}")
        print(f"  forget the room (on the worker thread) {ms(forget)}")
        print(f"room_summaries for 301 rooms of 20+ unread messages {ms(many_rooms)}")


if __name__ == "__main__":
    asyncio.run(main())
