"""The cache's size on disk under a retention limit (issue 42, item 2): many messages stored, read,
and pruned as the window's background job prunes (``CacheKeeper.prune_pass`` every ``--every``
messages, on a StoreWorker's thread), then the file's size against the limit and the newest
messages checked intact: every room keeps its newest messages, each as written, with no hole below
its newest (what is kept of a room is the newest run of its messages, the rest pruned from the oldest).

Run: .venv/bin/python bench/bench_retention.py [--messages 200000] [--limit-mb 50] [--every 20000] [--rooms 100]

The issue's figure is 1,000,000 messages under a 200 MB limit; scale both for the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from parler_desktop.client.cache_keeper import CacheKeeper
from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore, StoreWorker
from parler_desktop.store.retention import RetentionPolicy

AGENT = EndpointRef(id="U" + "A" * 55, name="builder", role="worker")
TEXT = "rebuilt the **index**, ran `pytest -q` and pushed the fix. " * 12  # ~700 bytes, as agents write
BATCH = 1000


def text_of(seq: int) -> str:
    return f"{seq} {TEXT}"


def newest_intact(store: LocalStore, messages: int, rooms: int) -> tuple[int, list[str]]:
    """On the store's thread: how many messages every room keeps, and what is wrong with them: a
    room's kept messages must be its newest ``count`` (seqs ``seq % rooms == room``), in order,
    each text as written, and the room's newest among them."""
    kept, wrong = 0, []
    for room in range(rooms):
        count = store.message_count(f"room{room}")
        seqs = [seq for seq in range(1, messages + 1) if seq % rooms == room]
        stored = store.messages_slice(f"room{room}", 0, count)
        kept += len(stored)
        if [m.seq for m in stored] != seqs[len(seqs) - count:] or len(stored) != count or not stored:
            wrong.append(f"room{room}: {len(stored)} kept of {count} counted, not its newest in order")
        elif any(m.text != text_of(m.seq) for m in stored):
            wrong.append(f"room{room}: a kept message's text changed")
    return kept, wrong


def on_disk(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists())


async def main(args: argparse.Namespace) -> None:
    limit = args.limit_mb * 1024**2
    print(f"{args.messages:,} messages over {args.rooms} rooms, a {args.limit_mb} MB limit, a pass every {args.every:,}", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "cache.sqlite3"
        store = StoreWorker(path)
        await store.open()
        keeper = CacheKeeper(store, RetentionPolicy(days=None, max_bytes=limit))
        started, pruned, largest = time.perf_counter(), 0, 0
        now = int(time.time() * 1000)
        for start in range(1, args.messages + 1, BATCH):
            batch = [
                StoredMessage(seq, f"m{seq}", f"room{seq % args.rooms}", AGENT, ({"kind": "text", "text": text_of(seq)},), now + seq)
                for seq in range(start, min(start + BATCH, args.messages + 1))
            ]
            await store.call(LocalStore.insert_messages, batch)
            for room in {m.room for m in batch}:
                await store.call(LocalStore.set_cursor, room, batch[-1].seq)  # read, as a supervisor reads
            if (start + BATCH - 1) % args.every < BATCH:
                largest = max(largest, on_disk(path))
                pruned += await keeper.prune_pass()
        largest = max(largest, on_disk(path))
        pruned += await keeper.prune_pass()
        secs = time.perf_counter() - started
        size = on_disk(path)
        stored, wrong = await store.call(newest_intact, args.messages, args.rooms)
        await store.close()
    print(f"done in {secs:.1f} s: {pruned:,} pruned, {stored:,} kept; on disk {size / 1024**2:.1f} MB "
          f"(largest between passes {largest / 1024**2:.1f} MB) against a {args.limit_mb} MB limit: "
          f"{'within' if size <= limit else 'OVER'}; the newest messages of every room {'MISSING: ' + '; '.join(wrong[:5]) if wrong else 'intact'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--limit-mb", type=int, default=50)
    parser.add_argument("--every", type=int, default=20_000, help="messages between two pruning passes")
    parser.add_argument("--rooms", type=int, default=100)
    asyncio.run(main(parser.parse_args()))
