"""The cache's retention (store/retention.py): what is pruned, what never is, and the size bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from parler_desktop.store import LocalStore
from parler_desktop.store.drafts import Draft
from parler_desktop.store.retention import DAY_MS, RetentionPolicy

from test_store import make_message

NOW = 1_700_000_000_000 + 200 * DAY_MS


@pytest.fixture
def store(tmp_path: Path):
    opened = LocalStore(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def _day(day: int) -> int:
    """Hub time of a message ``day`` days before NOW."""
    return NOW - day * DAY_MS


def _prune(store: LocalStore, policy: RetentionPolicy) -> int:
    deleted = 0
    while True:
        step = store.prune_step(policy, now_ms=NOW, batch=7)
        deleted += step.deleted
        if not step.more:
            return deleted


def _stored(store: LocalStore, room: str) -> list[int]:
    return [m.seq for m in store.messages_slice(room, 0, 10_000)]


def test_old_read_messages_are_pruned_and_unread_newest_and_what_the_human_wrote_never(store: LocalStore):
    # quiet: 1..5 long ago, none read; old: 6, 7 long ago, read; team: 8..47 from 100 days ago to today, read to 37
    store.insert_messages([make_message(s, "quiet", ts=_day(150)) for s in range(1, 6)])
    store.insert_messages([make_message(s, "old", ts=_day(150)) for s in (6, 7)])
    store.insert_messages([make_message(s, "team", ts=_day(max(100 - 2 * (s - 8), 0))) for s in range(8, 48)])
    store.set_cursor("team", 37)
    store.set_cursor("old", 7)
    store.save_draft(Draft("team", "half a thought", None, ""))
    store._db.execute("CREATE TABLE needs_you (seq INTEGER PRIMARY KEY)")  # another engineer's table
    store._db.execute("INSERT INTO needs_you VALUES (9)")
    before = {room.name: (room.unread, room.mentions_unread) for room in store.room_summaries("UBOB")}

    deleted = _prune(store, RetentionPolicy(days=90, max_bytes=None))

    # older than 90 days: old's 6 (7 is its room's newest) and team 8..12 (100, 98, 96, 94, 92 days)
    assert deleted == 6
    assert _stored(store, "team") == list(range(13, 48))
    assert _stored(store, "quiet") == list(range(1, 6))  # unread: never pruned, however old
    assert _stored(store, "old") == [7]
    assert store.message_count("team") == 35
    after = {room.name: (room.unread, room.mentions_unread) for room in store.room_summaries("UBOB")}
    assert after == before and after["team"] == (10, 0)
    assert store.search("message 10") == [] and [hit.seq for hit in store.search("message 14")] == [14]
    assert store.draft("team").text == "half a thought"
    assert store._db.execute("SELECT seq FROM needs_you").fetchall() == [(9,)]
    assert store.pruned_span_before("team", 13) == (0, 12, 5)
    assert store.pruned_span_before("team", 8) is None
    assert store.pruned_newest_ts() == _day(92)
    assert _prune(store, RetentionPolicy(days=90, max_bytes=None)) == 0  # nothing more to do


def test_spans_are_a_scroll_back_page_each_and_follow_on(store: LocalStore):
    store.insert_messages([make_message(s, "team", ts=_day(120)) for s in range(1, 131)])
    store.insert_messages([make_message(131, "team", ts=_day(0))])
    store.set_cursor("team", 131)
    assert _prune(store, RetentionPolicy(days=90, max_bytes=None)) == 130
    assert store.pruned_span_before("team", 131) == (120, 130, 10)
    assert store.pruned_span_before("team", 121) == (60, 120, 60)
    assert store.pruned_span_before("team", 61) == (0, 60, 60)
    store.forget_room("team")
    assert store.pruned_span_before("team", 131) is None


def test_keep_everything_prunes_nothing(store: LocalStore):
    store.insert_messages([make_message(s, "team", ts=_day(400)) for s in range(1, 11)])
    store.set_cursor("team", 10)
    assert _prune(store, RetentionPolicy(None, None)) == 0
    assert _stored(store, "team") == list(range(1, 11))


def test_a_cache_over_its_size_is_pruned_oldest_first_below_it_on_disk(store: LocalStore):
    store.use_incremental_vacuum()
    text = "x" * 2000
    for start in range(1, 2001, 200):
        store.insert_messages([make_message(s, f"room{s % 3}", text=f"{text} {s}", ts=_day(1)) for s in range(start, start + 200)])
    for room in ("room0", "room1", "room2"):
        store.set_cursor(room, 2000)
    limit = 2 * 1024**2
    assert store.cache_bytes() > 3 * limit

    _prune(store, RetentionPolicy(days=None, max_bytes=limit))

    assert store.cache_bytes() <= limit
    on_disk = sum(path.stat().st_size for path in (store.path, store.path.with_name(store.path.name + "-wal")))
    assert on_disk <= limit
    kept = sorted(seq for room in ("room0", "room1", "room2") for seq in _stored(store, room))
    assert kept == list(range(kept[0], 2001))  # the newest, all of them


def test_a_new_cache_can_shrink_from_the_start_without_a_rewrite(store: LocalStore, tmp_path: Path):
    """A fresh cache is made with incremental vacuum: the first retention pass rewrote every new
    cache whole (VACUUM), seconds of the store's thread and the disk after a first catch-up
    (seen as the window's CPU after the soak, bench_memory.py; issue 42)."""
    store.insert_messages([make_message(s, "team", ts=_day(1)) for s in range(1, 50)])
    assert store.use_incremental_vacuum() is False  # nothing to rewrite
    store.close()
    again = LocalStore(tmp_path / "store.sqlite3")  # (and so it stays)
    try:
        assert again.use_incremental_vacuum() is False
    finally:
        again.close()


def test_the_policy_reads_back_from_its_settings_text():
    for policy in (RetentionPolicy(), RetentionPolicy(None, None), RetentionPolicy(30, None), RetentionPolicy(None, 200 * 1024**2)):
        assert RetentionPolicy.from_text(policy.to_text()) == policy
    assert RetentionPolicy.from_text("nonsense") == RetentionPolicy()
    assert RetentionPolicy() == RetentionPolicy(90, 2 * 1024**3)
