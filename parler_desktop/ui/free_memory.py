"""Hand the memory the C allocator keeps free back to the system (glibc's ``malloc_trim``).

Why: a room scrolled back through thousands of rows, then closed, frees its Qt documents and
Python objects, but glibc keeps the freed pages for later: the window's RSS stayed at 2.07x what it
was before opening the room, 1.41x once trimmed (bench/bench_memory.py --room-messages, issue 42).
Called by the idle collector after its full collection, while nothing arrives. Elsewhere (macOS,
Windows, musl) there is no such call and nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


_TRIM = _malloc_trim()


def give_back() -> None:
    """Return the allocator's free pages to the system, where the C library can."""
    if _TRIM is not None:
        _TRIM(0)
