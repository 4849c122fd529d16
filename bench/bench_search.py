"""Benchmark full-text search over a 100,000-message store.

Run: .venv/bin/python bench/bench_search.py

Searches (a rare word, a common word capped at 200 results, two words, a room filter, an author
filter, a part-kind filter) are timed against a baseline measured in the same run: the same
words found by a plain ``LIKE '%word%'`` scan of the stored messages. Also printed: what keeping
the index current costs when storing messages (pages of 1,000 with and without the index).
Target: every search well under 100 ms.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from parler_desktop.protocol.values import EndpointRef, StoredMessage
from parler_desktop.store import LocalStore

MESSAGES = 100_000
PAGE = 1000
ROOMS = [f"room-{n}" for n in range(20)]
SENDERS = [EndpointRef(id=f"UAGENT{i}", name=f"agent-{i}", role="worker") for i in range(8)]
WORDS = (
    "index build suite deploy rollback cache schema migration latency review patch queue retry "
    "worker planner database replica shard timeout budget token trace metric alert"
).split()
REPEATS = 20


def message(seq: int, rng: random.Random) -> StoredMessage:
    text = " ".join(rng.choice(WORDS) for _ in range(24))
    if seq == MESSAGES // 2:
        text += " xylophone"  # the one rare word
    parts: tuple[dict, ...] = ({"kind": "text", "text": f"Step {seq}: {text}"},)
    if seq % 50 == 0:
        parts += ({"kind": "com.parler.handoff", "next": "review the patch", "to": "supervisor"},)
    return StoredMessage(
        seq=seq,
        id=f"m-{seq}",
        room=ROOMS[seq % len(ROOMS)],
        sender=SENDERS[seq % len(SENDERS)],
        parts=parts,
        ts=1_710_000_000_000 + seq,
    )


def fill(store: LocalStore) -> float:
    """Store every message in pages; the median seconds per page."""
    rng = random.Random(7)
    times = []
    for first in range(1, MESSAGES + 1, PAGE):
        page = [message(seq, rng) for seq in range(first, first + PAGE)]
        started = time.perf_counter()
        store.insert_messages(page)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def median_ms(run) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def like_scan(path: Path, words: list[str], limit: int) -> list[int]:
    db = sqlite3.connect(path)
    try:
        where = " AND ".join("wire LIKE ?" for _ in words)
        rows = db.execute(
            f"SELECT seq FROM messages WHERE {where} ORDER BY seq DESC LIMIT ?", [*(f"%{w}%" for w in words), limit]
        )
        return [seq for (seq,) in rows]
    finally:
        db.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        plain = LocalStore(Path(folder) / "plain.sqlite3")
        plain._index = lambda messages: None  # the baseline: storing without keeping the index
        print(f"storing {MESSAGES:,} messages in pages of {PAGE:,}, without and with the index ...")
        plain_page = fill(plain)
        plain.close()
        path = Path(folder) / "search.sqlite3"
        store = LocalStore(path)
        indexed_page = fill(store)
        print(
            f"  page insert: {plain_page * 1000:.1f} ms without the index, {indexed_page * 1000:.1f} ms with it "
            f"({indexed_page / plain_page:.2f}x)"
        )
        cases = [
            ("rare word (1 hit)", "xylophone", {}),
            ("common word, newest 200", "deploy", {}),
            ("two words, newest 200", "schema roll", {}),
            ("common word in one room", "deploy", {"room": "room-3"}),
            ("common word by one author", "deploy", {"author": "agent-5"}),
            ("handoffs with 'patch'", "patch", {"kind": "handoff"}),
        ]
        print(f"{'search':30} {'FTS5 ms':>9} {'LIKE scan ms':>13} {'speed-up':>9}  hits")
        for label, query, filters in cases:
            hits = store.search(query, limit=200, **filters)
            fts = median_ms(lambda q=query, f=filters: store.search(q, limit=200, **f))
            if filters:
                print(f"{label:30} {fts:9.2f} {'-':>13} {'-':>9}  {len(hits)}")
                continue
            baseline = median_ms(lambda q=query: like_scan(path, q.split(), 200))
            print(f"{label:30} {fts:9.2f} {baseline:13.2f} {baseline / fts:8.2f}x  {len(hits)}")
        store.close()


if __name__ == "__main__":
    main()
