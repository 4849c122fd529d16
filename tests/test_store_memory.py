"""What the store keeps in memory does not grow with what passes through it (issue 42, item 1)."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import pytest

from parler_desktop.store import LocalStore

from test_store import make_message


def sqlite_memory_used() -> int:
    """The bytes SQLite has allocated in this process now (its page caches and statements)."""
    library = ctypes.util.find_library("sqlite3")
    if library is None:
        pytest.skip("SQLite is linked into Python's module here: its memory figure cannot be read")
    used = ctypes.CDLL(library).sqlite3_memory_used
    used.restype = ctypes.c_int64
    return used()


def test_batches_of_every_size_prepare_no_statement_of_their_own(tmp_path: Path):
    """A statement per batch size (``seq IN (?, ?, …)``) kept one prepared statement per size
    in sqlite3's cache of 128 a connection: 6.5 MB of SQLite's memory per connection for
    batches of 373-500 messages, pushes and pulls bringing every size."""
    store = LocalStore(tmp_path / "store.sqlite3")
    try:
        messages = [make_message(seq, f"room{seq % 500}") for seq in range(1, 501)]
        store.insert_messages(messages)
        rooms = [f"room{n}" for n in range(500)]
        store.insert_messages(messages[:1])
        store.sync_marks(rooms[:1])
        before = sqlite_memory_used()
        for size in range(373, 501):
            store.insert_messages(messages[:size])  # stored already: only looked up
            store.sync_marks(rooms[:size])
        assert sqlite_memory_used() - before < 512 * 1024
    finally:
        store.close()
