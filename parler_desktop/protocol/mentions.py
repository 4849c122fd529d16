"""Whether a message is addressed to the human: the one rule behind the @ badge, the timeline's
highlight and the "for you" in notifications, so the three never disagree.

A message mentions the human when someone else sent it and its ``mentions`` hold the human's
name or role, its text says ``@name`` or ``@role`` as a word, or it carries a hand-off addressed
to them. Names compare case-insensitively, trimmed as the hub trims them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from parler_desktop.protocol.parts import Handoff, Part
from parler_desktop.protocol.trim import trim


@lru_cache(maxsize=8)  # one human, asked for every message laid out
def _handles(name: str, role: str | None) -> frozenset[str]:
    return frozenset(trim(handle).lower() for handle in (name, role or "") if trim(handle))


def _said_at(text: str, handles: frozenset[str]) -> bool:
    lowered = text.lower()
    for handle in handles:  # most messages say no "@handle" at all: no pattern is needed for them
        if f"@{handle}" in lowered and re.search(rf"(?<![\w@])@{re.escape(handle)}(?![\w-])", lowered):
            return True
    return False


def mentions_human(
    sender_id: str, parts: Sequence[Part], mentions: Iterable[str], my_id: str, name: str, role: str | None
) -> bool:
    if sender_id == my_id:
        return False
    handles = _handles(name, role)
    if not handles:
        return False
    if any(trim(mention).lower() in handles for mention in mentions):
        return True
    for part in parts:
        if part.get("kind") == "text" and isinstance(part.get("text"), str) and _said_at(part["text"], handles):
            return True
        handoff = Handoff.from_part(part)
        if handoff is not None and handoff.to is not None and handoff.is_addressed_to(name, role):
            return True
    return False
