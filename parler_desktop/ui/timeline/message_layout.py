"""Where each piece of a timeline row goes, computed once per (row, width) and cached.

Laying out Markdown is the costly step of a row, so a row's layout — its height, the body
document and the hit areas of its links and buttons — is computed the first time the view asks
for the row's size and reused for painting and clicks until the width changes.

A row, top to bottom: a date separator, the "New messages" divider, the header (author, role
when it is not just the name, time; none when the row continues the same author's messages),
the "in reply to" line, a warning band for an invalid signature (its text then hidden behind
"Show anyway"), the body, part cards, and the status of the human's unsent post.

A long body (a pasted build log) is folded: cut after the last line that fits in
COLLAPSED_LINES lines of text, with a "Show more" link under it.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QFont, QFontMetrics, QTextDocument

from parler_desktop.app.timeline.timeline_entry import RowContext, TimelineEntry
from parler_desktop.protocol.values import SignatureState
from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.app.timeline.cards import Card, card_for
from parler_desktop.app.timeline.message_reading import WARNING, format_time, shown_name, shows_role
from parler_desktop.ui.timeline.markdown import SafeTextDocument, blank_document, fill_document
from parler_desktop.ui.timeline.row_text import button_label, fold, shown_text, status_text

PAD = 8
GAP = 4
CARD_PAD = 6
DIVIDER_HEIGHT = 22
DATE_HEIGHT = 26
ICON_WIDTH = 18  # the right margin of every body, where a grouped row's signature icon sits
CACHE_SIZE = 1500
COLLAPSED_LINES = 20  # a folded body shows about this many lines of body text


@dataclass
class CardLayout:
    card: Card
    box: QRect
    save: QRect | None  # its Save… link
    expanded: bool
    detail_lines: int
    actions: dict[str, QRect] = field(default_factory=dict)  # the card's request buttons by label


@dataclass
class RowLayout:
    height: int
    body_top: int
    body: QTextDocument | None  # None also while an invalid message's text is hidden
    body_height: int  # as drawn: the fold when folded
    cards: list[CardLayout]
    status_top: int
    status_text: str
    signature: SignatureState | None = None  # None: the human's own post
    context: RowContext = field(default_factory=lambda: RowContext(False, False, ""))
    buttons: dict[str, QRect] = field(default_factory=dict)  # "retry" / "discard" hit areas
    mentions_me: bool = False
    header_top: int = 0
    time_text: str = ""
    time_rect: QRect | None = None  # where the time is (its tooltip is the full date)
    icon_rect: QRect | None = None  # the signature icon (its tooltip says what it means)
    reply_rect: QRect | None = None  # "in reply to …": a click goes to the original
    reply_text: str | None = None  # filled when first painted (needs the model)
    band: QRect | None = None  # the invalid-signature warning band
    folded: bool = False  # the body is cut at body_height
    toggle: QRect | None = None  # "Show more" / "Show less" / "Show anyway" / "Hide"
    toggle_text: str = ""


def body_width(row_width: int) -> int:
    """The width a row's Markdown body is laid out at."""
    return max(50, row_width - 2 * PAD - ICON_WIDTH)


def fit_width(document: QTextDocument, width: float) -> None:
    """Lay ``document`` out at ``width`` unless it already is: Qt lays a whole document out again
    on every ``setTextWidth``, even to the width it has (on a new row's way to the screen, that
    was its body's layout done twice)."""
    if document.textWidth() != width:
        document.setTextWidth(width)


class LayoutCache:
    """Row layouts keyed by what changes them: the row (and, for the human's posts, their send
    status), the width, the row's context and what the reader expanded. Each row's Markdown is
    parsed once and only laid out again for a new width. Least recently used entries go."""

    def __init__(self) -> None:
        self._rows: OrderedDict[tuple[object, ...], RowLayout] = OrderedDict()
        self._documents: OrderedDict[str, QTextDocument] = OrderedDict()
        self._spare: tuple[QFont, SafeTextDocument] | None = None  # the next body's blank document
        self._spare_font = QFont()
        self._metrics_of: tuple[QFont, QFontMetrics, QFontMetrics] | None = None
        self._spare_timer = QTimer(singleShot=True, interval=0)  # active: a spare is due
        self._spare_timer.timeout.connect(self._make_spare)
        self.my_id = ""
        self.my_name = ""
        self.my_role: str | None = None
        self.online = True  # the session sends, live or catching up (an unsent post says "Sending…", not "Waiting…")

    def clear(self) -> None:
        self._rows.clear()
        self._documents.clear()
        self._spare = None  # (made in the colours of its time)

    def shrink(self, keep: int) -> None:
        """Keep only the ``keep`` layouts and bodies used last (another room is shown: a room
        scrolled back through left 1,500 bodies here, 55 MB of RSS after closing it, issue 42)."""
        for cache in (self._rows, self._documents):
            while len(cache) > keep:
                cache.popitem(last=False)

    def forget(self, keys: Iterable[str]) -> None:
        """Drop the layouts and bodies of the rows of ``keys`` (removed from the model: a followed
        room trimmed from the top). Each body is ~26 KB of Qt's heap: kept until the 1,500 least
        recently used, a followed room's trimmed rows grew the window 2.6 MB per 10,000
        messages at a tenth of them into it (issue 42)."""
        gone = set(keys)
        for key in gone:
            self._documents.pop(key, None)
        for cache_key in [cache_key for cache_key in self._rows if cache_key[0] in gone]:
            del self._rows[cache_key]

    def _document(self, entry: TimelineEntry, font: QFont) -> QTextDocument:
        document = self._documents.get(entry.key)
        if document is None:
            document = fill_document(self._blank(font), shown_text(entry.text))
            self._documents[entry.key] = document
            if len(self._documents) > CACHE_SIZE:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(entry.key)
        return document

    def plain_text(self, entry: TimelineEntry, font: QFont) -> str:
        """The body's words as rendered (its painted document's text, no Markdown syntax): what a
        screen reader reads (``MessageReading.plain_body``)."""
        return self._document(entry, font).toPlainText() if entry.text.strip() else ""

    def _body_at(self, entry: TimelineEntry, font: QFont, width: int) -> QTextDocument:
        body = self._document(entry, font)
        fit_width(body, width)
        return body

    def prepare(self, entry: TimelineEntry, width: int, font: QFont) -> None:
        """Lay out the body of a row about to be added, at a row ``width``: its costliest part,
        done here so that adding the row finds it done (``TimelineModel.prepare_row``). A body
        shown behind "Show anyway" (an invalid signature) is not."""
        if entry.text.strip() and entry.signature is not SignatureState.INVALID:
            self._body_at(entry, font, body_width(width)).size()  # (Qt lays it out when first asked this)

    def _blank(self, font: QFont) -> SafeTextDocument:
        """A blank document in ``font``: the one made ahead, and the next made once idle (a pushed
        message's row is then painted that much sooner)."""
        spare, self._spare = self._spare, None
        if spare is None or spare[0] != font:
            spare = (QFont(font), blank_document(font))  # the option's font lives only as long as the option
        self._spare_font = spare[0]
        self._spare_timer.start()
        return spare[1]

    def _make_spare(self) -> None:
        if self._spare is None:
            self._spare = (self._spare_font, blank_document(self._spare_font))

    def get(
        self,
        entry: TimelineEntry,
        width: int,
        context: RowContext,
        font: QFont,
        expanded: bool = False,
        open_cards: frozenset[int] = frozenset(),
        answered: bool = False,
    ) -> RowLayout:
        """The row's layout; ``expanded`` shows a long (or a suspect) body whole instead of
        folded, ``open_cards`` are the cards shown with every detail; a request the human has
        ``answered`` has no buttons left."""
        status = entry.outbox.status if entry.outbox is not None else None
        online = self.online if status is not None else None
        cache_key = (entry.key, status, online, entry.seq, width, context, expanded, open_cards, answered)
        layout = self._rows.get(cache_key)
        if layout is None:
            layout = self._compute(entry, width, context, font, expanded, open_cards, answered)
            self._rows[cache_key] = layout
            if len(self._rows) > CACHE_SIZE:
                self._rows.popitem(last=False)
        else:
            self._rows.move_to_end(cache_key)
        return layout

    def _metrics(self, font: QFont) -> tuple[QFontMetrics, QFontMetrics]:
        """The metrics of ``font`` and of its bold: made again only for another font (making
        them cost a good part of laying out a new row's header)."""
        if self._metrics_of is None or self._metrics_of[0] != font:
            self._metrics_of = (QFont(font), QFontMetrics(font), QFontMetrics(_bold(font)))
        return self._metrics_of[1], self._metrics_of[2]

    def _compute(
        self,
        entry: TimelineEntry,
        width: int,
        context: RowContext,
        font: QFont,
        expanded: bool,
        open_cards: frozenset[int],
        answered: bool,
    ) -> RowLayout:
        metrics, bold_metrics = self._metrics(font)
        line = metrics.height()
        inner = body_width(width)
        signature = entry.signature
        top = (DATE_HEIGHT if context.day else 0) + (DIVIDER_HEIGHT if context.divider else 0)
        header_top = top + (2 if context.grouped else PAD)
        top = header_top
        time_text = ""  # shown in the header only: a grouped row has none
        time_rect = icon_rect = None
        if not context.grouped:
            time_text = format_time(entry.ts_ms)
            name_width = bold_metrics.horizontalAdvance(shown_name(entry))
            x = PAD + name_width + 8 + (metrics.horizontalAdvance("you (human)") + 18 if entry.mine else 0)
            if shows_role(entry):
                x += metrics.horizontalAdvance(f"{entry.sender_role} · ")
            time_rect = QRect(x, top, metrics.horizontalAdvance(time_text), line)
            top += line + GAP
        quiet = context.grouped and signature is SignatureState.UNSIGNED  # said once per group is enough
        if signature is not None and not entry.mine and not quiet:
            icon_rect = QRect(width - PAD - ICON_WIDTH, header_top, ICON_WIDTH, line)
        reply_rect = None
        if entry.reply_to:
            reply_rect = QRect(PAD, top, inner, line)
            top += line + GAP
        band = None
        if signature is SignatureState.INVALID:
            band = QRect(0, top, width, line + 8)
            top += band.height() + GAP
        body_top = top
        body: QTextDocument | None = None
        body_height = 0
        toggle: QRect | None = None
        toggle_text = ""
        folded = False
        if band is not None and not expanded:
            toggle_text = "Show anyway"
        elif entry.text.strip():
            body = self._body_at(entry, font, inner)
            body_height = math.ceil(body.size().height())
            cut = fold(body, COLLAPSED_LINES * metrics.lineSpacing()) if band is None else None
            if band is not None:
                toggle_text = "Hide the text again"
            elif cut is not None:
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
        cards: list[CardLayout] = []
        for number, part in enumerate(entry.extension_parts):
            card = card_for(part, self.my_name, self.my_role)
            opened = number in open_cards and bool(card.more)
            text = card.more if opened else card.detail
            lines = _wrapped_lines(metrics, text, inner - 2 * CARD_PAD) if opened else (1 if text else 0)
            box = QRect(PAD, top, inner, (1 + lines) * line + 2 * CARD_PAD)
            save = None
            if card.blob_id:
                save_width = metrics.horizontalAdvance("Save…") + 8
                save = QRect(box.right() - save_width - CARD_PAD, box.top() + CARD_PAD, save_width, line)
            actions: dict[str, QRect] = {}
            if card.actions and not entry.mine and not answered:
                x, y = box.left() + CARD_PAD, box.bottom() + 1
                for label in card.actions:
                    actions[label] = QRect(x, y, metrics.horizontalAdvance(label) + 16, line + 4)
                    x += actions[label].width() + 6
                box.setHeight(box.height() + line + 4 + CARD_PAD)
            cards.append(CardLayout(card, box, save, opened, lines, actions))
            top += box.height() + GAP
        status = status_text(entry, self.online)
        status_top = top
        buttons: dict[str, QRect] = {}
        if status:
            if entry.is_failed:
                labels = tuple((name, button_label(entry, name)) for name in ("retry", "discard"))
                buttons_width = 12 + sum(metrics.horizontalAdvance(label) + 22 for _name, label in labels)
                status = metrics.elidedText(status, Qt.TextElideMode.ElideRight, max(0, inner - buttons_width))  # Retry stays on the row
                x = PAD + metrics.horizontalAdvance(status) + 12
                for name, label in labels:
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
            signature=signature,
            context=context,
            buttons=buttons,
            mentions_me=mentions_human(entry.sender_id, entry.parts, entry.mentions, self.my_id, self.my_name, self.my_role),
            header_top=header_top,
            time_text=time_text,
            time_rect=time_rect,
            icon_rect=icon_rect,
            reply_rect=reply_rect,
            band=band,
            folded=folded,
            toggle=toggle,
            toggle_text=toggle_text,
        )


def _bold(font: QFont) -> QFont:
    bold = QFont(font)
    bold.setBold(True)
    return bold


def _wrapped_lines(metrics: QFontMetrics, text: str, width: int) -> int:
    """How many lines ``text`` takes wrapped at ``width``."""
    if not text:
        return 0
    flags = int(Qt.TextFlag.TextWordWrap.value) | int(Qt.TextFlag.TextWrapAnywhere.value)
    height = metrics.boundingRect(QRect(0, 0, max(1, width), 1_000_000), flags, text).height()
    return max(1, math.ceil(height / metrics.height()))
