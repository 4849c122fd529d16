"""Paints timeline rows (no widget per message) and turns clicks on a row's links, cards and
buttons into signals.

Verification is quiet (a small ✓ with a tooltip); an invalid signature is loud: a warning band
across the row, the text hidden until "Show anyway". Where each piece goes is
``message_layout``; colours come from the scheme's palette (``ui/appearance/theme.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QFont, QHelpEvent, QLinearGradient, QMouseEvent, QPainter, QPalette, QTextCursor
from PySide6.QtWidgets import QAbstractItemView, QAbstractScrollArea, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QToolTip

from parler_desktop.app.timeline.timeline_entry import RowContext, TimelineEntry
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.app.display_text import display_text
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.protocol.readable import readable
from parler_desktop.protocol.values import SignatureState
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.timeline.links import link_tooltip
from parler_desktop.ui.timeline.markdown import markdown_document
from parler_desktop.ui.timeline.message_layout import DATE_HEIGHT, DIVIDER_HEIGHT, PAD, WARNING, LayoutCache, RowLayout, body_width, fit_width, shows_role
from parler_desktop.ui.timeline.row_painting import paint_card, paint_rule, paint_status
from parler_desktop.ui.timeline.row_sizes import RowSizes
from parler_desktop.app.timeline.message_reading import shown_name
from parler_desktop.ui.timeline.row_text import full_date

FADE_LINES = 3  # a folded body fades out over its last lines…
FADE_END = 0.8  # …leaving its last line faint but whole, so it does not look cut in half
SIGNATURE_ICONS = {  # the mark, its colour in the palette (None: the muted text's), what it means
    SignatureState.VALID: ("✓", "signed", "Verified: signed by the sender's key, unchanged since."),
    SignatureState.UNSIGNED: ("○", None, "Not signed: the sender's client does not sign its messages."),
    SignatureState.INVALID: ("✗", "forged", "Invalid signature: this message may have been altered or forged."),
}


def name_colour(agent_id: str) -> QColor:
    """A stable colour per author, from the scheme's names (each readable on every row ground)."""
    names = theme.colours.names
    return QColor(names[sum(agent_id.encode()) % len(names)])


class MessageDelegate(QStyledItemDelegate):
    retryRequested = Signal(str)  # client id
    discardRequested = Signal(str)
    saveRequested = Signal(object)  # Card with a blob
    toggleRequested = Signal(QModelIndex)  # the row's "Show more" / "Show anyway" / … was clicked
    cardToggled = Signal(QModelIndex, int)  # a card with details was clicked
    replyClicked = Signal(QModelIndex)  # the row's "in reply to" line was clicked
    requestAction = Signal(QModelIndex, str)  # a card's Reply / Hand back / Done was clicked

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # The view's viewport, whose width rows take (asked for every row Qt lays out).
        self._viewport = parent.viewport() if isinstance(parent, QAbstractScrollArea) else None
        self.layouts = LayoutCache()
        self.sizes = RowSizes()
        self.selection: tuple[str, int, int] | None = None  # entry key, start, end in its body
        self.answered: Callable[[str], bool] = lambda _message_id: False  # the human acted on that request
        theme.changed.connect(self._forget_layouts)

    def _forget_layouts(self) -> None:
        """A new scheme: bodies are made again (Markdown links and code shading carry its colours)."""
        self.layouts.clear()
        self.sizes.clear()

    def set_identity(self, agent_id: str, name: str, role: str | None) -> None:
        self.layouts.my_id = agent_id
        self.layouts.my_name = name
        self.layouts.my_role = role
        self.layouts.clear()
        self.sizes.clear()

    def _layout(self, option: QStyleOptionViewItem, index: QModelIndex) -> tuple[TimelineEntry, RowLayout] | None:
        """The row's entry and its exact layout at the current width."""
        return self._layout_at(option, index.model(), index.row())

    def _layout_at(
        self, option: QStyleOptionViewItem, model: TimelineModel | None, row: int, exact: bool = True, width: int | None = None
    ) -> tuple[TimelineEntry, RowLayout] | None:
        # Straight from the model, not through QVariant data roles: Qt asks for every row's size.
        entry = model.entry(row) if model is not None else None  # no model: no row (a tooltip below the rows)
        if entry is None:
            return None
        width = width or self.row_width()  # asking the viewport costs a good part of a row's size
        answered = entry.message_id is not None and self.answered(entry.message_id)

        def laid_out(context: RowContext, expanded: bool, open_cards: frozenset[int]) -> RowLayout:
            return self.layouts.get(entry, width, context, option.font, expanded, open_cards, answered)

        return entry, self.sizes.layout(model, row, entry, width, laid_out, exact, answered)

    def row_layout(self, option: QStyleOptionViewItem, index: QModelIndex) -> RowLayout | None:
        """The row's layout (row coordinates), as painted."""
        found = self._layout(option, index)
        return found[1] if found is not None else None

    def row_width(self) -> int:
        """Rows span the viewport (the option's rect is not set when Qt asks for a size)."""
        return max(200, self._viewport.width()) if self._viewport is not None else 400

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        width = self.row_width()
        return QSize(width, self.row_height(option, index.model(), index.row(), width))

    def prepare_row(self, option: QStyleOptionViewItem, entry: TimelineEntry) -> None:
        """Lay out the costly part of a row about to be added (``LayoutCache.prepare``). A failure
        is left for the row's own layout to meet, and show (``row_failures``)."""
        try:
            self.layouts.prepare(entry, self.row_width(), option.font)
        except Exception:  # laid out again as the row is added: a failure is reported there
            pass

    def row_height(self, option: QStyleOptionViewItem, model: TimelineModel, row: int, width: int | None = None) -> int:
        """``sizeHint``'s height, for a view that lays rows out by number (``RowListView``): no
        index is made, and none asked for its model and row, on a new row's way to the screen.
        While a room opens, a row not laid out yet off screen gets a guess (``RowSizes.estimated``)."""
        if self.sizes.estimate is not None and (entry := model.entry(row)) is not None:
            guess = self.sizes.estimated(row, entry.key)
            if guess is not None:
                return guess
        found = self._layout_at(option, model, row, exact=False, width=width)
        return found[1].height if found is not None else 0

    def exact_height(self, option: QStyleOptionViewItem, index: QModelIndex) -> int:
        """The row's height laid out at the current width, even when it is off screen."""
        found = self._layout(option, index)
        return found[1].height if found else 0

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        self.paint_row(painter, option, index.model(), index.row(), bool(option.state & QStyle.StateFlag.State_Selected))

    def paint_row(self, painter: QPainter, option: QStyleOptionViewItem, model: TimelineModel, row: int, selected: bool) -> None:
        """``paint``, for a view that paints rows by number and says whether the row is selected
        (see ``RowListView.paintEvent``)."""
        found = self._layout_at(option, model, row)
        if found is None:
            return
        entry, layout = found
        painter.save()
        painter.translate(option.rect.topLeft())
        width = option.rect.width()
        top = 0
        if layout.context.day:
            paint_rule(painter, option, QRect(0, 0, width, DATE_HEIGHT), layout.context.day, option.palette.color(QPalette.ColorRole.PlaceholderText))
            top += DATE_HEIGHT
        if layout.context.divider:
            paint_rule(painter, option, QRect(0, top, width, DIVIDER_HEIGHT), "New messages", QColor(theme.colours.divider))
            top += DIVIDER_HEIGHT
        message_area = QRect(0, top, width, layout.height - top)  # below the date and the divider
        tint = self._row_tint(option, entry, layout, selected)
        if tint is not None:
            painter.fillRect(message_area, tint)
        if layout.mentions_me and not selected:
            painter.fillRect(QRect(0, top, 3, message_area.height()), QColor(theme.colours.mention_bar))
        if not layout.context.grouped:
            self._paint_header(painter, option, entry, layout)
        self._paint_icon(painter, option, layout)
        if layout.reply_rect is not None:
            if layout.reply_text is None:
                layout.reply_text = self._reply_preview(entry.reply_to or "")
            painter.setPen(option.palette.color(QPalette.ColorRole.Link))
            painter.drawText(layout.reply_rect, Qt.AlignmentFlag.AlignLeft, option.fontMetrics.elidedText(layout.reply_text, Qt.TextElideMode.ElideRight, layout.reply_rect.width()))
        if layout.band is not None:
            painter.fillRect(layout.band, QColor(theme.colours.warning_band))
            painter.setPen(QColor(theme.colours.warning_text))
            painter.drawText(layout.band.adjusted(PAD, 0, -PAD, 0), Qt.AlignmentFlag.AlignVCenter, option.fontMetrics.elidedText(WARNING, Qt.TextElideMode.ElideRight, layout.band.width() - 2 * PAD))
        if layout.body is not None:
            self._paint_body(painter, option, entry, layout, tint)
        if layout.toggle is not None:
            painter.setFont(option.font)
            painter.setPen(option.palette.color(QPalette.ColorRole.Link))
            painter.drawText(layout.toggle, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, layout.toggle_text)
        for card in layout.cards:
            paint_card(painter, option, card)
        if layout.status_text:
            paint_status(painter, option, entry, layout)
        painter.restore()

    def _row_tint(self, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout, selected: bool) -> QColor | None:
        if selected:
            return QColor(theme.colours.selected_row)
        if layout.mentions_me:
            return QColor(theme.colours.mention_row)
        return QColor(theme.colours.mine_row) if entry.mine else None

    def _paint_body(self, painter: QPainter, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout, tint: QColor | None) -> None:
        """The body (with the reader's selection), cut at its fold and fading out there."""
        self._fit_body(layout)
        inner = layout.body.textWidth()
        painter.save()
        painter.translate(PAD, layout.body_top)
        painter.setClipRect(QRectF(0, 0, inner, layout.body_height))
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = option.palette
        context.clip = QRectF(0, 0, inner, layout.body_height)
        if self.selection is not None and self.selection[0] == entry.key:
            chosen = QAbstractTextDocumentLayout.Selection()
            chosen.cursor = QTextCursor(layout.body)
            chosen.cursor.setPosition(self.selection[1])
            chosen.cursor.setPosition(self.selection[2], QTextCursor.MoveMode.KeepAnchor)
            chosen.format.setBackground(option.palette.color(QPalette.ColorRole.Highlight))
            chosen.format.setForeground(option.palette.color(QPalette.ColorRole.HighlightedText))
            context.selections = [chosen]
        layout.body.documentLayout().draw(painter, context)
        if layout.folded:
            background = tint if tint is not None else option.palette.color(QPalette.ColorRole.Base)
            fade = min(layout.body_height, round(FADE_LINES * option.fontMetrics.lineSpacing()))
            gradient = QLinearGradient(0, layout.body_height - fade, 0, layout.body_height)
            for at, alpha in ((0.0, 0.0), (1.0, FADE_END)):
                colour = QColor(background)
                colour.setAlphaF(alpha)
                gradient.setColorAt(at, colour)
            painter.fillRect(QRectF(0, layout.body_height - fade, inner, fade), gradient)
        painter.restore()

    def _fit_body(self, layout: RowLayout) -> None:
        if layout.body is not None:  # shared by the row's layouts at other widths
            fit_width(layout.body, body_width(self.row_width()))

    def text_position(self, option: QStyleOptionViewItem, index: QModelIndex, point: QPoint, clamp: bool = False) -> int | None:
        """The character of the row's shown body under ``point`` (viewport coordinates); None
        off the body, unless ``clamp`` (a drag past it ends at its first or last line)."""
        found = self._layout(option, index)
        if found is None or found[1].body is None:
            return None
        layout = found[1]
        self._fit_body(layout)
        local = QPointF(point - option.rect.topLeft() - QPoint(PAD, layout.body_top))
        if clamp:
            local.setY(min(max(local.y(), 0.0), layout.body_height - 1.0))
        elif not (0 <= local.y() < layout.body_height and 0 <= local.x() < layout.body.textWidth()):
            return None
        return layout.body.documentLayout().hitTest(local, Qt.HitTestAccuracy.FuzzyHit)

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

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem, index: QModelIndex) -> bool:
        """A row's tooltips (Qt asks the delegate of the row under the pointer)."""
        tip = self.tooltip_at(option, index, event.pos()) if event.type() == QEvent.Type.ToolTip else None
        if tip is None:
            return super().helpEvent(event, view, option, index)
        QToolTip.showText(event.globalPos(), plain_tooltip(tip), view.viewport())
        return True

    def tooltip_at(self, option: QStyleOptionViewItem, index: QModelIndex, point: QPoint) -> str | None:
        """A link's full address, the time's full date, or what the signature icon means."""
        href = self.link_at(option, index, point)
        if href is not None:
            return link_tooltip(href)
        found = self._layout(option, index)
        if found is None:
            return None
        entry, layout = found
        local = point - option.rect.topLeft()
        if layout.time_rect is not None and layout.time_rect.contains(local):
            return full_date(entry.ts_ms)
        if layout.icon_rect is not None and layout.icon_rect.contains(local) and layout.signature is not None:
            return f"{SIGNATURE_ICONS[layout.signature][2]}\n{full_date(entry.ts_ms)}"
        return None

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout) -> None:
        metrics = option.fontMetrics
        y, line = layout.header_top, metrics.height()
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(name_colour(entry.sender_id))
        name = shown_name(entry)
        painter.drawText(QPoint(PAD, y + metrics.ascent()), name)
        x = PAD + painter.fontMetrics().horizontalAdvance(name) + 8
        painter.setFont(option.font)
        if entry.mine:
            tag = "you (human)"
            tag_width = metrics.horizontalAdvance(tag) + 10
            painter.setBrush(option.palette.color(QPalette.ColorRole.Highlight))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(QRect(x, y, tag_width, line), 4, 4)
            painter.setPen(option.palette.color(QPalette.ColorRole.HighlightedText))
            painter.drawText(QRect(x, y, tag_width, line), Qt.AlignmentFlag.AlignCenter, tag)
            x += tag_width + 8
        painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
        seq = f"#{entry.seq}" if entry.mine and entry.seq is not None else ""  # the human's post, as stored
        role = entry.sender_role if shows_role(entry) else ""
        details = " · ".join(p for p in (role or "", layout.time_text, seq) if p)
        painter.drawText(QPoint(x, y + metrics.ascent()), details)

    def _paint_icon(self, painter: QPainter, option: QStyleOptionViewItem, layout: RowLayout) -> None:
        if layout.icon_rect is None or layout.signature is None:
            return
        mark, colour, _tip = SIGNATURE_ICONS[layout.signature]
        painter.setFont(option.font)
        painter.setPen(QColor(getattr(theme.colours, colour)) if colour else option.palette.color(QPalette.ColorRole.PlaceholderText))
        painter.drawText(layout.icon_rect, Qt.AlignmentFlag.AlignCenter, mark)

    def _reply_preview(self, message_id: str) -> str:
        view = self.parent()
        original = view.model().entry_by_id(message_id) if view is not None and view.model() is not None else None
        if original is None:
            return "↪ in reply to an earlier message"
        text = " ".join(markdown_document(original.text).toPlainText().split())  # once per row: cached
        return f"↪ in reply to {display_text(original.sender_name)}: {readable(text[:80])}"

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
        if layout.reply_rect is not None and layout.reply_rect.contains(point):
            self.replyClicked.emit(index)
            return True
        for name, rect in layout.buttons.items():
            if rect.contains(point) and entry.outbox is not None:
                (self.retryRequested if name == "retry" else self.discardRequested).emit(entry.outbox.client_id)
                return True
        for number, card in enumerate(layout.cards):
            for label, rect in card.actions.items():
                if rect.contains(point):
                    self.requestAction.emit(index, label)
                    return True
            if card.save is not None and card.save.contains(point):
                self.saveRequested.emit(card.card)
                return True
            if card.card.more and card.box.contains(point):
                self.cardToggled.emit(index, number)
                return True
        return False
