"""Paints timeline rows (no widget per message) and turns clicks on a row's buttons into signals.

A row: an optional "new messages" divider, a header (author, role, time, and whether the text is
verified, unsigned or tampered — or that it is the human's own), the Markdown body (a long one
folded, fading out above a "Show more" link), part cards and, for the human's unsent posts,
their status with Retry / Discard.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QLinearGradient, QMouseEvent, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from parler_desktop.app.timeline_entry import TimelineEntry
from parler_desktop.protocol.canonical import SignatureState
from parler_desktop.ui.cards import Card
from parler_desktop.ui.markdown import markdown_document
from parler_desktop.ui.message_layout import CARD_PAD, DIVIDER_HEIGHT, GAP, PAD, LayoutCache, RowLayout, body_width

MINE_TINT = QColor(66, 133, 244, 28)
MENTION_TINT = QColor(255, 193, 7, 45)
MENTION_BAR = QColor(230, 145, 0)
HANDOFF_TINT = QColor(255, 152, 0, 60)
CARD_TINT = QColor(127, 127, 127, 28)
DIVIDER = QColor(220, 60, 60)
FADE_LINES = 3  # a folded body fades out over its last lines…
FADE_END = 0.8  # …leaving its last line faint but whole, so it does not look cut in half
SIGNATURE_LOOK = {
    SignatureState.VALID: ("✓ verified", QColor(46, 125, 50)),
    SignatureState.UNSIGNED: ("⚠ unsigned", QColor(176, 120, 0)),
    SignatureState.INVALID: ("✗ invalid signature", QColor(198, 40, 40)),
}
NAME_COLOURS = [QColor(c) for c in ("#1565c0", "#6a1b9a", "#2e7d32", "#ad1457", "#00838f", "#4e342e", "#283593")]


def name_colour(agent_id: str) -> QColor:
    return NAME_COLOURS[sum(agent_id.encode()) % len(NAME_COLOURS)]


def over(tint: QColor, base: QColor) -> QColor:
    """The opaque colour of ``tint`` painted over ``base`` (what a fade must end in)."""
    alpha = tint.alphaF()
    return QColor.fromRgbF(*(t * alpha + b * (1 - alpha) for t, b in zip(tint.getRgbF()[:3], base.getRgbF()[:3])))


class MessageDelegate(QStyledItemDelegate):
    retryRequested = Signal(str)  # client id
    discardRequested = Signal(str)
    saveRequested = Signal(object)  # Card with a blob
    toggleRequested = Signal(QModelIndex)  # the row's "Show more" / "Show less" was clicked

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.layouts = LayoutCache()
        self.my_id = ""

    def set_identity(self, agent_id: str, name: str, role: str | None) -> None:
        self.my_id = agent_id
        self.layouts.my_name = name
        self.layouts.my_role = role
        self.layouts.clear()

    def _layout(self, option: QStyleOptionViewItem, index: QModelIndex) -> tuple[TimelineEntry, RowLayout] | None:
        # Straight from the model, not through QVariant data roles: Qt asks for every row's size.
        model = index.model()
        entry = model.entry(index.row())
        if entry is None:
            return None
        divider = index.row() == model.first_unread_row()
        return entry, self.layouts.get(entry, self.row_width(), divider, option.font, model.is_expanded(entry.key))

    def row_layout(self, option: QStyleOptionViewItem, index: QModelIndex) -> RowLayout | None:
        """The row's layout (row coordinates), as painted."""
        found = self._layout(option, index)
        return found[1] if found is not None else None

    def row_width(self) -> int:
        """Rows span the viewport (the option's rect is not set when Qt asks for a size)."""
        view = self.parent()
        return max(200, view.viewport().width()) if view is not None else 400

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        found = self._layout(option, index)
        return QSize(self.row_width(), found[1].height if found else 0)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        found = self._layout(option, index)
        if found is None:
            return
        entry, layout = found
        painter.save()
        painter.translate(option.rect.topLeft())
        width = option.rect.width()
        top = 0
        if index.row() == index.model().first_unread_row():
            self._paint_divider(painter, option, width)
            top = DIVIDER_HEIGHT
        row = QRect(0, top, width, layout.height - top)
        tint = self._row_tint(option, entry, layout)
        if tint is not None:
            painter.fillRect(row, tint)
        if layout.mentions_me and not option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(QRect(0, top, 3, row.height()), MENTION_BAR)
        self._paint_header(painter, option, entry, layout, top + PAD, width)
        if layout.body is not None:
            self._paint_body(painter, option, layout, tint)
        for card, box, save in layout.cards:
            self._paint_card(painter, option, card, box, save)
        if layout.status_text:
            self._paint_status(painter, option, entry, layout)
        painter.restore()

    def _row_tint(self, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout) -> QColor | None:
        if option.state & QStyle.StateFlag.State_Selected:
            return option.palette.color(QPalette.ColorRole.Highlight).lighter(170)
        if layout.mentions_me:
            return MENTION_TINT
        return MINE_TINT if entry.mine else None

    def _paint_body(self, painter: QPainter, option: QStyleOptionViewItem, layout: RowLayout, tint: QColor | None) -> None:
        """The body, cut at its fold and fading into the row's background there, then its link."""
        self._fit_body(layout)
        inner = layout.body.textWidth()
        painter.save()
        painter.translate(PAD, layout.body_top)
        layout.body.drawContents(painter, QRectF(0, 0, inner, layout.body_height))
        if layout.folded:
            base = option.palette.color(QPalette.ColorRole.Base)
            background = over(tint, base) if tint is not None else base
            fade = min(layout.body_height, round(FADE_LINES * option.fontMetrics.lineSpacing()))
            gradient = QLinearGradient(0, layout.body_height - fade, 0, layout.body_height)
            for at, alpha in ((0.0, 0.0), (1.0, FADE_END)):
                colour = QColor(background)
                colour.setAlphaF(alpha)
                gradient.setColorAt(at, colour)
            painter.fillRect(QRectF(0, layout.body_height - fade, inner, fade), gradient)
        painter.restore()
        if layout.toggle is not None:
            painter.setFont(option.font)
            painter.setPen(option.palette.color(QPalette.ColorRole.Link))
            painter.drawText(layout.toggle, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, layout.toggle_text)

    def _fit_body(self, layout: RowLayout) -> None:
        inner = body_width(self.row_width())
        if layout.body is not None and layout.body.textWidth() != inner:  # shared by the row's layouts at other widths
            layout.body.setTextWidth(inner)

    def link_at(self, option: QStyleOptionViewItem, index: QModelIndex, point: QPoint) -> str | None:
        """The address of the link under ``point`` (viewport coordinates) in the row's text, if any."""
        found = self._layout(option, index)
        if found is None or found[1].body is None:
            return None
        layout = found[1]
        self._fit_body(layout)
        local = point - option.rect.topLeft() - QPoint(PAD, layout.body_top)
        if local.y() >= layout.body_height:
            return None  # below the fold (or under the body)
        return layout.body.documentLayout().anchorAt(QPointF(local)) or None

    def _paint_divider(self, painter: QPainter, option: QStyleOptionViewItem, width: int) -> None:
        painter.setPen(DIVIDER)
        middle = DIVIDER_HEIGHT // 2
        label = "New messages"
        font = QFont(option.font)
        font.setBold(True)
        painter.setFont(font)
        text_width = painter.fontMetrics().horizontalAdvance(label) + 16
        painter.drawLine(PAD, middle, (width - text_width) // 2, middle)
        painter.drawLine((width + text_width) // 2, middle, width - PAD, middle)
        painter.drawText(QRect(0, 0, width, DIVIDER_HEIGHT), Qt.AlignmentFlag.AlignCenter, label)

    def _paint_header(
        self, painter: QPainter, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout, y: int, width: int
    ) -> None:
        metrics = option.fontMetrics
        line = metrics.height()
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(name_colour(entry.sender_id))
        name = entry.sender_name or entry.sender_id[:8]
        painter.drawText(QPoint(PAD, y + metrics.ascent()), name)
        x = PAD + painter.fontMetrics().horizontalAdvance(name) + 8
        painter.setFont(option.font)
        muted = option.palette.color(QPalette.ColorRole.PlaceholderText)
        if entry.mine:
            tag = "you (human)"
            tag_width = metrics.horizontalAdvance(tag) + 10
            painter.setBrush(QColor(66, 133, 244))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(QRect(x, y, tag_width, line), 4, 4)
            painter.setPen(QColor("white"))
            painter.drawText(QRect(x, y, tag_width, line), Qt.AlignmentFlag.AlignCenter, tag)
            x += tag_width + 8
        painter.setPen(muted)
        seq = f"#{entry.seq}" if entry.mine and entry.seq is not None else ""  # the human's post, as stored
        details = " · ".join(p for p in (entry.sender_role or "", layout.time_text, seq) if p)
        painter.drawText(QPoint(x, y + metrics.ascent()), details)
        state = entry.signature
        if state is not None and not entry.mine:
            label, colour = SIGNATURE_LOOK[state]
            painter.setPen(colour)
            painter.drawText(QRect(0, y, width - PAD, line), Qt.AlignmentFlag.AlignRight, label)
        if entry.reply_to:
            if layout.reply_text is None:
                layout.reply_text = self._reply_preview(entry.reply_to)
            painter.setPen(muted)
            painter.drawText(QPoint(PAD, y + line + GAP + metrics.ascent()), layout.reply_text)

    def _reply_preview(self, message_id: str) -> str:
        view = self.parent()
        original = view.model().entry_by_id(message_id) if view is not None and view.model() is not None else None
        if original is None:
            return "↪ in reply to an earlier message"
        text = " ".join(markdown_document(original.text).toPlainText().split())  # once per row: cached
        return f"↪ in reply to {original.sender_name}: {text[:80]}"

    def _paint_card(self, painter: QPainter, option: QStyleOptionViewItem, card: Card, box: QRect, save: QRect | None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(HANDOFF_TINT if card.highlight else CARD_TINT)
        painter.drawRoundedRect(box, 5, 5)
        metrics = option.fontMetrics
        text_right = (save.left() if save else box.right()) - CARD_PAD
        title_font = QFont(option.font)
        title_font.setBold(card.highlight)
        painter.setFont(title_font)
        painter.setPen(option.palette.color(QPalette.ColorRole.Text))
        title_rect = QRect(box.left() + CARD_PAD, box.top() + CARD_PAD, text_right - box.left() - CARD_PAD, metrics.height())
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft, metrics.elidedText(card.title, Qt.TextElideMode.ElideRight, title_rect.width()))
        painter.setFont(option.font)
        if card.detail:
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
            detail_rect = title_rect.translated(0, metrics.height())
            painter.drawText(detail_rect, Qt.AlignmentFlag.AlignLeft, metrics.elidedText(card.detail, Qt.TextElideMode.ElideRight, detail_rect.width()))
        if save is not None:
            painter.setPen(option.palette.color(QPalette.ColorRole.Link))
            painter.drawText(save, Qt.AlignmentFlag.AlignCenter, "Save…")

    def _paint_status(self, painter: QPainter, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout) -> None:
        metrics = option.fontMetrics
        colour = QColor(198, 40, 40) if entry.is_failed else option.palette.color(QPalette.ColorRole.PlaceholderText)
        painter.setPen(colour)
        painter.drawText(QPoint(PAD, layout.status_top + 2 + metrics.ascent()), layout.status_text)
        for name, rect in layout.buttons.items():
            painter.setPen(option.palette.color(QPalette.ColorRole.Mid))
            painter.setBrush(option.palette.color(QPalette.ColorRole.Button))
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(option.palette.color(QPalette.ColorRole.ButtonText))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, name.capitalize())

    def editorEvent(self, event: QEvent, model, option: QStyleOptionViewItem, index: QModelIndex) -> bool:  # noqa: ANN001
        if event.type() != QEvent.Type.MouseButtonRelease or not isinstance(event, QMouseEvent):
            return False
        found = self._layout(option, index)
        if found is None:
            return False
        entry, layout = found
        point = event.position().toPoint() - option.rect.topLeft()
        if layout.toggle is not None and layout.toggle.contains(point):
            self.toggleRequested.emit(index)
            return True
        for name, rect in layout.buttons.items():
            if rect.contains(point) and entry.outbox is not None:
                (self.retryRequested if name == "retry" else self.discardRequested).emit(entry.outbox.client_id)
                return True
        for card, _box, save in layout.cards:
            if save is not None and save.contains(point):
                self.saveRequested.emit(card)
                return True
        return False
