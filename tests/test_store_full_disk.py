"""The store on a real full disk (a small tmpfs): a write the disk refuses leaves nothing half-kept."""

from __future__ import annotations

import os

from parler_desktop.store import LocalStore, StoreError, StoreProblem

from test_store import make_message


def test_a_pulled_chunk_and_its_sync_mark_are_kept_or_refused_together_however_little_room_is_left(small_disk):
    """Free space from none up to the first amount that takes the chunk: that amount leaves not
    a block for a mark written separately, so a chunk kept above its mark would show here."""
    block = os.statvfs(small_disk.path).f_frsize
    big = make_message(2, text="x" * 30_000)
    for blocks in range(64):
        path = small_disk.path / f"store-{blocks}.sqlite3"
        store = LocalStore(path)
        store.insert_messages([make_message(1)], room_marks=[("team", 1)])
        small_disk.fill(leave=blocks * block)
        try:
            kept = store.insert_messages([big], room_marks=[("team", 2)]) == [big]
        except StoreError as error:
            assert error.problem is StoreProblem.DISK_FULL
            kept = False
        mark = store.sync_mark("team")
        assert store.messages_after("team", mark, 10) == [], f"with {blocks} blocks free"
        assert mark == (2 if kept else 1)
        store.close()
        small_disk.free()
        for file in small_disk.path.glob(path.name + "*"):
            file.unlink()
        if kept:
            return
    raise AssertionError("the chunk never fitted")
