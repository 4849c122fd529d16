"""Equal values decoded again and again, kept once.

Every message names its sender (an ``EndpointRef``: the object and three strings, ~370 B), its
room and its parts' kinds, and json makes each of those anew for every message. A catch-up holds
up to 50,000 decoded messages at once (``client/page_writer.py``), nearly all from a handful of
agents in a handful of rooms: ~40 % of what a decoded message held was those copies (issue 42:
the window's memory rose with each catch-up's peak, Python's allocator keeping the arenas it grew
into). Bounded: a table past ``SHARED_MAX`` values starts again empty (a hub naming a million
senders costs a re-decode, never memory).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

SHARED_MAX = 4096  # values per table

Value = TypeVar("Value")


class SharedValues(Generic[Value]):
    """A bounded table of decoded values by a key of what they were decoded from."""

    def __init__(self, limit: int = SHARED_MAX) -> None:
        self._values: dict[Hashable, Value] = {}
        self._limit = limit

    def __len__(self) -> int:
        return len(self._values)

    def get(self, key: Hashable, decode: Callable[..., Value], *args: Any) -> Value:
        """The value kept for ``key``, else ``decode(*args)``'s (kept; raises what it raises): the
        arguments passed, not a closure made for each value asked for."""
        value = self._values.get(key)
        if value is None:
            value = decode(*args)
            if len(self._values) >= self._limit:
                self._values.clear()
            self._values[key] = value
        return value

    def text(self, text: str) -> str:
        """``text``, the copy kept of it (a call for every message's room and part kinds: no
        closure made for it)."""
        kept = self._values.get(text)
        if kept is None:
            if len(self._values) >= self._limit:
                self._values.clear()
            kept = self._values[text] = text
        return kept
