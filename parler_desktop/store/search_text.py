"""What the search index holds for a message: the words a reader sees (text parts without their
Markdown syntax, and the readable members of cards) and the short names of its part kinds.

The index must not double the cache: a word is indexed by its first ``MAX_WORD`` characters (a
base64 blob or a run of log noise is not something anyone types) and a message by its first
``MAX_BODY`` characters (a pasted build log is found by its beginning)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.store.preview import plain_text

CARD_FIELDS = ("next", "summary", "to", "task", "status", "note", "result", "name", "role")
MAX_WORD = 64
MAX_BODY = 16_000
_LONG_WORD = re.compile(rf"\w{{{MAX_WORD + 1},}}")


def short_kind(kind: str) -> str:
    """ "com.parler.handoff" -> "handoff"; "text" stays "text"."""
    return kind.rsplit(".", 1)[-1]


def indexed_text(parts: Sequence[dict]) -> tuple[str, str]:
    """(body, kinds) of a message's parts; the signature part carries nothing to find."""
    words: list[str] = []
    kinds: list[str] = []
    for part in parts:
        kind = part.get("kind")
        if not isinstance(kind, str) or kind == SIG_KIND:
            continue
        kinds.append(short_kind(kind))
        if kind == "text":
            words.append(plain_text(str(part.get("text", "")), MAX_BODY))
        else:
            words.extend(str(part[name]) for name in CARD_FIELDS if isinstance(part.get(name), str))
    body = _LONG_WORD.sub(lambda long: long.group()[:MAX_WORD], " ".join(words))[:MAX_BODY]
    return body, " ".join(dict.fromkeys(kinds))
