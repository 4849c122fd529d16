"""The words and cuts of a timeline row that need no painting: the shown part of a huge text,
an unsent post's status, where to fold a long body, and the full date of a message (the name
and time of its header are ``app/timeline/message_reading.py``'s, which reads them out too).
"""

from __future__ import annotations

import math
import time

from PySide6.QtGui import QTextDocument

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.client.events import OutboxStatus
from parler_desktop.client.outbox import NOT_KEPT
from parler_desktop.protocol.readable import readable

MAX_SHOWN_CHARS = 20_000
MIN_HIDDEN_LINES = 4  # folding away fewer lines than this would save less than it costs


def shown_text(text: str) -> str:
    """At most MAX_SHOWN_CHARS of a message (a megabyte of Markdown must not freeze the window),
    readable as sent (``protocol/readable.py``)."""
    if len(text) <= MAX_SHOWN_CHARS:
        return readable(text)
    return f"{readable(text[:MAX_SHOWN_CHARS])}\n\n*… {len(text) - MAX_SHOWN_CHARS:,} more characters not shown (Copy text has them all)*"


def status_text(entry: TimelineEntry, online: bool = True) -> str:
    """An unsent post's state; one that waits for the hub says so rather than "Sending…"."""
    item = entry.outbox
    if item is None:
        return ""
    if item.status is OutboxStatus.PENDING:
        return "Sending…" if online else "Waiting for connection"
    if item.status is OutboxStatus.SENT:
        return f"Sent #{item.seq}" if item.seq is not None else "Sent"
    if item.error_code == NOT_KEPT:
        return item.error or "The hub did not keep this"  # it said it did: sent, and not kept
    return f"Not sent: {display_text(item.error or 'unknown error', NOTICE_CHARS)}"  # (the hub's words)


def button_label(entry: TimelineEntry, name: str) -> str:
    """A failed post's buttons ("retry", "discard"): Retry is Send again for a post the hub
    said it stored and did not keep."""
    if name == "retry" and entry.outbox is not None and entry.outbox.error_code == NOT_KEPT:
        return "Send again"
    return name.capitalize()


def fold(document: QTextDocument, limit: float) -> tuple[int, int] | None:
    """Where to cut a body taller than ``limit`` — under the last line that fits whole — and how
    many lines are below the cut; None when the body fits or too little would be hidden."""
    if document.size().height() <= limit:
        return None
    layout = document.documentLayout()
    cut = 0.0
    below: set[int] = set()  # the tops of hidden lines (table cells side by side share one)
    block = document.begin()
    while block.isValid():
        top = layout.blockBoundingRect(block).top()
        lines = block.layout()
        for number in range(lines.lineCount()):
            line = lines.lineAt(number)
            bottom = top + line.y() + line.height()
            if bottom <= limit:
                cut = max(cut, bottom)
            else:
                below.add(round(top + line.y()))
        block = block.next()
    if len(below) < MIN_HIDDEN_LINES:
        return None
    return (math.ceil(cut) if cut > 0 else int(limit)), len(below)


def full_date(ts_ms: int) -> str:
    """The time's tooltip: the whole date and the seconds."""
    return time.strftime("%A %d %B %Y, %H:%M:%S", time.localtime(ts_ms / 1000))
