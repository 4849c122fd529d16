"""Painting the pieces of a timeline row other than its text: rules (date separators, the
"New messages" divider), part cards (with Reply / Hand back / Done on a request) and an unsent
post's status with Retry / Discard.
Colours come from the scheme's palette (``ui/appearance/theme.py``).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette
from PySide6.QtWidgets import QStyleOptionViewItem

from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.timeline.message_layout import CARD_PAD, PAD, CardLayout, RowLayout
from parler_desktop.ui.timeline.row_text import button_label


def paint_rule(painter: QPainter, option: QStyleOptionViewItem, area: QRect, label: str, colour: QColor) -> None:
    """A line across ``area`` with ``label`` in its middle (date separators, the divider)."""
    painter.setPen(colour)
    middle = area.center().y()
    font = QFont(option.font)
    font.setBold(True)
    painter.setFont(font)
    text_width = painter.fontMetrics().horizontalAdvance(label) + 16
    painter.drawLine(PAD, middle, (area.width() - text_width) // 2, middle)
    painter.drawLine((area.width() + text_width) // 2, middle, area.width() - PAD, middle)
    painter.drawText(area, Qt.AlignmentFlag.AlignCenter, label)


def paint_card(painter: QPainter, option: QStyleOptionViewItem, layout: CardLayout) -> None:
    """A part's card: its title (▾ / ▴ when it has more to show), its detail line or, expanded,
    every member of the part, and a Save… link for a file."""
    card, box, save = layout.card, layout.box, layout.save
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(theme.colours.handoff_card if card.highlight else theme.colours.card))
    painter.drawRoundedRect(box, 5, 5)
    metrics = option.fontMetrics
    text_right = (save.left() if save else box.right()) - CARD_PAD
    title_font = QFont(option.font)
    title_font.setBold(card.highlight)
    painter.setFont(title_font)
    painter.setPen(option.palette.color(QPalette.ColorRole.Text))
    title_rect = QRect(box.left() + CARD_PAD, box.top() + CARD_PAD, text_right - box.left() - CARD_PAD, metrics.height())
    title = f"{card.title}  {'▴' if layout.expanded else '▾'}" if card.more else card.title
    painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft, metrics.elidedText(title, Qt.TextElideMode.ElideRight, title_rect.width()))
    painter.setFont(option.font)
    painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
    detail_rect = QRect(title_rect.left(), title_rect.bottom() + 1, box.width() - 2 * CARD_PAD, layout.detail_lines * metrics.height())
    if layout.expanded:
        flags = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere
        painter.drawText(detail_rect, int(Qt.AlignmentFlag.AlignLeft.value) | int(flags.value), card.more)
    elif card.detail:
        painter.drawText(detail_rect, Qt.AlignmentFlag.AlignLeft, metrics.elidedText(card.detail, Qt.TextElideMode.ElideRight, detail_rect.width()))
    if save is not None:
        painter.setPen(option.palette.color(QPalette.ColorRole.Link))
        painter.drawText(save, Qt.AlignmentFlag.AlignCenter, "Save…")
    for label, rect in layout.actions.items():
        paint_button(painter, option, rect, label)


def paint_status(painter: QPainter, option: QStyleOptionViewItem, entry: TimelineEntry, layout: RowLayout) -> None:
    """An unsent post's status line, with Retry (or Send again) and Discard when it failed."""
    metrics = option.fontMetrics
    colour = QColor(theme.colours.failed) if entry.is_failed else option.palette.color(QPalette.ColorRole.PlaceholderText)
    painter.setPen(colour)
    painter.drawText(QPoint(PAD, layout.status_top + 2 + metrics.ascent()), layout.status_text)
    for name, rect in layout.buttons.items():
        paint_button(painter, option, rect, button_label(entry, name))


def paint_button(painter: QPainter, option: QStyleOptionViewItem, rect: QRect, label: str) -> None:
    painter.setPen(option.palette.color(QPalette.ColorRole.Mid))
    painter.setBrush(option.palette.color(QPalette.ColorRole.Button))
    painter.drawRoundedRect(rect, 4, 4)
    painter.setPen(option.palette.color(QPalette.ColorRole.ButtonText))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
