"""The room list: a filter box over the rooms, newest activity first, with unread badges.

Each row shows the room's kind, its label (a DM's other member, see ``app/room_list/room_labels.py``; the
hub's room name is in the tooltip), a one-line preview, an unread count badge and a distinct "@"
badge when unread messages mention the human. Rows are identified by the hub's room name.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import QLineEdit, QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QVBoxLayout, QWidget

from parler_desktop.app import roles
from parler_desktop.app.room_list.room_list_model import RoomListModel, RoomSortFilterProxy

KIND_MARKS = {"channel": "#", "dm": "@", "service": "⚙"}
UNREAD_BADGE = QColor(90, 90, 90)
MENTION_BADGE = QColor(211, 47, 47)
TEXT_LEFT = 14  # the row's text starts here; the margin holds the agents' dot (ui/room_list/agent_glance.py)


class RoomBadgeDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(120, option.fontMetrics.height() * 2 + 12)  # as narrow as a row can be: it elides

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        painter.save()
        rect = option.rect
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(rect, option.palette.color(QPalette.ColorRole.Highlight))
        text_colour = option.palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        metrics = option.fontMetrics
        line = metrics.height()
        unread = index.data(roles.ROOM_UNREAD) or 0
        mentions = index.data(roles.ROOM_MENTIONS) or 0
        x_right = rect.right() - 6
        badge_font = QFont(option.font)
        badge_font.setBold(True)
        painter.setFont(badge_font)
        for count, colour, label in ((unread, UNREAD_BADGE, str(unread)), (mentions, MENTION_BADGE, f"@{mentions}")):
            if not count:
                continue
            width = max(line + 4, painter.fontMetrics().horizontalAdvance(label) + 12)
            badge = QRect(x_right - width, rect.top() + 6, width, line + 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2)
            painter.setPen(QColor("white"))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, label)
            x_right = badge.left() - 4
        name_font = QFont(option.font)
        name_font.setBold(unread > 0)
        painter.setFont(name_font)
        painter.setPen(text_colour)
        mark = KIND_MARKS.get(index.data(roles.ROOM_KIND) or "", "?")
        name_rect = QRect(rect.left() + TEXT_LEFT, rect.top() + 6, x_right - rect.left() - TEXT_LEFT - 4, line + 2)
        painter.drawText(name_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(f"{mark} {index.data()}", Qt.TextElideMode.ElideRight, name_rect.width()))
        painter.setFont(option.font)
        if not selected:
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
        preview_rect = QRect(rect.left() + TEXT_LEFT, rect.top() + 8 + line, rect.width() - TEXT_LEFT - 8, line)
        preview = " ".join(str(index.data(roles.ROOM_PREVIEW) or "").split())
        painter.drawText(preview_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(preview, Qt.TextElideMode.ElideRight, preview_rect.width()))
        painter.restore()


class RoomListPanel(QWidget):
    """Filter box + room list; emits ``roomChosen(name)`` when the human moves the selection.

    Typing in the filter never opens a room by itself (Qt moves the current row when the shown
    room is filtered out); Enter or a click does, and Enter clears the filter.
    """

    roomChosen = Signal(str)

    def __init__(self, model: RoomListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.proxy = RoomSortFilterProxy(self)
        self.proxy.setSourceModel(model)
        self.filter = QLineEdit(placeholderText="Filter rooms (Ctrl+K)", objectName="roomFilter")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter_changed)
        self._filtering = False
        self.shown_room: str | None = None
        self.filter.returnPressed.connect(self._choose_first)
        self.filter.installEventFilter(self)  # Esc clears it
        self.view = QListView(objectName="roomList")
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(RoomBadgeDelegate(self.view))
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # rows elide to any width
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.view)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        escape = isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape
        if watched is self.filter and escape and self.filter.text():
            self.filter.clear()
            return True
        return super().eventFilter(watched, event)

    def current_room(self) -> str | None:
        index = self.view.currentIndex()
        return index.data(roles.ROOM_NAME) if index.isValid() else None

    def select_room(self, name: str) -> bool:
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(roles.ROOM_NAME) == name:
                self.view.setCurrentIndex(index)
                return True
        return False

    def _filter_changed(self, text: str) -> None:
        self._filtering = True
        try:
            self.proxy.setFilterFixedString(text)
            if self.shown_room is None or not self.select_room(self.shown_room):
                self.view.clearSelection()
        finally:
            self._filtering = False

    def next_unread(self) -> None:
        row = self.proxy.next_unread_row(self.view.currentIndex().row())
        if row is not None:
            self.view.setCurrentIndex(self.proxy.index(row, 0))

    def focus_filter(self) -> None:
        self.filter.setFocus()
        self.filter.selectAll()

    def reveal_room(self, name: str) -> bool:
        """Select ``name``, clearing a filter that hides it (a room just joined or created)."""
        if self.select_room(name):
            return True
        if self.filter.text():
            self.filter.clear()
            return self.select_room(name)
        return False

    def _choose_first(self) -> None:
        """Enter in the filter opens its first room and leaves the whole list again, as a
        switcher does: a filter left behind hid every other room, even one joined next."""
        if self.proxy.rowCount():
            first = self.proxy.index(0, 0)
            self.view.setCurrentIndex(first)  # may already be current: choose it explicitly
            self._choose(first)
            self.filter.clear()
            self.view.setFocus()

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._filtering:
            self._choose(current)

    def _choose(self, index: QModelIndex) -> None:
        if index.isValid() and index.data(roles.ROOM_NAME) != self.shown_room:
            self.shown_room = index.data(roles.ROOM_NAME)
            self.roomChosen.emit(self.shown_room)
