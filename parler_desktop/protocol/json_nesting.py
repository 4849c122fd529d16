"""How deeply a JSON text nests, checked before it is parsed.

The reference hub parses frames with serde_json, whose recursion limit (128) refuses a text
nested 128 arrays/objects deep; 127 levels parse. Our hub refuses the same texts up front, so a
deep data part is a ``bad_frame`` and never reaches code that walks it.
"""

from __future__ import annotations

import re

MAX_JSON_NESTING = 127  # serde_json: depth 127 parses, 128 is "recursion limit exceeded"

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def nesting_exceeds(text: str | bytes, limit: int = MAX_JSON_NESTING) -> bool:
    """True if ``text`` opens more than ``limit`` arrays/objects inside one another.

    Brackets inside strings do not count. Texts with fewer opening brackets than the limit are
    answered without a scan (the usual case).
    """
    if isinstance(text, bytes):
        if text.count(b"[") + text.count(b"{") <= limit:
            return False
        text = text.decode("utf-8", "replace")
    elif text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False
