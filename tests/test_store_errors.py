"""Damaged and unusable store files become StoreErrors that name the file; quarantine recovers."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from parler_desktop.store import LocalStore, StoreError, StoreProblem

from test_store import make_message


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
    assert moved.parent == tmp_path and moved.name.startswith("store.sqlite3.corrupt-")
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


def test_a_read_only_store_is_refused_with_advice(tmp_path: Path):
    folder = tmp_path / "stores"
    path = folder / "store.sqlite3"
    LocalStore(path).close()
    with read_only(path, folder), pytest.raises(StoreError) as raised:
        LocalStore(path).insert_messages([make_message(1)])
    assert raised.value.problem is StoreProblem.UNWRITABLE
    assert str(path) in str(raised.value) and "writable" in str(raised.value)
