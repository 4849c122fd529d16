"""The timeline's rows under the pointer and the keyboard: links, folding, selecting and copying.

Links in messages are clickable: the pointer turns into a hand over one, its tooltip shows the
full address, and a click hands it to ``open_url`` (the desktop's opener) only when ``links.py``
allows it; any other link is refused with ``linkRefused``, but a link to a message
(``parler://…/room/ROOM/SEQ``) is handed on as ``messageLinkOpened`` to show it here. A time's tooltip is its full date, a
signature icon's says what it means.

A long message is folded (``message_layout``); its "Show more" link, Enter or Space on the
current row, or the context menu expand it, and "Show less" folds it again. Only that row is
laid out anew, and folding keeps the link where it was on screen.

Dragging over a message's text selects part of it, as in any chat app; Ctrl+C or the context
menu's Copy copies the selection (Copy text, or Ctrl+C with no selection, the whole message).
``TimelineView`` builds on this with where the view is (reading, following, paging).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QPoint, QRect, Qt, QUrl, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QMenu, QStyleOptionViewItem, QWidget

from parler_desktop.app.timeline.message_reading import spoken
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.client.message_link import is_message_link
from parler_desktop.ui.timeline.links import openable_url
from parler_desktop.ui.timeline.message_delegate import MessageDelegate
from parler_desktop.ui.timeline.message_layout import RowLayout
from parler_desktop.ui.timeline.row_list_view import RowListView


MENU_TITLE_CHARS = 40  # of a card's title or a link in a menu item
MENU_LINKS = 5  # a message's first links are in its menu (a list of fifty would hide the rest)


def clipped(text: str) -> str:
    return text if len(text) <= MENU_TITLE_CHARS else text[: MENU_TITLE_CHARS - 1] + "…"


def body_links(body: QTextDocument | None) -> list[str]:
    """The addresses of the links in a row's body, in order, each once."""
    found: dict[str, None] = {}
    block = body.begin() if body is not None else None
    while block is not None and block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor() and fragment.charFormat().anchorHref():
                found[fragment.charFormat().anchorHref()] = None
            iterator += 1
        block = block.next()
    return list(found)


class MessageRowsView(RowListView):
    replyRequested = Signal(object)  # TimelineEntry
    linkRefused = Signal(str)  # the address of a link that was not opened
    copyLinkRequested = Signal(object)  # TimelineEntry whose parler:// link goes on the clipboard
    messageLinkOpened = Signal(str)  # a parler://…/room/ROOM/SEQ link in a message was clicked
    cardActionsChanged = Signal()  # a request was answered (or its answer failed): its actions went (or came back)

    def __init__(
        self, model: TimelineModel, parent: QWidget | None = None, open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
    ) -> None:
        super().__init__(parent)
        self.open_url = open_url
        self._pressed_link: str | None = None
        self._selecting: str | None = None  # the key of the row whose text the mouse is selecting
        self._model = model
        self.setModel(model)
        self.message_delegate = MessageDelegate(self)
        self.setItemDelegate(self.message_delegate)
        self.message_delegate.toggleRequested.connect(self.toggle_expanded)
        model.reading.plain_body = lambda entry: self.message_delegate.layouts.plain_text(entry, self.font())
        self.setMouseTracking(True)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)

    # -- long messages ----------------------------------------------------------------------
    def row_layout(self, index: QModelIndex) -> RowLayout | None:
        """Where the pieces of the row are, as painted (row coordinates)."""
        return self.message_delegate.row_layout(self._row_option(index), index)

    def _row_option(self, index: QModelIndex) -> QStyleOptionViewItem:
        """The style option the delegate paints ``index`` with."""
        option = self._option()
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
            bar = self._bar
            bar.setValue(bar.value() + after.top() - before.top())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        index = self.currentIndex()
        menu_key = event.key() == Qt.Key.Key_Menu or (
            event.key() == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
        )
        if menu_key and index.isValid():
            self.row_menu(index)
            return
        acts = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        if acts and index.isValid() and self.card_actions(index):
            self.row_menu(index)  # a request: its actions (and the rest of the row's menu)
            return
        if acts and index.isValid() and self.toggle_link(index) is not None:
            self.toggle_expanded(index)
            return
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
            return
        super().keyPressEvent(event)

    def copy(self) -> None:
        """Ctrl+C: the selected part of a message, else the whole current message."""
        entry = self._model.entry(self.currentIndex().row()) if self.currentIndex().isValid() else None
        text = self.selected_text() or (entry.text if entry is not None else "")
        if text:
            QGuiApplication.clipboard().setText(text)

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
            self._viewport.update()

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
            self._viewport.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            self._viewport.unsetCursor()

    def event(self, event: QEvent) -> bool:
        """A context menu the platform makes from the keyboard is the current row's."""
        if isinstance(event, QContextMenuEvent) and event.reason() == QContextMenuEvent.Reason.Keyboard:
            if self.currentIndex().isValid():
                self.row_menu(self.currentIndex())
            return True
        return super().event(event)

    def card_actions(self, index: QModelIndex) -> list[str]:
        """The row's request actions not taken yet (Reply, Hand back, Done), as its cards offer them."""
        layout = self.row_layout(index) if index.isValid() else None
        labels = [label for card in (layout.cards if layout is not None else []) for label in card.actions]
        return list(dict.fromkeys(labels))

    def _context_menu(self, point: QPoint) -> QMenu | None:
        """The menu of the row under ``point`` (viewport coordinates), where it was asked for."""
        index = self.indexAt(point)
        return self.row_menu(index, self._viewport.mapToGlobal(point)) if index.isValid() else None

    def row_menu(self, index: QModelIndex, where: QPoint | None = None) -> QMenu | None:
        """Everything a click on the row can do, for the keyboard too: a request's actions (or a
        failed post's Retry and Discard), then Reply, Copy (the selection), Copy text, Copy link,
        Show whole message, the body's links, the original of a reply, each card's file and
        details: a popup answering by signals, no nested event loop. Opened from the keyboard
        (``where`` None), it shows at the row's top left corner."""
        entry: TimelineEntry | None = self._model.entry(index.row()) if index.isValid() else None
        if entry is None:
            return None
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        row = QPersistentModelIndex(index)
        actions = self.card_actions(index)
        for label in actions:
            menu.addAction(label, lambda label=label: self.message_delegate.requestAction.emit(QModelIndex(row), label))
        if entry.is_failed and entry.outbox is not None:  # the row's Retry and Discard buttons
            client_id = entry.outbox.client_id
            menu.addAction("Retry sending", lambda: self.message_delegate.retryRequested.emit(client_id))
            menu.addAction("Discard", lambda: self.message_delegate.discardRequested.emit(client_id))
        if actions or entry.is_failed:
            menu.addSeparator()
        if "Reply" not in actions:
            reply = menu.addAction("Reply", lambda: self.replyRequested.emit(entry))
            reply.setEnabled(entry.message_id is not None)
        selected = self.selected_text() if self._row_of_key(entry.key) == index else ""
        if selected:
            menu.addAction("Copy", lambda: QGuiApplication.clipboard().setText(selected))
        menu.addAction("Copy text", lambda: QGuiApplication.clipboard().setText(entry.text))
        copy_link = menu.addAction("Copy link", lambda: self.copyLinkRequested.emit(entry))
        copy_link.setEnabled(entry.seq is not None)
        if self.toggle_link(index) is not None:
            expanded = self._model.is_expanded(entry.key)
            menu.addAction("Show less" if expanded else "Show whole message", lambda: self.toggle_expanded(QModelIndex(row)))
        layout = self.row_layout(index)
        for href in body_links(layout.body if layout is not None else None)[:MENU_LINKS]:
            menu.addAction(f"Open link “{clipped(href)}”", lambda href=href: self.open_link(href))  # (refused as a click's is)
        if entry.reply_to:  # (what a click on "in reply to" does)
            menu.addAction("Go to the message it replies to", lambda: self.message_delegate.replyClicked.emit(QModelIndex(row)))
        for number, card in enumerate(layout.cards if layout is not None else []):
            title = clipped(spoken(card.card.title))
            if card.card.blob_id:  # (its Save… link)
                menu.addAction(f"Save “{title}”…", lambda card=card.card: self.message_delegate.saveRequested.emit(card))
            if card.card.more:  # (what a click on the card does)
                toggle = f"{'Hide' if card.expanded else 'Show'} the details of “{title}”"
                menu.addAction(toggle, lambda number=number: self.message_delegate.cardToggled.emit(QModelIndex(row), number))
        if where is None:
            visible = self.visualRect(index).intersected(self._viewport.rect())
            where = self._viewport.mapToGlobal(visible.topLeft() + QPoint(24, 12))
        menu.popup(where)
        return menu
