"""Benchmark the store's reads and writes beside a busy Python thread: one step against row by row.

Run: .venv/bin/python bench/bench_store_steps.py

Python's sqlite3 lets go of the GIL for each row it steps to, and takes it back after; while
another thread runs Python (the window's, under traffic), each taking back waits for that thread
to let go, up to the switch interval (5 ms). ``StoreDatabase._rows_at_once`` reads a result as one
JSON row instead, and ``_insert_at_once`` writes rows a few multi-row statements at a time. For the room list (every
room's summary, ``room_summaries``), a room's opening page (``messages_slice``) and a pulled page's
rows written (``insert_messages``' statement) this prints the time each takes alone and beside a
thread running Python, and the same rows fetched or inserted row by row beside it (the baseline:
how it was done before) in the same run. The ratio is one step against row by row (lower is better).
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from parler_desktop.protocol.values import EndpointRef, RoomInfo, StoredMessage
from parler_desktop.store import LocalStore, codec
from parler_desktop.store.signatures import MESSAGE_COLUMNS

ROOMS = 100
PER_ROOM = 60
READ_SECS = 3.0
SENDER = EndpointRef(id="UAGENT", name="agent", role="worker")
PAGE_ROWS = 100  # a pulled page (bench_hubs.py's wake)
INSERT = "INSERT INTO scratch (seq, room, id, sender_name, ts, mentions_me, wire, signature)"


def filled_store(path: Path) -> LocalStore:
    store = LocalStore(path)
    names = [f"room-{n:03d}" for n in range(ROOMS)]
    store.replace_rooms([RoomInfo(name=name, kind="channel", members=5, unread=0) for name in names])
    seq = 0
    for _ in range(PER_ROOM):
        page = []
        for name in names:
            seq += 1
            text = f"Step {seq}: rebuilt the index and ran the suite; " * 4
            page.append(StoredMessage(seq=seq, id=f"m-{seq}", room=name, sender=SENDER, parts=({"kind": "text", "text": text},), ts=seq))
        store.insert_messages(page)
    store.room_summaries(SENDER.id)  # counted for this identity once
    return store


def row_by_row_summaries(store: LocalStore) -> None:
    """The room list's rows as they were read before (one step per row)."""
    store._db.execute(
        "SELECT rooms.name, kind, members, hub_unread, cursor, coalesce(m.seq, 0), coalesce(m.ts, 0), unread, "
        "mentions_unread, coalesce(m.sender_name, '') FROM rooms LEFT JOIN messages m ON m.seq = "
        "(SELECT max(seq) FROM messages WHERE room = rooms.name) ORDER BY rooms.name"
    ).fetchall()


def row_by_row_page(store: LocalStore) -> None:
    rows = store._db.execute(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE room = ? ORDER BY seq LIMIT ?", ("room-050", PER_ROOM)).fetchall()
    store.messages_from_rows(rows)


class PageRows:
    """Rows of a pulled page, new seqs each time, for a scratch table shaped as ``messages``."""

    def __init__(self, store: LocalStore) -> None:
        self.store, self.seq = store, 0
        store._db.execute("CREATE TEMP TABLE scratch AS SELECT seq, room, id, sender_name, ts, mentions_me, wire, signature FROM messages WHERE 0")

    def rows(self) -> list[tuple]:
        text = "Step: rebuilt the index and ran the suite; " * 4
        first, self.seq = self.seq, self.seq + PAGE_ROWS
        return [
            codec.message_row(StoredMessage(seq=seq, id=f"p-{seq}", room="room-050", sender=SENDER, parts=({"kind": "text", "text": text},), ts=seq), False)
            for seq in range(first + 1, self.seq + 1)
        ]

    def at_once(self) -> None:
        rows = self.rows()
        with self.store._db:
            self.store._insert_at_once(INSERT, rows)

    def row_by_row(self) -> None:
        rows = self.rows()
        with self.store._db:
            self.store._db.executemany(f"{INSERT} VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def timed_runs(read: Callable[[], object], beside_busy: bool) -> list[float]:
    """The time of each run of ``read`` (a read or a write), every 20 ms for ``READ_SECS``, with or without a thread
    running Python meanwhile."""
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            sum(range(200))

    thread = threading.Thread(target=busy)
    if beside_busy:
        thread.start()
    times = []
    try:
        ends = time.perf_counter() + READ_SECS
        while time.perf_counter() < ends:
            started = time.perf_counter()
            read()
            times.append(time.perf_counter() - started)
            time.sleep(0.02)
    finally:
        stop.set()
        if beside_busy:
            thread.join()
    return times


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        store = filled_store(Path(directory) / "store.sqlite3")
        try:
            page = PageRows(store)
            print(f"size: {ROOMS} rooms x {PER_ROOM} messages; each run every 20 ms for {READ_SECS:g} s")
            cases = [
                ("room list (every room's summary)", lambda: store.room_summaries(SENDER.id), lambda: row_by_row_summaries(store)),
                (f"a room's opening page ({PER_ROOM} messages)", lambda: store.messages_slice("room-050", 0, PER_ROOM), lambda: row_by_row_page(store)),
                (f"a pulled page's {PAGE_ROWS} rows written", page.at_once, page.row_by_row),
            ]
            for name, one_step, row_by_row in cases:
                alone = timed_runs(one_step, beside_busy=False)
                beside = timed_runs(one_step, beside_busy=True)
                baseline = timed_runs(row_by_row, beside_busy=True)
                mean, base = statistics.mean(beside), statistics.mean(baseline)
                print(
                    f"{name}: alone {statistics.mean(alone) * 1000:.2f} ms; beside a busy thread {mean * 1000:.2f} ms "
                    f"(max {max(beside) * 1000:.1f}), row by row beside it {base * 1000:.2f} ms (max {max(baseline) * 1000:.1f}): "
                    f"{mean / base:.2f}x"
                )
        finally:
            store.close()


if __name__ == "__main__":
    main()
