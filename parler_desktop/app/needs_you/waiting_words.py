"""How Needs you words a wait: "waiting 14 min" (the queue's rows, its header) and the warning
lines above a room's timeline, made from the same items as the queue (``HubNeeds.in_room``), so
the room's warning never says what the queue does not (design.md §4b)."""

from __future__ import annotations

from collections.abc import Sequence

from parler_desktop.app.display_text import display_text
from parler_desktop.app.needs_you.needs_rules import NeedItem, NeedKind

ROOM_LINES = 3  # items named above the timeline, at most (the queue has them all)


def waited(seconds: float) -> str:
    minutes = max(0, int(seconds // 60))
    if minutes < 1:
        return "waiting under 1 min"  # not "0 min", which reads as no wait at all
    if minutes < 60:
        return f"waiting {minutes} min"
    return f"waiting {minutes // 60} h {minutes % 60} min"


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def room_warnings(items: Sequence[NeedItem], now: float) -> list[str]:
    """A line for each item of a room (plain text: names and questions come off the wire): a
    silence says the agent may be stuck, anything else that it waits on the human, and for how long."""
    lines = []
    for item in items[:ROOM_LINES]:
        name = display_text(item.agent_name)
        if item.kind is NeedKind.SILENT:
            lines.append(f"{name} has posted nothing for {(now - item.since) / 60:.0f} min on your request: it may be stuck")
            continue
        role = f" ({display_text(item.agent_role)})" if item.agent_role else ""
        text = display_text(first_line(item.text))
        lines.append(
            f"{name}{role} waits on you: {item.kind.label}{f' — {text}' if text else ''} · {waited(now - item.since)} "
            "(Ctrl+I opens Needs you)"
        )
    if len(items) > ROOM_LINES:
        lines.append(f"and {len(items) - ROOM_LINES} more waiting on you here")
    return lines
