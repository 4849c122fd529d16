"""Where each piece of a timeline row goes, computed once per (row, width) and cached.

Laying out Markdown is the costly step of a row, so a row's layout — its height, the body
document and the hit areas of its buttons — is computed the first time the view asks for the
row's size and reused for painting and clicks until the width changes.

A long body (a pasted build log) is folded: cut after the last line that fits in
COLLAPSED_LINES lines of text, with a "Show more" link under it, so the conversation around it
stays on screen. Expanded, the whole body shows with "Show less".
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from PySide6.QtCore import QRect
from PySide6.QtGui import QFont, QFontMetrics, QTextDocument

from parler_desktop.app.timeline_entry import TimelineEntry
from parler_desktop.client.events import OutboxStatus
from parler_desktop.ui.cards import Card, card_for
from parler_desktop.ui.markdown import markdown_document

PAD = 8
GAP = 4
CARD_PAD = 6
DIVIDER_HEIGHT = 22
CACHE_SIZE = 1500
MAX_SHOWN_CHARS = 20_000
COLLAPSED_LINES = 20  # a folded body shows about this many lines of body text
MIN_HIDDEN_LINES = 4  # folding away fewer lines than this would save less than it costs


@dataclass
class RowLayout:
    height: int
    body_top: int
    body: QTextDocument | None
    body_height: int  # as drawn: the fold when folded
    cards: list[tuple[Card, QRect, QRect | None]]  # card, its box, its Save… link
    status_top: int
    status_text: str
    buttons: dict[str, QRect] = field(default_factory=dict)  # "retry" / "discard" hit areas
    mentions_me: bool = False
    time_text: str = ""
    reply_text: str | None = None  # filled when first painted (needs the model)
    folded: bool = False  # the body is cut at body_height
    toggle: QRect | None = None  # the "Show more" / "Show less" link of a long body
    toggle_text: str = ""


def body_width(row_width: int) -> int:
    """The width a row's Markdown body is laid out at."""
    return max(50, row_width - 2 * PAD)


def shown_text(text: str) -> str:
    """At most MAX_SHOWN_CHARS of a message: a megabyte of Markdown must not freeze the window."""
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    return f"{text[:MAX_SHOWN_CHARS]}\n\n*… {len(text) - MAX_SHOWN_CHARS:,} more characters not shown (Copy text has them all)*"


def status_text(entry: TimelineEntry) -> str:
    item = entry.outbox
    if item is None:
        return ""
    if item.status is OutboxStatus.PENDING:
        return "Sending…"
    if item.status is OutboxStatus.SENT:
        return f"Sent #{item.seq}" if item.seq is not None else "Sent"
    return f"Not sent: {item.error or 'unknown error'}"


def mentions_me(entry: TimelineEntry, my_name: str, my_role: str | None) -> bool:
    """Addressed to the human: their name or role in ``mentions`` or written as ``@name``."""
    if entry.mine:
        return False
    text = entry.text.lower()
    for handle in (my_name, my_role or ""):
        handle = handle.strip().lower()
        if handle and (handle in entry.mentions or f"@{handle}" in text):
            return True
    return False


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


def format_time(ts_ms: int) -> str:
    local = time.localtime(ts_ms / 1000)
    if time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d"):
        return time.strftime("%H:%M", local)
    return time.strftime("%d %b %H:%M", local)


class LayoutCache:
    """Row layouts keyed by what changes them: the row (and, for the human's posts, their send
    status), the width and the divider. Each row's Markdown is parsed once and only laid out
    again for a new width, so resizing the window does not re-parse. Least recently used
    layouts and documents are dropped."""

    def __init__(self) -> None:
        self._rows: OrderedDict[tuple[object, ...], RowLayout] = OrderedDict()
        self._documents: OrderedDict[str, QTextDocument] = OrderedDict()
        self.my_name = ""
        self.my_role: str | None = None

    def clear(self) -> None:
        self._rows.clear()
        self._documents.clear()

    def _document(self, entry: TimelineEntry, font: QFont) -> QTextDocument:
        document = self._documents.get(entry.key)
        if document is None:
            document = markdown_document(shown_text(entry.text), font)
            self._documents[entry.key] = document
            if len(self._documents) > CACHE_SIZE:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(entry.key)
        return document

    def get(self, entry: TimelineEntry, width: int, divider: bool, font: QFont, expanded: bool = False) -> RowLayout:
        """The row's layout; ``expanded`` shows a long body whole instead of folded."""
        status = entry.outbox.status if entry.outbox is not None else None
        cache_key = (entry.key, status, entry.seq, width, divider, expanded)
        layout = self._rows.get(cache_key)
        if layout is None:
            layout = self._compute(entry, width, divider, font, expanded)
            self._rows[cache_key] = layout
            if len(self._rows) > CACHE_SIZE:
                self._rows.popitem(last=False)
        else:
            self._rows.move_to_end(cache_key)
        return layout

    def _compute(self, entry: TimelineEntry, width: int, divider: bool, font: QFont, expanded: bool) -> RowLayout:
        metrics = QFontMetrics(font)
        line = metrics.height()
        inner = body_width(width)
        top = (DIVIDER_HEIGHT if divider else 0) + PAD
        top += line + GAP  # header: name, role, time, signature
        if entry.reply_to:
            top += line
        body_top = top
        body: QTextDocument | None = None
        body_height = 0
        toggle: QRect | None = None
        toggle_text = ""
        folded = False
        if entry.text.strip():
            body = self._document(entry, font)
            body.setTextWidth(inner)
            body_height = math.ceil(body.size().height())
            cut = fold(body, COLLAPSED_LINES * metrics.lineSpacing())
            if cut is not None:
                folded = not expanded
                if folded:
                    body_height, hidden = cut
                    toggle_text = f"Show more ▾ ({hidden:,} more lines)"
                else:
                    toggle_text = "Show less ▴"
            top += body_height + GAP
            if toggle_text:
                toggle = QRect(PAD, top, metrics.horizontalAdvance(toggle_text) + 4, line)
                top += line + GAP
        cards: list[tuple[Card, QRect, QRect | None]] = []
        for part in entry.extension_parts:
            card = card_for(part, self.my_name, self.my_role)
            lines = 2 if card.detail else 1
            box = QRect(PAD, top, inner, lines * line + 2 * CARD_PAD)
            save = None
            if card.blob_id:
                save_width = metrics.horizontalAdvance("Save…") + 8
                save = QRect(box.right() - save_width - CARD_PAD, box.top() + CARD_PAD, save_width, line)
            cards.append((card, box, save))
            top += box.height() + GAP
        status = status_text(entry)
        status_top = top
        buttons: dict[str, QRect] = {}
        if status:
            if entry.is_failed:
                x = PAD + metrics.horizontalAdvance(status) + 12
                for name, label in (("retry", "Retry"), ("discard", "Discard")):
                    w = metrics.horizontalAdvance(label) + 16
                    buttons[name] = QRect(x, top, w, line + 4)
                    x += w + 6
            top += line + 4 + GAP
        return RowLayout(
            height=top + PAD - GAP,
            body_top=body_top,
            body=body,
            body_height=body_height,
            cards=cards,
            status_top=status_top,
            status_text=status,
            buttons=buttons,
            mentions_me=mentions_me(entry, self.my_name, self.my_role),
            time_text=format_time(entry.ts_ms),
            folded=folded,
            toggle=toggle,
            toggle_text=toggle_text,
        )
