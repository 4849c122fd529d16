"""Extension parts (protocol.md §8) as small cards: one titled line and an optional detail line.

Only the wording lives here; the message delegate paints the cards. Unknown kinds still show a
placeholder, ``data`` parts show compact JSON, and nothing from the wire is interpreted as markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from parler_desktop.protocol.parts import OBSERVATION_KIND, BundleRef, Dispatch, FileRef, Handoff, TaskStatus

MAX_DETAIL = 300


@dataclass(frozen=True)
class Card:
    title: str
    detail: str = ""
    highlight: bool = False  # addressed to the human: painted to stand out
    blob_id: str | None = None  # a downloadable blob (file / bundle)
    file_name: str = ""


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB"):
        if value < 1024:
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


def card_for(part: dict[str, Any], my_name: str, my_role: str | None) -> Card:
    """The card for one non-text, non-signature part."""
    kind = part.get("kind")
    if (handoff := Handoff.from_part(part)) is not None:
        mine = handoff.is_addressed_to(my_name, my_role)
        target = handoff.to or "anyone"
        detail = f"done: {handoff.summary}" if handoff.summary else ""
        return Card(f"🤝 handoff → {target}: {_clip(handoff.next)}", _clip(detail), highlight=mine and bool(handoff.to))
    if (task := TaskStatus.from_part(part)) is not None:
        marker = TaskStatus.MARKERS.get(task.status, "•")
        task_id = f" ({task.task[:12]})" if task.task else ""
        return Card(f"{marker} task {task.status}{task_id}", _clip(task.note or ""))
    if (file := FileRef.from_part(part)) is not None:
        title = f"📎 {file.safe_name} ({human_size(file.size)})"
        return Card(title, _clip(file.summary or ""), blob_id=file.blob, file_name=file.safe_name)
    if (bundle := BundleRef.from_part(part)) is not None:
        tip = f" @{bundle.tip[:12]}" if bundle.tip else ""
        title = f"📦 {bundle.summary or bundle.vcs + ' bundle'}{tip} ({human_size(bundle.size)})"
        name = f"bundle-{bundle.blob[:12]}.{bundle.vcs}"
        return Card(_clip(title), f"{bundle.vcs} bundle — never applied automatically", blob_id=bundle.blob, file_name=name)
    if (dispatch := Dispatch.from_part(part)) is not None:
        return Card(f"📨 work for role “{dispatch.role}”")
    if kind == "data":
        return Card("[data]", _clip(json.dumps(part.get("data"), ensure_ascii=False, separators=(",", ":"))))
    if kind == OBSERVATION_KIND:
        what = part.get("tool_name") or part.get("type") or "activity"
        return Card(f"🔎 {_clip(str(what))}", _clip(str(part.get("status") or "")))
    return Card(f"[{_clip(str(kind))}]")
