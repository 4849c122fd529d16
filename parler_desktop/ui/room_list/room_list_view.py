"""The room list: a filter box over every hub's rooms, newest activity first, with unread badges.

Each row shows the room's kind, its label (a DM's other member, see ``app/room_list/room_labels.py``;
the hub's room name is in the tooltip), a one-line preview, an unread count badge and a distinct
"@" badge when unread messages mention the human. Rows are identified by (hub, the hub's room
name). With several hubs each hub's rooms sit under its heading: its name, its connection line
(with the reconnect countdown) and its unread total; a click on the heading folds its rooms.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView, QLabel, QLineEdit, QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QVBoxLayout, QWidget,
)

from parler_desktop.app import roles
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.room_list.busiest_rooms import SHOWN_ROOMS_MAX
from parler_desktop.app.room_list.room_search import FOUND_ROOMS_MAX
from parler_desktop.app.room_list.hub_rooms_model import HubRoomsModel
from parler_desktop.app.room_list.room_list_model import RoomRow, RoomSortFilterProxy
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.accessibility import name_clear_button
from parler_desktop.ui.room_list.row_pixmaps import RowPixmaps

KIND_MARKS = {"channel": "#", "dm": "@", "service": "⚙"}
TEXT_LEFT = 14  # the row's text starts here; the margin holds the agents' dot (ui/room_list/agent_glance.py)
# The rooms sort again this long after the pointer and the focus have left the list: a click and the
# pointer leaving at once made the re-sort (a few ms, Python comparisons) the click's room waited for
# before its page was asked for (bench_hubs.py's switching); back within it, the order still holds.
SORT_AGAIN_AFTER_MS = 100


def repaint_rows(view: QAbstractItemView, wanted: Callable[[QModelIndex], bool]) -> None:
    """Repaint the rows on screen that are ``wanted`` alone, for what the rows show but the model
    does not announce: QListView lays out and repaints every row at any ``dataChanged``."""
    viewport, model = view.viewport(), view.model()
    first = view.indexAt(QPoint(0, 0))
    row = first.row() if first.isValid() else 0
    while row < model.rowCount():
        index = model.index(row, 0)
        rect = view.visualRect(index)
        if rect.top() > viewport.height():
            break
        if wanted(index):
            viewport.update(rect)
        row += 1


class RoomBadgeDelegate(QStyledItemDelegate):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pixmaps = RowPixmaps()  # each room row as last painted (``row_pixmaps``)
        theme.changed.connect(self._pixmaps.clear)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        return QSize(120, option.fontMetrics.height() * 2 + 12)  # as narrow as a row can be: it elides

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        row = index.data(roles.ROOM_ROW)  # (one call: see ``RoomRow``)
        if row is None:
            self._paint_heading(painter, option, index)
        else:
            self._pixmaps.paint(painter, option, (row, self.row_look(row)), lambda on, inside: self.paint_room(on, inside, row))

    def row_look(self, row: RoomRow) -> Hashable:
        """What a subclass paints on a room's row beyond the row itself (its pixmap is kept for it too)."""
        return None

    def paint_room(self, painter: QPainter, option: QStyleOptionViewItem, row: RoomRow) -> None:
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
        unread, mentions = row.unread, row.mentions
        x_right = rect.right() - 6
        badge_font = QFont(option.font)
        badge_font.setBold(True)
        painter.setFont(badge_font)
        colours = theme.colours
        for count, colour, label in ((unread, colours.unread_badge, str(unread)), (mentions, colours.mention_badge, f"@{mentions}")):
            if not count:
                continue
            width = max(line + 4, painter.fontMetrics().horizontalAdvance(label) + 12)
            badge = QRect(x_right - width, rect.top() + 6, width, line + 2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(badge, badge.height() / 2, badge.height() / 2)
            painter.setPen(QColor(colours.badge_text))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, label)
            x_right = badge.left() - 4
        name_font = QFont(option.font)
        name_font.setBold(unread > 0)
        painter.setFont(name_font)
        painter.setPen(text_colour)
        mark = KIND_MARKS.get(row.kind, "?")
        name_rect = QRect(rect.left() + TEXT_LEFT, rect.top() + 6, x_right - rect.left() - TEXT_LEFT - 4, line + 2)
        painter.drawText(name_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(f"{mark} {row.label}", Qt.TextElideMode.ElideRight, name_rect.width()))
        painter.setFont(option.font)
        if not selected:
            painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
        preview_rect = QRect(rect.left() + TEXT_LEFT, rect.top() + 8 + line, rect.width() - TEXT_LEFT - 8, line)
        preview = " ".join(row.preview.split())
        painter.drawText(preview_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(preview, Qt.TextElideMode.ElideRight, preview_rect.width()))
        painter.restore()

    def _paint_heading(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        """▾ hub name (items that need the human, unread total, @mentions), and below it the hub's connection line in its tone (the
        countdown first: a narrow sidebar cuts the end)."""
        painter.save()
        rect = option.rect
        painter.fillRect(rect, option.palette.color(QPalette.ColorRole.AlternateBase))
        if option.state & QStyle.StateFlag.State_HasFocus:
            painter.fillRect(rect, option.palette.color(QPalette.ColorRole.Midlight))
        metrics = option.fontMetrics
        line = metrics.height()
        unread = index.data(roles.ROOM_UNREAD) or 0
        fold = "▸" if index.data(roles.HUB_COLLAPSED) else "▾"
        name_font = QFont(option.font)
        name_font.setBold(True)
        painter.setFont(name_font)
        painter.setPen(option.palette.color(QPalette.ColorRole.Text))
        mentions = index.data(roles.ROOM_MENTIONS) or 0
        need = index.data(roles.HUB_NEEDS) or 0
        count = (f"  · {need} need you" if need else "") + (f"  ({unread})" if unread else "") + (f"  @{mentions}" if mentions else "")
        name_rect = QRect(rect.left() + 4, rect.top() + 4, rect.width() - 8, line + 2)
        painter.drawText(name_rect, Qt.AlignmentFlag.AlignVCenter, painter.fontMetrics().elidedText(
            f"{fold} {index.data()}{count}", Qt.TextElideMode.ElideMiddle, name_rect.width()))
        state = index.data(roles.HUB_STATE)
        if state is not None:
            painter.setFont(option.font)
            painter.setPen(QColor(theme.colours.heading_tones[state.tone]))
            state_rect = QRect(rect.left() + TEXT_LEFT, rect.top() + 6 + line, rect.width() - TEXT_LEFT - 8, line)
            painter.drawText(state_rect, Qt.AlignmentFlag.AlignVCenter, metrics.elidedText(state.heading, Qt.TextElideMode.ElideRight, state_rect.width()))
        painter.restore()


class RoomListPanel(QWidget):
    """Filter box + room list; emits ``roomChosen(hub, name)`` when the human moves the selection.

    The rooms hold their order while the pointer is over the list or the list has the keyboard
    focus (``HubRoomsModel.hold_order``), and sort again ``SORT_AGAIN_AFTER_MS`` after both have left.

    Typing in the filter never opens a room by itself (Qt moves the current row when the shown
    room is filtered out); Enter or a click does, and Enter clears the filter. A hub's heading
    is never chosen: a click (or Enter) on it folds or unfolds its rooms.
    """

    roomChosen = Signal(str, str)
    foldsChanged = Signal()  # a hub's rooms were folded or unfolded

    def __init__(self, hubs: HubList, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hubs = hubs
        self.model = HubRoomsModel(hubs, self)
        self.proxy = RoomSortFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        hubs.added.connect(self._hubs_changed)
        hubs.removed.connect(self._hubs_changed)
        self._hubs_changed()
        for entry in hubs.entries:
            self._follow_needs(entry)
        hubs.added.connect(self._follow_needs)
        self.filter = QLineEdit(placeholderText="Filter rooms (Ctrl+K)", objectName="roomFilter")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter rooms")
        self.filter.setAccessibleDescription("Ctrl+K. Enter opens the first room found, Esc clears the filter")
        name_clear_button(self.filter, "Clear the filter")
        self.filter.textChanged.connect(self._filter_changed)
        self._filtering = False
        self.shown_room: tuple[str, str] | None = None  # (hub, room) open in the timeline
        self.filter.returnPressed.connect(self._choose_first)
        self.filter.installEventFilter(self)  # Esc clears it
        self.view = QListView(objectName="roomList", accessibleName="Rooms")
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(RoomBadgeDelegate(self.view))
        # Every row is one height (RoomBadgeDelegate.sizeHint): said so, a change of one row (a count) or a
        # re-sort no longer lays every row out again, asking the Python delegate each row's size (issue 42 item 3).
        self.view.setUniformItemSizes(True)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # rows elide to any width
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.proxy.modelReset.connect(self._keep_shown_current)  # one hub's list rebuilds every hub's rows
        self.proxy.rowsInserted.connect(self._keep_shown_current)
        self.view.clicked.connect(self._fold_if_heading)
        self.view.activated.connect(self._fold_if_heading)
        self._pointed_at = False
        self._sort_again = QTimer(self, singleShot=True, interval=SORT_AGAIN_AFTER_MS)
        self._sort_again.timeout.connect(self._let_go)
        self.view.installEventFilter(self)  # its focus…
        self.view.viewport().installEventFilter(self)  # …and the pointer over it hold the order
        self.more_rooms = QLabel(objectName="moreRooms", textFormat=Qt.TextFormat.PlainText, wordWrap=True, visible=False)
        self.model.hiddenChanged.connect(self._hidden_changed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.view)
        layout.addWidget(self.more_rooms)

    def _hidden_changed(self, hidden: int) -> None:
        """Say how many rooms a hub's list leaves out (``busiest_rooms``): none goes silently;
        while the filter finds more than it shows (``room_search``), say so."""
        if self.filter.text() and self.model.found_more():
            self.more_rooms.setText(f"More rooms match than the {FOUND_ROOMS_MAX} shown per hub: type more of the name")
        else:
            self.more_rooms.setText(f"{hidden:,} more rooms not listed: each hub lists its {SHOWN_ROOMS_MAX:,} busiest; the filter finds any")
        self.more_rooms.setVisible(hidden > 0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.Enter, QEvent.Type.Leave) and watched is self.view.viewport():
            self._pointed_at = kind == QEvent.Type.Enter
            self._hold(self._pointed_at or self.view.hasFocus())
        elif kind in (QEvent.Type.FocusIn, QEvent.Type.FocusOut) and watched is self.view:
            self._hold(self._pointed_at or kind == QEvent.Type.FocusIn)
        escape = isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape
        if watched is self.filter and escape and self.filter.text():
            self.filter.clear()
            return True
        return super().eventFilter(watched, event)

    def _hold(self, held: bool) -> None:
        """Hold the rooms' order now, or let go of it ``SORT_AGAIN_AFTER_MS`` from now."""
        if held:
            self._sort_again.stop()
            self.model.hold_order(True)
        elif not self._sort_again.isActive():
            self._sort_again.start()

    def _let_go(self) -> None:
        self.model.hold_order(False)

    def current_room(self) -> str | None:
        index = self.view.currentIndex()
        return index.data(roles.ROOM_NAME) if index.isValid() and not index.data(roles.HUB_HEADER) else None

    def select_room(self, name: str, hub: str | None = None) -> bool:
        """Make ``name`` (of ``hub``; default: the hub of the shown room, else any) current."""
        if hub is None and self.shown_room is not None:
            hub = self.shown_room[0]
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if index.data(roles.ROOM_NAME) == name and not index.data(roles.HUB_HEADER) and hub in (None, index.data(roles.HUB_URL)):
                self.view.setCurrentIndex(index)
                return True
        return False

    def set_collapsed(self, hub: str, collapsed: bool) -> None:
        if (hub in self.model.collapsed) != collapsed:
            self.model.set_collapsed(hub, collapsed)
            self.proxy.refilter()
            self.foldsChanged.emit()

    def _fold_if_heading(self, index: QModelIndex) -> None:
        if index.isValid() and index.data(roles.HUB_HEADER):
            self.set_collapsed(index.data(roles.HUB_URL), not index.data(roles.HUB_COLLAPSED))

    def _follow_needs(self, entry: HubEntry) -> None:
        """A hub's Needs you count (its heading's ``HUB_NEEDS``) is repainted on its heading alone,
        not announced as a ``dataChanged``: that repainted every row, several times a second in a
        wake (nothing sorts, filters or sizes by it)."""
        url = entry.url
        entry.needsChanged.connect(
            lambda: repaint_rows(self.view, lambda index: bool(index.data(roles.HUB_HEADER)) and index.data(roles.HUB_URL) == url)
        )

    def _hubs_changed(self, *_entry: object) -> None:
        self.proxy.set_show_headings(len(self.hubs.entries) > 1)

    def _filter_changed(self, text: str) -> None:
        self._filtering = True
        try:
            self.model.find(text)  # rooms beyond the busiest the list holds, found on a worker thread
            self.proxy.setFilterFixedString(text)
            if self.shown_room is None or not self.select_room(self.shown_room[1], self.shown_room[0]):
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

    def reveal_room(self, name: str, hub: str | None = None) -> bool:
        """Select ``name`` (of ``hub``), clearing a filter or unfolding the hub that hides it (a
        room just joined or created)."""
        if self.select_room(name, hub):
            return True
        if hub is not None and hub in self.model.collapsed:
            self.set_collapsed(hub, False)
        if self.filter.text():
            self.filter.clear()
        return self.select_room(name, hub)

    def first_room(self, hub: str | None = None) -> QModelIndex | None:
        """The top room row shown (of ``hub``; headings are not rooms)."""
        rows = (self.proxy.index(row, 0) for row in range(self.proxy.rowCount()))
        return next((i for i in rows if not i.data(roles.HUB_HEADER) and hub in (None, i.data(roles.HUB_URL))), None)

    def _choose_first(self) -> None:
        """Enter in the filter opens its first room and leaves the whole list again, as a
        switcher does: a filter left behind hid every other room, even one joined next."""
        first = self.first_room()
        if first is not None:
            self.view.setCurrentIndex(first)  # may already be current: choose it explicitly
            self._choose(first)
            hub, room = first.data(roles.HUB_URL), first.data(roles.ROOM_NAME)
            self.filter.clear()
            self.reveal_room(room, hub)  # a room found in a folded hub: its hub unfolds to show it
            self.view.setFocus()

    def _keep_shown_current(self, *_change: object) -> None:
        """The room open in the timeline is the current row again once the rows are back."""
        if self.shown_room is not None and not self.view.currentIndex().isValid():
            self.select_room(self.shown_room[1], self.shown_room[0])

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._filtering:
            self._choose(current)

    def _choose(self, index: QModelIndex) -> None:
        if not index.isValid() or index.data(roles.HUB_HEADER):
            return
        chosen = (index.data(roles.HUB_URL), index.data(roles.ROOM_NAME))
        if chosen != self.shown_room:
            self.shown_room = chosen
            self.roomChosen.emit(*chosen)
