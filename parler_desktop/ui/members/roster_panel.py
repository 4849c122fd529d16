"""The members of the shown room: presence dot, name, role and what they are doing."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette
from PySide6.QtWidgets import QLabel, QListView, QStyledItemDelegate, QStyleOptionViewItem, QVBoxLayout, QWidget

from parler_desktop.app import roles
from parler_desktop.app.members.roster_model import RosterModel
from parler_desktop.ui.appearance.theme import theme


class MemberDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(160, option.fontMetrics.height() * 2 + 10)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        painter.save()
        rect = option.rect
        metrics = option.fontMetrics
        line = metrics.height()
        status = index.data(roles.MEMBER_STATUS) or "offline"
        as_of = index.data(roles.MEMBER_AS_OF) or ""  # offline: presence as last known, greyed
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        dots = theme.colours.presence_dots
        painter.setBrush(QColor(dots["offline"] if as_of else dots.get(status, dots["idle"])))
        painter.drawEllipse(rect.left() + 8, rect.top() + 5 + (line - 10) // 2, 10, 10)
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText if as_of else QPalette.ColorRole.Text))
        role = index.data(roles.MEMBER_ROLE)
        name_rect = QRect(rect.left() + 24, rect.top() + 4, rect.width() - 28, line)
        painter.drawText(name_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(str(index.data()), Qt.TextElideMode.ElideRight, name_rect.width()))
        painter.setFont(option.font)
        painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
        detail = " · ".join(p for p in (status, role, index.data(roles.MEMBER_ACTIVITY), as_of) if p)
        detail_rect = name_rect.translated(0, line + 2)
        painter.drawText(detail_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(detail, Qt.TextElideMode.ElideRight, detail_rect.width()))
        painter.restore()


class RosterPanel(QWidget):
    def __init__(self, model: RosterModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = QListView(objectName="rosterView", accessibleName="Members")
        self.view.setModel(model)
        self.view.setItemDelegate(MemberDelegate(self.view))
        self.view.setSelectionMode(QListView.SelectionMode.NoSelection)
        title = QLabel("Members")
        title.setStyleSheet("font-weight: bold; padding: 4px;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.view)
