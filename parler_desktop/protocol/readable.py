"""Text from the wire as it may be shown to a person: every character in the order it was sent.

A message or a name is untrusted. Bidirectional controls (embeddings, overrides, isolates and
marks) reorder what a reader sees: after U+202E the window showed "evil.exe" as "exe.live", and a
command could read as another. C0 and C1 controls and DEL drive terminals, and Qt draws them as
empty boxes. Each of them is replaced by U+FFFD, so the reader sees that something was there.
Newline and tab stay: they are how text is laid out.

The same rule serves the window (bodies, names, previews, notifications, search) and
``listen``'s terminal lines. What is stored, signed, copied as JSON or sent is not changed.
"""

from __future__ import annotations

import re

_UNREADABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def readable(text: str) -> str:
    """``text`` with controls and bidirectional controls replaced by U+FFFD (newline and tab kept)."""
    return _UNREADABLE.sub("\ufffd", text)


_ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escaped(text: str) -> str:
    """``text`` for one line of a terminal or a log: every control (C0 with newline and tab,
    DEL, C1) and bidirectional control written as its escape (``\\x1b``, ``\\u202e``), so
    nothing the hub or a peer sent retitles, clears or writes the clipboard of the terminal, or
    starts a line of its own."""
    return _ESCAPED.sub(_escape, text)
