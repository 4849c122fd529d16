"""One line of words for an extension part (protocol.md §8): the title of its card in the
timeline and its preview in the room list ("➤ handoff → dana: review the login PR"), so the
two always say the same thing. Plain text only; nothing here is markup. Its symbols are ones
DejaVu Sans, Segoe UI Symbol and Apple Symbols all draw: emoji need a colour emoji font, and
without one (a minimal Linux desktop) every card began with an empty box.
"""

from __future__ import annotations

import json
from typing import Any

from parler_desktop.protocol.parts import OBSERVATION_KIND, BundleRef, Dispatch, FileRef, Handoff, TaskStatus


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB"):
        if value < 1024:
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def part_headline(part: dict[str, Any]) -> str:
    """The part in one line (not clipped: callers cut it to their width)."""
    if (handoff := Handoff.from_part(part)) is not None:
        return f"➤ handoff → {handoff.to or 'anyone'}: {handoff.next}"
    if (task := TaskStatus.from_part(part)) is not None:
        task_id = f" ({task.task[:12]})" if task.task else ""
        return f"{TaskStatus.MARKERS.get(task.status, '•')} task {task.status}{task_id}"
    if (file := FileRef.from_part(part)) is not None:
        return f"⬇ {file.safe_name} ({human_size(file.size)})"
    if (bundle := BundleRef.from_part(part)) is not None:
        tip = f" @{bundle.tip[:12]}" if bundle.tip else ""
        return f"▣ {bundle.summary or bundle.vcs + ' bundle'}{tip} ({human_size(bundle.size)})"
    if (dispatch := Dispatch.from_part(part)) is not None:
        return f"✉ work for role “{dispatch.role}”"
    kind = part.get("kind")
    if kind == "data":
        return "[data]"
    if kind == OBSERVATION_KIND:
        return f"▸ {part.get('tool_name') or part.get('type') or 'activity'}"
    return f"[{kind}]"


def part_details(part: dict[str, Any]) -> str:
    """Every member of the part but its kind, one ``name: value`` per line (an expanded card)."""
    lines = []
    for name, value in part.items():
        if name != "kind":
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1)
            lines.append(f"{name}: {shown}")
    return "\n".join(lines)
