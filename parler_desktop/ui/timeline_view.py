"""The timeline list: opens a room at its read cursor and follows new messages only while the
reader is at the bottom.

A room with unread messages opens with the first of them (under the "New messages" divider) at
the top; one with none opens at the bottom. ``seenChanged`` tells the newest seq that is on
screen right now (a row cut off by the bottom edge is not seen yet), which is all the read
tracker may mark read.

Not at the bottom, new messages raise an "N new messages" pill instead of moving the text under
the reader. Scrolling near the top asks the model for older history and keeps the reader's place
when it arrives. A "Jump to first unread" button loads back to the read marker and goes there.

Links in messages are clickable: the pointer turns into a hand over one, its tooltip shows the
full address, and a click hands it to ``open_url`` (the desktop's opener) only when ``links.py``
allows it; any other link is refused with ``linkRefused``.

A long message is folded (``message_layout``); its "Show more" link, Enter or Space on the
current row, or the context menu expand it, and "Show less" folds it again. Only that row is
laid out anew, and folding keeps the link where it was on screen.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QHelpEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QAbstractItemView, QListView, QMenu, QPushButton, QStyleOptionViewItem, QToolTip, QWidget

from parler_desktop.app.timeline_entry import TimelineEntry
from parler_desktop.app.timeline_model import TimelineModel
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.message_link import is_message_link
from parler_desktop.ui.links import link_tooltip, openable_url
from parler_desktop.ui.message_delegate import MessageDelegate
from parler_desktop.ui.message_layout import RowLayout

BOTTOM_SLACK_PX = 4
LOAD_OLDER_PX = 300


class TimelineView(QListView):
    seenChanged = Signal(int)  # the newest stored seq on screen (0: none)
    replyRequested = Signal(object)  # TimelineEntry
    copyLinkRequested = Signal(object)  # TimelineEntry whose parler:// link goes on the clipboard
    messageLinkOpened = Signal(str)  # a parler://…/room/ROOM/SEQ link in a message was clicked
    linkRefused = Signal(str)  # the address of a link that was not opened
    statusMessage = Signal(str)  # a sentence for the status bar

    def __init__(
        self,
        model: TimelineModel,
        parent: QWidget | None = None,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("timeline")
        self.open_url = open_url
        self._pressed_link: str | None = None
        self._selecting: str | None = None  # the key of the row whose text the mouse is selecting
        self._model = model
        self.setModel(model)
        self.message_delegate = MessageDelegate(self)
        self.setItemDelegate(self.message_delegate)
        self.message_delegate.toggleRequested.connect(self.toggle_expanded)
        self.message_delegate.cardToggled.connect(self._toggle_card)
        self.message_delegate.replyClicked.connect(self.go_to_original)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(24)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.at_bottom = True
        self.unseen = 0
        self.placeholder = ""  # said in the middle when there are no rows
        self._anchor_from_bottom: int | None = None
        self.seen_seq = 0
        self._seen_timer = QTimer(self, singleShot=True, interval=0)  # started by each paint
        self._seen_timer.timeout.connect(self._update_seen)
        self._pill = QPushButton(self, objectName="newMessagesPill")
        self._pill.setCursor(Qt.CursorShape.PointingHandCursor)
        self._pill.clicked.connect(self.scroll_to_newest)
        self._pill.hide()
        self._jump = QPushButton("↑ Jump to first unread", self, objectName="jumpToUnread")
        self._jump.clicked.connect(self.jump_to_first_unread)
        self._jump.hide()
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._scrolled)
        model.modelReset.connect(self._room_reset)
        model.roomLoaded.connect(lambda _room: self._room_loaded())
        model.olderLoaded.connect(self._older_loaded)
        model.appended.connect(self._appended)

    # -- following the bottom ---------------------------------------------------------------
    def scroll_to_newest(self) -> None:
        self.scrollToBottom()
        self._set_at_bottom(True)

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        bar = self.verticalScrollBar()
        if self._anchor_from_bottom is not None:
            bar.setValue(maximum - self._anchor_from_bottom)
            self._anchor_from_bottom = None
        elif self.at_bottom:
            bar.setValue(maximum)

    def _scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._set_at_bottom(value >= bar.maximum() - BOTTOM_SLACK_PX)
        if value <= LOAD_OLDER_PX and self._model.has_older and self._anchor_from_bottom is None:
            self._model.load_older()
        self._update_jump()

    # -- what has been on screen ------------------------------------------------------------
    def newest_seen_row(self) -> int | None:
        """The lowest row shown whole (or filling the view from its top); None before layout."""
        count = self._model.rowCount()
        height = self.viewport().height()
        if count == 0 or self._model.loading:
            return None
        index = self.indexAt(QPoint(BOTTOM_SLACK_PX, height - 1))
        if not index.isValid():
            last = self.visualRect(self._model.index(count - 1))
            return count - 1 if last.isValid() and 0 <= last.bottom() < height else None
        rect = self.visualRect(index)
        cut_off = rect.bottom() > height + BOTTOM_SLACK_PX and rect.top() > 0
        return index.row() - 1 if cut_off else index.row()

    def _update_seen(self) -> None:
        row = self.newest_seen_row()
        seq = 0
        while row is not None and row >= 0 and not seq:
            entry = self._model.entry(row)
            seq, row = (entry.seq or 0) if entry is not None else 0, row - 1
        if seq > self.seen_seq:
            self.seen_seq = seq
            self.seenChanged.emit(seq)

    def _set_at_bottom(self, at_bottom: bool) -> None:
        if at_bottom:
            self.unseen = 0
            self._pill.hide()
        self._model.following = at_bottom
        self.at_bottom = at_bottom

    def _appended(self, count: int) -> None:
        if self.at_bottom or not count:
            return  # _range_changed keeps the bottom in view once the new rows are laid out
        self.unseen += count
        self._pill.setText(f"{self.unseen} new message{'s' if self.unseen != 1 else ''} ↓")
        self._pill.adjustSize()
        self._place_overlays()
        self._pill.show()

    def _older_loaded(self, _count: int) -> None:
        bar = self.verticalScrollBar()
        self._anchor_from_bottom = bar.maximum() - bar.value()
        self.doItemsLayout()  # settle heights now so the anchor applies once

    def _room_reset(self) -> None:
        self.unseen = 0
        self._pill.hide()
        self._anchor_from_bottom = None
        self._set_at_bottom(True)
        self.seen_seq = 0
        self.seenChanged.emit(0)

    def _room_loaded(self) -> None:
        """Open at the read cursor: the first unread message at the top, or else the bottom."""
        row = self._model.first_unread_row()
        if row is not None:
            self._show_at_top(row)
        elif self._model.first_unread_outside:
            self._set_at_bottom(False)
            self.jump_to_first_unread()
        else:
            self.scroll_to_newest()
        self._update_jump()

    def _show_at_top(self, row: int) -> None:
        """Put ``row`` (with its divider) at the top of the view; the bottom if all fits below."""
        self._set_at_bottom(False)
        self.doItemsLayout()
        self.scrollTo(self._model.index(row), QAbstractItemView.ScrollHint.PositionAtTop)
        self._scrolled(self.verticalScrollBar().value())

    # -- first unread -----------------------------------------------------------------------
    def _update_jump(self) -> None:
        row = self._model.first_unread_row()
        above = row is not None and self.visualRect(self._model.index(row)).bottom() < 0
        show = not self._model.loading and (above or self._model.first_unread_outside)
        if show != self._jump.isVisible():
            self._jump.setVisible(show)
            self._place_overlays()

    def jump_to_first_unread(self) -> None:
        self._model.tasks.spawn("jump to first unread", self._jump_to_first_unread())

    async def _jump_to_first_unread(self) -> None:
        await self._model.load_back_to(self._model.read_marker)
        row = self._model.first_unread_row()
        if row is not None:
            self._show_at_top(row)
        self._update_jump()

    # -- long messages ----------------------------------------------------------------------
    def row_layout(self, index: QModelIndex) -> RowLayout | None:
        """Where the pieces of the row are, as painted (row coordinates)."""
        return self.message_delegate.row_layout(self._row_option(index), index)

    def _row_option(self, index: QModelIndex) -> QStyleOptionViewItem:
        """The style option the delegate paints ``index`` with."""
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        option.rect = self.visualRect(index)
        return option

    def toggle_link(self, index: QModelIndex) -> QRect | None:
        """The row's "Show more" / "Show less" link in viewport coordinates; None on a short row."""
        layout = self.row_layout(index)
        if layout is None or layout.toggle is None:
            return None
        return layout.toggle.translated(self.visualRect(index).topLeft())

    def toggle_expanded(self, index: QModelIndex) -> None:
        """Expand a folded long message or fold it again. Folding moves the view so the link
        stays where it was: the reader is not left in the middle of the next messages."""
        entry = self._model.entry(index.row()) if index.isValid() else None
        before = self.toggle_link(index)
        if entry is None or before is None:
            return
        expanding = not self._model.is_expanded(entry.key)
        self._model.set_expanded(index.row(), expanding)
        self.message_delegate.sizeHintChanged.emit(index)
        if expanding:
            return
        self.doItemsLayout()  # settle the row's new height now, then put its link back
        after = self.toggle_link(index)
        if after is not None:
            bar = self.verticalScrollBar()
            bar.setValue(bar.value() + after.top() - before.top())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        index = self.currentIndex()
        toggles = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if toggles and index.isValid() and self.toggle_link(index) is not None:
            self.toggle_expanded(index)
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
            return
        if self._scroll_by_key(event.key()):
            return
        super().keyPressEvent(event)

    def copy(self) -> None:
        """Ctrl+C: the selected part of a message, else the whole current message."""
        entry = self._model.entry(self.currentIndex().row()) if self.currentIndex().isValid() else None
        text = self.selected_text() or (entry.text if entry is not None else "")
        if text:
            QGuiApplication.clipboard().setText(text)

    def _scroll_by_key(self, key: int) -> bool:
        """Home / End / Page Up / Page Down scroll the conversation, as in any chat app (they
        would otherwise move the current row, starting from the first one)."""
        bar = self.verticalScrollBar()
        if key == Qt.Key.Key_End:
            self.scroll_to_newest()
        elif key == Qt.Key.Key_Home:
            bar.setValue(0)
        elif key in (Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
            step = bar.pageStep() if key == Qt.Key.Key_PageDown else -bar.pageStep()
            bar.setValue(bar.value() + step)
        else:
            return False
        return True

    # -- links ------------------------------------------------------------------------------
    def link_at(self, point: QPoint) -> str | None:
        """The address of the link at ``point`` (viewport coordinates), if there is one."""
        index = self.indexAt(point)
        if not index.isValid():
            return None
        return self.message_delegate.link_at(self._row_option(index), index, point)

    def _on_toggle_link(self, point: QPoint) -> bool:
        index = self.indexAt(point)
        link = self.toggle_link(index) if index.isValid() else None
        return link is not None and link.contains(point)

    def open_link(self, href: str) -> None:
        if is_message_link(href):
            self.messageLinkOpened.emit(href)
            return
        url = openable_url(href)
        if url is None:
            self.linkRefused.emit(href)
        else:
            self.open_url(url)

    # -- selecting text with the mouse -------------------------------------------------------
    def _text_at(self, point: QPoint, clamp: bool) -> tuple[str, int] | None:
        """(row key, character) of the body text under ``point``; ``clamp`` keeps to the row of
        the selection being made even when the pointer leaves its body."""
        selecting = self._selecting
        index = self.indexAt(point) if not clamp or selecting is None else self._row_of_key(selecting)
        entry = self._model.entry(index.row()) if index is not None and index.isValid() else None
        if entry is None:
            return None
        position = self.message_delegate.text_position(self._row_option(index), index, point, clamp)
        return None if position is None else (entry.key, position)

    def _row_of_key(self, key: str) -> QModelIndex | None:
        current = self.currentIndex()
        entry = self._model.entry(current.row()) if current.isValid() else None
        return current if entry is not None and entry.key == key else None

    def selected_text(self) -> str:
        """The part of a message the reader selected with the mouse ("" when none)."""
        chosen = self.message_delegate.selection
        index = self._row_of_key(chosen[0]) if chosen is not None else None
        layout = self.row_layout(index) if index is not None else None
        if chosen is None or layout is None or layout.body is None or chosen[1] == chosen[2]:
            return ""
        cursor = QTextCursor(layout.body)
        cursor.setPosition(chosen[1])
        cursor.setPosition(chosen[2], QTextCursor.MoveMode.KeepAnchor)
        return cursor.selectedText().replace("\u2029", "\n").replace("\u2028", "\n")

    def _set_selection(self, selection: tuple[str, int, int] | None) -> None:
        if selection != self.message_delegate.selection:
            self.message_delegate.selection = selection
            self.viewport().update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        left = event.button() == Qt.MouseButton.LeftButton
        point = event.position().toPoint()
        self._pressed_link = self.link_at(point) if left else None
        super().mousePressEvent(event)
        if left:
            found = self._text_at(point, clamp=False) if self._pressed_link is None else None
            self._selecting = found[0] if found is not None else None
            self._set_selection((found[0], found[1], found[1]) if found is not None else None)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._selecting = None
        pressed, self._pressed_link = self._pressed_link, None
        super().mouseReleaseEvent(event)
        if pressed is not None and event.button() == Qt.MouseButton.LeftButton and self.link_at(event.position().toPoint()) == pressed:
            self.open_link(pressed)  # pressed and released on the same link: a click

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        point = event.position().toPoint()
        chosen = self.message_delegate.selection
        if self._selecting is not None and chosen is not None and event.buttons() & Qt.MouseButton.LeftButton:
            found = self._text_at(point, clamp=True)
            if found is not None:
                self._set_selection((chosen[0], chosen[1], found[1]))
            return  # dragging over text selects it; it does not move the current row
        super().mouseMoveEvent(event)
        if self.link_at(point) is not None or self._on_toggle_link(point):
            self.viewport().setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self.viewport().unsetCursor()

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.tooltip_at(event.pos())
            if tip is not None:
                QToolTip.showText(event.globalPos(), plain_tooltip(tip), self.viewport())
                return True
        return super().viewportEvent(event)

    def tooltip_at(self, point: QPoint) -> str | None:
        """A link's full address, a time's full date, or what a signature icon means."""
        href = self.link_at(point)
        if href is not None:
            return link_tooltip(href)
        index = self.indexAt(point)
        return self.message_delegate.tooltip_at(self._row_option(index), index, point) if index.isValid() else None

    # -- cards and replies ------------------------------------------------------------------
    def _toggle_card(self, index: QModelIndex, number: int) -> None:
        self._model.toggle_card(index.row(), number)
        self.message_delegate.sizeHintChanged.emit(index)

    def go_to_original(self, index: QModelIndex) -> None:
        """Show the message a reply answers (paging back to it if needed), selected, at the top."""
        entry = self._model.entry(index.row())
        if entry is not None and entry.reply_to:
            self._model.tasks.spawn("go to original", self._go_to(entry.reply_to))

    async def _go_to(self, message_id: str) -> None:
        row = await self._model.load_back_to_id(message_id)
        if row is None:
            self.statusMessage.emit("The original message is no longer in this room's history.")
            return
        self._show_at_top(row)
        self.setCurrentIndex(self._model.index(row))

    # -- overlays and menu ------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self._seen_timer.start()  # what was just painted is on screen
        if self._model.rowCount() == 0 and self.placeholder and not self._model.loading:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            area = self.viewport().rect().adjusted(40, 40, -40, -40)
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.placeholder)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_overlays()

    def _place_overlays(self) -> None:
        area = self.viewport().geometry()
        self._pill.adjustSize()
        self._pill.move(area.center().x() - self._pill.width() // 2, area.bottom() - self._pill.height() - 12)
        self._jump.adjustSize()
        self._jump.move(area.center().x() - self._jump.width() // 2, area.top() + 8)

    def _context_menu(self, point: QPoint) -> None:
        index = self.indexAt(point)
        entry: TimelineEntry | None = self._model.entry(index.row()) if index.isValid() else None
        if entry is None:
            return
        menu = QMenu(self)
        reply = menu.addAction("Reply")
        reply.setEnabled(entry.message_id is not None)
        selected = self.selected_text() if self._row_of_key(entry.key) == index else ""
        copy_selection = menu.addAction("Copy") if selected else None
        copy = menu.addAction("Copy text")
        copy_link = menu.addAction("Copy link")
        copy_link.setEnabled(entry.seq is not None)
        toggle = None
        if self.toggle_link(index) is not None:
            toggle = menu.addAction("Show less" if self._model.is_expanded(entry.key) else "Show whole message")
        chosen = menu.exec(self.viewport().mapToGlobal(point))
        if chosen is not None and chosen is toggle:
            self.toggle_expanded(index)
        elif chosen is reply:
            self.replyRequested.emit(entry)
        elif chosen is copy:
            QGuiApplication.clipboard().setText(entry.text)
        elif chosen is copy_link:
            self.copyLinkRequested.emit(entry)
        elif chosen is not None and chosen is copy_selection:
            QGuiApplication.clipboard().setText(selected)
