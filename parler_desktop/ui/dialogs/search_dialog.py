"""The search window: Ctrl+F searches the open room, Ctrl+Shift+F every room.

Filters narrow by room, author and part kind; each result shows where and who, and the words
around the match with the matched words in bold (drawn as plain text: message text is never
rendered as HTML). Enter or a double click opens the room at that message and puts the search
away (the next Ctrl+F shows it again with the same query).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.app.search.search_model import HIT_PLACE, SearchQuery, SearchResultsModel, hit_heading, snippet_runs
from parler_desktop.store.search import BacklogProgress, SearchHit

KINDS = ("", "text", "handoff", "task", "file", "bundle", "dispatch")


class SearchHitDelegate(QStyledItemDelegate):

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(300, option.fontMetrics.height() * 2 + 12)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        hit: SearchHit = index.data(Qt.ItemDataRole.UserRole)
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.color(QPalette.ColorRole.Highlight))
        painter.setPen(
            option.palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        )
        line = option.fontMetrics.height()
        header = QRect(option.rect.left() + 8, option.rect.top() + 4, option.rect.width() - 16, line)
        painter.drawText(
            header,
            Qt.AlignmentFlag.AlignVCenter,
            option.fontMetrics.elidedText(
                "  ·  ".join(hit_heading(index.data(HIT_PLACE), hit)), Qt.TextElideMode.ElideRight, header.width()
            ),
        )
        x, right, y = header.left(), header.right(), header.bottom() + 4
        for text, matched in snippet_runs(hit.snippet):
            font = QFont(option.font)
            font.setBold(matched)
            painter.setFont(font)
            width = painter.fontMetrics().horizontalAdvance(text)
            shown = painter.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, right - x)
            painter.drawText(QRect(x, y, right - x, line), Qt.AlignmentFlag.AlignVCenter, shown)
            x += width
            if x >= right:
                break
        painter.restore()


class SearchDialog(QDialog):
    openRequested = Signal(str, int, str)  # room, seq, hub

    def __init__(self, model: SearchResultsModel, rooms: Callable[[], RoomListModel], parent: QWidget | None = None) -> None:
        """``rooms()``: the rooms of the hub shown, offered in the Room box."""
        super().__init__(parent)
        self.setWindowTitle("Search messages")
        self.setObjectName("searchDialog")
        self._model = model
        self._rooms = rooms
        self.query = QLineEdit(
            objectName="searchQuery", placeholderText="Words to find (all of them, as word beginnings)", accessibleName="Search for"
        )
        self.room = QComboBox(objectName="searchRoom", accessibleName="Room")
        self.author = QLineEdit(objectName="searchAuthor", placeholderText="anyone", accessibleName="Author")
        self.kind = QComboBox(objectName="searchKind", accessibleName="Kind")
        for kind in KINDS:
            self.kind.addItem(kind or "any", kind)
        self.status = QLabel(objectName="searchStatus")
        self.indexing = QLabel(objectName="searchIndexing")
        self.indexing.hide()
        self.results = QListView(objectName="searchResults", accessibleName="Results")
        self.results.setModel(model)
        self.results.setItemDelegate(SearchHitDelegate(self.results))
        self.results.activated.connect(self._open)
        filters = QFormLayout()
        filters.addRow("Room", self.room)
        row = QHBoxLayout()
        row.addWidget(self.author, 1)
        kind_label = QLabel("Kind")
        kind_label.setBuddy(self.kind)  # a screen reader reads the box as "Kind", not by its value only
        row.addWidget(kind_label)
        row.addWidget(self.kind)
        filters.addRow("Author", row)
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addLayout(filters)
        layout.addWidget(self.indexing)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        for changed in (self.query.textChanged, self.author.textChanged):
            changed.connect(self._changed)
        for changed in (self.room.currentIndexChanged, self.kind.currentIndexChanged):
            changed.connect(self._changed)
        model.finished.connect(self._finished)
        self.resize(640, 520)

    def start(self, room: str | None) -> None:
        """Show the dialog searching ``room`` (None: every room), the query selected for typing."""
        self.room.blockSignals(True)
        self.room.clear()
        self.room.addItem("All rooms", "")
        rooms = self._rooms()
        for name in sorted(rooms.room_names(), key=rooms.label):
            self.room.addItem(rooms.label(name), name)
        self.room.setCurrentIndex(max(0, self.room.findData(room or "")))
        self.room.blockSignals(False)
        self.show()
        self.raise_()
        self.activateWindow()
        self.query.setFocus()
        self.query.selectAll()
        self._changed()

    def show_progress(self, progress: BacklogProgress) -> None:
        self.indexing.setVisible(not progress.done)
        if not progress.done:
            percent = 100 * progress.indexed // max(1, progress.total)
            self.indexing.setText(
                f"Indexing older messages… {percent}% ({progress.indexed:,} of {progress.total:,}); "
                "results may be incomplete"
            )

    def _changed(self, *_args: object) -> None:
        self._model.set_query(
            SearchQuery(
                self.query.text(),
                self.room.currentData() or None,
                self.author.text().strip() or None,
                self.kind.currentData() or None,
            )
        )

    def _finished(self, count: int) -> None:
        if not self.query.text().strip():
            self.status.setText("")
        else:
            found = "No messages found" if count == 0 else f"{count} message{'s' if count != 1 else ''} (newest first)"
            pruned = self._model.pruned_before_ms
            if pruned is not None:
                day = datetime.datetime.fromtimestamp(pruned / 1000).strftime("%d %b %Y").lstrip("0")
                found += f". Older messages (up to {day}) are not on this computer: scroll back in their room to read them from the hub."
            self.status.setText(found)
        if count and not self.results.currentIndex().isValid():
            self.results.setCurrentIndex(self._model.index(0))

    def _open(self, index: QModelIndex) -> None:
        """Put the search away (Ctrl+F brings it back as it was) and open the message: left on
        top, the window covered the message it opened and took the keys Esc would close it with."""
        hit = self._model.hit(index.row())
        if hit is not None:
            self.hide()
            self.openRequested.emit(hit.room, hit.seq, self._model.hub_of(index.row()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Up/Down move through the results from the query box; Enter opens the chosen one."""
        key = event.key()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.results.model().rowCount():
            row = self.results.currentIndex().row() + (1 if key == Qt.Key.Key_Down else -1)
            row = min(max(row, 0), self.results.model().rowCount() - 1)
            self.results.setCurrentIndex(self._model.index(row))
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.results.currentIndex().isValid():
                self._open(self.results.currentIndex())
            return
        super().keyPressEvent(event)
