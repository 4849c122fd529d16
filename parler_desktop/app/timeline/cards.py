"""Extension parts (protocol.md §8) as small cards: one titled line and an optional detail line,
and, for a card with more to say (a tool use, a task, a hand-off), every member of the part when
the reader expands it.

Only the wording lives here; the message delegate paints the cards. Unknown kinds still show a
placeholder, ``data`` parts show compact JSON, and nothing from the wire is interpreted as markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from parler_desktop.app.display_text import display_text
from parler_desktop.protocol.part_text import human_size, part_details, part_headline
from parler_desktop.protocol.parts import OBSERVATION_KIND, BundleRef, Dispatch, FileRef, Handoff, TaskStatus

__all__ = ["Card", "card_for", "human_size"]

MAX_DETAIL = 300
REQUEST_ACTIONS = ("Reply", "Hand back", "Done")  # on a card that waits for the human


@dataclass(frozen=True)
class Card:
    title: str
    detail: str = ""
    highlight: bool = False  # addressed to the human: painted to stand out
    blob_id: str | None = None  # a downloadable blob (file / bundle)
    file_name: str = ""
    file_size: int | None = None  # the blob's size as the part announced it
    more: str = ""  # the whole part, shown when the card is expanded ("" = nothing to expand)
    actions: tuple[str, ...] = ()  # buttons: a handoff addressed to the human, a task awaiting input


def _clip(text: str) -> str:
    """One line of a part's text as ``display_text`` shows it (a file's name comes off the wire)."""
    return display_text(" ".join(text.split()), MAX_DETAIL)


def card_for(part: dict[str, Any], my_name: str, my_role: str | None) -> Card:
    """The card for one non-text, non-signature part."""
    kind = part.get("kind")
    title = _clip(part_headline(part))
    if (handoff := Handoff.from_part(part)) is not None:
        mine = handoff.is_addressed_to(my_name, my_role)
        detail = f"done: {handoff.summary}" if handoff.summary else ""
        for_me = mine and bool(handoff.to)
        actions = REQUEST_ACTIONS if for_me else ()
        return Card(title, _clip(detail), highlight=for_me, more=part_details(part), actions=actions)
    if (task := TaskStatus.from_part(part)) is not None:
        actions = REQUEST_ACTIONS if task.status == "awaiting" else ()
        return Card(title, _clip(task.note or ""), more=part_details(part), actions=actions)
    if (file := FileRef.from_part(part)) is not None:
        return Card(title, _clip(file.summary or ""), blob_id=file.blob, file_name=file.safe_name, file_size=file.size)
    if (bundle := BundleRef.from_part(part)) is not None:
        name = f"bundle-{bundle.blob[:12]}.{bundle.vcs}"
        return Card(title, f"{bundle.vcs} bundle — never applied automatically", blob_id=bundle.blob, file_name=name, file_size=bundle.size)
    if Dispatch.from_part(part) is not None:
        return Card(title)
    if kind == "data":
        return Card(title, _clip(json.dumps(part.get("data"), ensure_ascii=False, separators=(",", ":"))), more=part_details(part))
    if kind == OBSERVATION_KIND:
        return Card(title, _clip(str(part.get("status") or "")), more=part_details(part))
    return Card(title, more=part_details(part))
