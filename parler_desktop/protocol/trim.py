"""Trimming as the reference does it (Rust's ``str::trim``, the Unicode White_Space property).

Python's ``str.strip()`` also removes U+001C–U+001F, which Rust keeps; room names, mentions and
invite codes are trimmed by the hub, so both sides must agree on what whitespace is.
"""

from __future__ import annotations

WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)


def trim(text: str) -> str:
    """``text`` without leading and trailing White_Space characters."""
    return text.strip(WHITESPACE)
