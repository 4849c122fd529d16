"""Damaged, stale and unusable store files: StoreErrors naming the file, and a fresh start."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from parler_desktop.store.outbox_item import Draft, OutboxStatus
from parler_desktop.store import LocalStore, StoreError, StoreProblem, outbox_path
from support.damaged_store import damage, garble_a_middle_leaf
from support.store_versions import store_before_outbox_file
from support.os_needs import posix_file_modes

from test_store import make_message
from test_store_outbox import make_item


def test_a_file_that_is_not_a_database_is_refused_and_kept(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    garbage = b"this is not sqlite " * 500
    path.write_bytes(garbage)
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    error = raised.value
    assert error.is_corrupt and error.fresh_cache_fixes and error.path == path
    assert str(path) in str(error) and "fresh cache" in str(error)
    assert path.read_bytes() == garbage  # never silently deleted or rewritten


def test_damaged_pages_surface_as_corrupt_on_read(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.insert_messages([make_message(seq, text="x" * 500) for seq in range(1, 2000)])
    store.close()
    with path.open("r+b") as raw:  # overwrite pages in the middle of the messages table
        raw.seek(4096 * 50)
        raw.write(os.urandom(4096 * 20))
    damaged = LocalStore(path)
    with pytest.raises(StoreError) as raised:
        damaged.messages_slice("team", 0, 5000)
    damaged.close()
    assert raised.value.problem is StoreProblem.CORRUPT
    assert str(path) in str(raised.value)


def test_quarantine_moves_the_store_and_its_wal_aside_for_a_fresh_start(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"\x00garbage" * 1000)
    with pytest.raises(StoreError):
        LocalStore(path)
    (tmp_path / "store.sqlite3-wal").write_bytes(b"wal")  # e.g. left by a crash

    moved = LocalStore.quarantine(path)
    assert moved.parent == tmp_path and moved.name.startswith("store.sqlite3.aside-")
    assert moved.read_bytes() == b"\x00garbage" * 1000
    assert (tmp_path / (moved.name + "-wal")).read_bytes() == b"wal"
    assert not path.exists() and not (tmp_path / "store.sqlite3-wal").exists()

    fresh = LocalStore(path)
    assert fresh.room_names() == [] and fresh.outbox_items() == []
    fresh.close()

    path.unlink()
    path.write_bytes(b"damaged again" * 100)
    second = LocalStore.quarantine(path)  # a second quarantine never overwrites the first
    assert second != moved and moved.exists() and second.exists()


def test_start_fresh_keeps_the_unsent_messages_of_a_stale_store(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.insert_messages([make_message(1), make_message(2)])
    store.set_cursor("team", 2)
    for client_id in ("pending", "failed", "sent"):
        store.outbox_add(make_item(client_id, text=client_id))
    store.outbox_update("failed", status=OutboxStatus.FAILED, error="not a member", error_code="not_member")
    store.outbox_update("sent", status=OutboxStatus.SENT, message_id="msg-2", seq=2)
    with pytest.raises(StoreError) as raised:
        store.insert_messages([make_message(2, id="after-a-hub-reset")])
    assert raised.value.fresh_cache_fixes
    store.close()

    fresh_start = LocalStore.start_fresh(path)
    assert fresh_start.kept_unsent == 2 and fresh_start.moved_to.exists()
    fresh = LocalStore(path)
    assert fresh.room_names() == [] and fresh.cursor("team") == 0
    kept = {item.client_id: item for item in fresh.outbox_items()}  # the outbox file stays as it was
    assert set(kept) == {"pending", "failed", "sent"}
    assert kept["failed"].error_code == "not_member" and kept["pending"].parts[0]["text"] == "pending"
    assert fresh.insert_messages([make_message(2, id="after-a-hub-reset")]) != []
    fresh.close()


def test_start_fresh_salvages_what_an_older_version_kept_in_a_cache_truncated_to_half(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store_before_outbox_file(path, [make_item("unsent")], [Draft("team", "half a thought")])
    with sqlite3.connect(path) as old:  # its history, after the outbox's pages
        old.executemany(
            "INSERT INTO messages (seq, room, id, sender_name, ts, wire) VALUES (?, 'team', ?, 'alice', 0, ?)",
            [(seq, f"msg-{seq}", "x" * 500) for seq in range(1, 2000)],
        )
    old.close()
    damage(path, "truncated to half")  # its schema now names pages past the end
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    assert raised.value.fresh_cache_fixes

    fresh_start = LocalStore.start_fresh(path)
    assert fresh_start.kept_unsent == 1
    fresh = LocalStore(path)
    assert [item.client_id for item in fresh.outbox_items()] == ["unsent"]
    assert fresh.draft("team") == Draft("team", "half a thought")
    fresh.close()


def test_a_damaged_outbox_file_is_set_aside_and_every_readable_row_kept(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    for n in range(60):
        store.outbox_add(make_item(f"c{n:02d}", text="q" * 300, created_at=100.0 + n))
    store.save_draft(Draft("team", "half a thought"))
    store.close()
    damaged = outbox_path(path)
    garble_a_middle_leaf(damaged, "outbox")
    garbled = damaged.read_bytes()

    store = LocalStore(path)
    recovery = store.outbox_recovery()
    kept = [item.client_id for item in store.outbox_items()]
    assert recovery is not None and recovery.messages == len(kept) and 30 < len(kept) < 60
    assert kept == sorted(set(kept)) and store.draft("team") == Draft("team", "half a thought")
    assert recovery.moved_to.read_bytes() == garbled and recovery.moved_to.name.startswith(damaged.name + ".aside-")
    assert f"{len(kept)} message(s)" in recovery.text and str(recovery.moved_to) in recovery.text
    store.close()
    reopened = LocalStore(path)
    assert reopened.outbox_recovery() is None and len(reopened.outbox_items()) == len(kept)
    reopened.close()


def test_an_outbox_file_that_no_longer_opens_is_kept_aside_and_replaced(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    LocalStore(path).close()
    damage(outbox_path(path), "first 8 KiB overwritten")
    store = LocalStore(path)
    recovery = store.outbox_recovery()
    assert recovery is not None and recovery.messages == 0 and recovery.moved_to.exists()
    store.outbox_add(make_item("after"))
    assert [item.client_id for item in store.outbox_items()] == ["after"]
    store.close()


def test_start_fresh_from_garbage_keeps_nothing_and_opens(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    path.write_bytes(b"garbage" * 2000)
    fresh_start = LocalStore.start_fresh(path)
    assert fresh_start.kept_unsent == 0
    assert fresh_start.moved_to.read_bytes() == b"garbage" * 2000
    fresh = LocalStore(path)
    assert fresh.outbox_items() == []
    fresh.close()


def test_a_directory_in_place_of_the_file_is_unwritable(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    path.mkdir()
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    assert raised.value.problem is StoreProblem.UNWRITABLE
    assert str(path) in str(raised.value)


def test_a_file_in_place_of_the_folder_is_unwritable(tmp_path: Path):
    (tmp_path / "stores").write_text("not a folder")
    path = tmp_path / "stores" / "store.sqlite3"
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    assert raised.value.problem is StoreProblem.UNWRITABLE
    assert str(path) in str(raised.value)


@contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make files and folders read-only for this user; root needs the immutable attribute."""
    as_root = os.geteuid() == 0
    if as_root and shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a file read-only")
    for path in paths:
        if as_root:
            subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
        else:
            path.chmod(0o500 if path.is_dir() else 0o400)
    try:
        yield
    finally:
        for path in paths:
            if as_root:
                subprocess.run(["chattr", "-i", str(path)], check=True, capture_output=True)
            else:
                path.chmod(0o700 if path.is_dir() else 0o600)


@posix_file_modes
def test_a_read_only_store_is_refused_with_advice(tmp_path: Path):
    folder = tmp_path / "stores"
    path = folder / "store.sqlite3"
    LocalStore(path).close()
    with read_only(path, folder), pytest.raises(StoreError) as raised:
        LocalStore(path).insert_messages([make_message(1)])
    assert raised.value.problem is StoreProblem.UNWRITABLE
    assert str(path) in str(raised.value) and "writable" in str(raised.value)
