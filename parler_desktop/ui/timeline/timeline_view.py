"""The timeline list: opens a room at its read cursor and follows new messages only while the
reader is at the bottom.

A room with unread messages opens with the first of them (under the "New messages" divider) at
the top; one with none opens at the bottom. ``seenChanged`` tells the newest seq that is on
screen right now (a row cut off by the bottom edge is not seen yet), which is all the read
tracker may mark read.

Opened at its first unread, the view keeps the "New messages" line on screen until the reader
scrolls: following the bottom (messages arriving, the composer growing) stops with the line at
the top, and what does not fit raises the pill.

Not at the bottom, new messages raise an "N new messages" pill instead of moving the text under
the reader, and a new width keeps the row at the top of the view where it was. Scrolling near
the top asks the model for older history and keeps the reader's place when it arrives (a page
that leaves nothing to scroll asks for the next at once). A "Jump to first unread" button loads
back to the read marker and goes there.

Home, End, Page Up and Page Down scroll the conversation. A click on "in reply to" goes to the
original (paging back to it), a click on a card shows all of it. What the pointer does over a
row's text (links, folding, selecting) is ``MessageRowsView``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QModelIndex, QPersistentModelIndex, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QAccessible, QDesktopServices, QKeyEvent, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QPushButton, QWidget

from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.accessibility import Announcer
from parler_desktop.ui.timeline.message_rows_view import MessageRowsView
from parler_desktop.ui.timeline.width_relayout import WidthRelayout

BOTTOM_SLACK_PX = 4
LOAD_OLDER_PX = 300
ANNOUNCED_ROWS = 3  # more new messages at once are announced as their number and the newest
ANNOUNCE_EVERY_MS = 1000  # a burst is announced once (a screen reader would read behind a busy room)
KEPT_LAYOUTS = 120  # laid-out rows of the rooms shown before kept when another is shown (2 pages, ~26 KB each)


class TimelineView(MessageRowsView):
    seenChanged = Signal(int)  # the newest stored seq on screen (0: none)
    statusMessage = Signal(str)  # a sentence for the status bar
    # Set here, not in __init__: Qt lays the rows out while the base classes are being built.
    _place_held: tuple[QPersistentModelIndex, int] | None = None  # see _hold_place
    _divider_held = False  # opened at the first unread: the divider stays on screen (see _follow_to)

    def __init__(
        self,
        model: TimelineModel,
        parent: QWidget | None = None,
        open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(model, parent, open_url)
        self._width_relayout = WidthRelayout(self, model, self.message_delegate)
        self.setObjectName("timeline")
        self.setAccessibleName("Messages")
        self.announcer = Announcer(self)  # new messages in the room, said to a screen reader
        self._unannounced = 0  # messages from others appended since the last announcement
        self._announce_timer = QTimer(self, singleShot=True, interval=ANNOUNCE_EVERY_MS)
        self._announce_timer.timeout.connect(self._announce)
        self.message_delegate.cardToggled.connect(self._toggle_card)
        self.message_delegate.replyClicked.connect(self.go_to_original)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._bar.setSingleStep(24)
        self._bar.actionTriggered.connect(self._reader_scrolled)  # the wheel, the bar dragged or clicked
        self.at_bottom = True
        self.unseen = 0
        self.placeholder = ""  # said in the middle when there are no rows
        self._anchor_from_bottom: int | None = None
        self.seen_seq = 0
        self._seen_timer = QTimer(self, singleShot=True, interval=0)  # started by each paint
        self._seen_timer.timeout.connect(self._update_seen)
        self._jump_timer = QTimer(self, singleShot=True, interval=0)
        self._jump_timer.timeout.connect(self._update_jump)
        # The overlays sit on the viewport, not beside it: Qt scrolls a viewport that a sibling
        # overlaps by painting all of it again instead of moving its pixels.
        self._pill = QPushButton(self._viewport, objectName="newMessagesPill", accessibleDescription="Go to the newest message")
        self._pill.setCursor(Qt.CursorShape.PointingHandCursor)
        self._pill.clicked.connect(self.scroll_to_newest)
        self._pill.hide()
        self._jump = QPushButton("↑ Jump to first unread", self._viewport, objectName="jumpToUnread")
        self._jump.clicked.connect(self.jump_to_first_unread)
        self._jump.hide()
        self._sizes_room: str | None = None  # the room whose rows the delegate's sizes know
        model.modelReset.connect(self._room_reset)
        model.roomLoaded.connect(lambda _room: self._room_loaded())
        model.olderLoaded.connect(self._older_loaded)
        model.newerLoaded.connect(self._read_more_while_short)
        model.appended.connect(self._appended)
        model.prepare_row = self._prepare_row
        model.readUpTo.connect(self._update_jump)  # read to the end: nothing left to jump back to

    # -- following the bottom ---------------------------------------------------------------
    def scroll_to_newest(self) -> None:
        self._divider_held = False
        if self._model.has_newer:
            self._model.load_latest()  # the window opened further up: read the newest page in
            return
        self.scrollToBottom()
        self._set_at_bottom(True)
        self._read_more_while_short()

    def _read_more_while_short(self, *_page: object) -> None:
        """Ask for the next page if the rows read so far reach no further than ``LOAD_OLDER_PX``
        past the view: with nothing to scroll (a tall window, a room of one-line messages), no
        scroll would ever ask for it."""
        self._scrolled(self._bar.value())

    def updateGeometries(self) -> None:
        """When the scroll range changes, keep the reader's place: the bottom while following, or
        the distance from the bottom that a page of older rows must keep. Here rather than in a
        slot on the scroll bar's ``rangeChanged`` (the range is set nowhere else): a Qt signal to
        a Python slot costs tens of microseconds of a pushed message's way to the screen."""
        bar = self._bar
        before = bar.maximum()
        super().updateGeometries()
        maximum = bar.maximum()
        if maximum == before:
            return
        if self._anchor_from_bottom is not None:
            bar.setValue(maximum - self._anchor_from_bottom)
            self._anchor_from_bottom = None
        elif self.at_bottom:
            bar.setValue(self._follow_to(maximum))

    def _follow_to(self, maximum: int) -> int:
        """How far following the bottom may scroll: to ``maximum``, or while the divider is held
        only as far as puts it at the top (then the reader is no longer at the bottom)."""
        row = self._model.first_unread_row() if self._divider_held else None
        top = self.visualRect(self._model.index(row)).top() if row is not None else -1
        if top < 0:  # none, or the reader took it off the top already (the arrow keys, a click)
            self._divider_held = False
            return maximum
        return min(maximum, self._bar.value() + top)

    def _reader_scrolled(self, *_action: object) -> None:
        """The reader moved the view: from here it follows the bottom as they leave it."""
        self._divider_held = False

    def _scrolled(self, value: int) -> None:
        bar = self._bar
        self._set_at_bottom(value >= bar.maximum() - BOTTOM_SLACK_PX and not self._model.has_newer)
        if value <= LOAD_OLDER_PX and self._model.has_older and self._anchor_from_bottom is None:
            self._model.load_older()
        elif value >= bar.maximum() - LOAD_OLDER_PX and self._model.has_newer:
            self._model.load_newer()
        elif value <= LOAD_OLDER_PX and self._anchor_from_bottom is None:
            self._model.load_older_from_hub()  # past the oldest stored: what a catch-up left on the hub
        self._jump_timer.start()  # after this turn's paint: a scroll while following paints first

    # -- what has been on screen ------------------------------------------------------------
    def newest_seen_row(self) -> int | None:
        """The lowest row shown whole (or filling the view from its top); None before layout."""
        count = self._model.rowCount()
        height = self._viewport.height()
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
        if at_bottom and self.unseen:
            self.unseen = 0
            self._pill.hide()
        self._model.following = at_bottom
        self.at_bottom = at_bottom

    def rowsInserted(self, parent: QModelIndex, start: int, end: int) -> None:
        """Rows added at the end while following are painted now (``_paint_now``), in a frame
        of their own, and the scroll bar's new range in the frame after it: painted in the same
        frame, the bar's repaint came between the row's paint and the frame that shows it."""
        count = self._model.rowCount()
        following = self.at_bottom and end == count - 1
        if following:
            self._bar.setUpdatesEnabled(False)
        try:
            super().rowsInserted(parent, start, end)
            if end - start + 1 == count:
                self._viewport.update()  # the first rows: the placeholder in the middle goes (only they were painted)
            if following:
                self._paint_now()  # here rather than on ``appended``: a signal to a slot costs ~25 µs
        finally:
            if following:
                self._bar.setUpdatesEnabled(True)  # (this asks for the bar's repaint)

    def _appended(self, count: int) -> None:
        if count and QAccessible.isActive():  # (a screen reader is listening: one call into Qt to know)
            self._unannounced += count
            if not self._announce_timer.isActive():
                self._announce_timer.start()
        if self.at_bottom:
            self._paint_now()  # rows inserted above the human's unsent posts (done, if at the end)
        if self.at_bottom or not count:
            return
        self.unseen += count
        self._pill.setText(f"{self.unseen} new message{'s' if self.unseen != 1 else ''} ↓")
        self._pill.show()
        self._place_overlays()

    def _announce(self) -> None:
        """Say the messages from others that came since the last announcement, politely: each of
        up to ANNOUNCED_ROWS of them as its row reads, more as their number and the newest."""
        count, self._unannounced = self._unannounced, 0
        model = self._model
        if not count or model.loading:
            return
        said: list[str] = []
        if not model.has_newer:  # (else they are past the loaded window: counted only)
            for row in reversed(range(model.rowCount())):
                entry = model.entry(row)
                if entry is not None and entry.seq is not None and not entry.mine:
                    said.append(model.data(model.index(row), Qt.ItemDataRole.AccessibleTextRole))
                if len(said) == min(count, ANNOUNCED_ROWS):
                    break
        if count > len(said):
            newest = f". Newest: {said[0]}" if said else ""
            self.announcer.say(f"{count} new message{'s' if count != 1 else ''} in {model.room}{newest}")
        else:
            self.announcer.say(". ".join(reversed(said)))

    def _prepare_row(self, entry: TimelineEntry) -> None:
        self.message_delegate.prepare_row(self._option(), entry)

    def _paint_now(self) -> None:
        """Lay out what waits (rows not added at the end), then paint the new rows now, not a
        loop turn later (Qt's posted repaint)."""
        self.executeDelayedItemsLayout()
        QCoreApplication.sendPostedEvents(self.window(), QEvent.Type.UpdateRequest)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() in (QEvent.Type.Polish, QEvent.Type.StyleChange):
            # A style sheet, polishing this view, leaves the viewport's background to the view
            # behind it, and then Qt repaints the whole viewport on every scroll instead of moving
            # its pixels. (Not in ``viewportEvent``: that runs for each of the viewport's events,
            # the paint of each pushed message included.)
            self.viewport().setAutoFillBackground(True)  # (not _viewport: this may come before __init__ holds it)
            # The scroll bar is not opaque: unless the container Qt holds it in fills its own
            # background, each repaint of the bar (one a pushed message: its range grew) also
            # paints the four widgets behind it, ~0.7 ms.
            self.verticalScrollBar().parentWidget().setAutoFillBackground(True)
        return handled

    def _older_loaded(self, count: int) -> None:
        """Keep the text under the reader in place: below the ``count`` rows put on top (not at its
        distance from the bottom: the model may have dropped its newest rows, ``MAX_ROWS``)."""
        bar = self._bar
        value = bar.value()
        self._anchor_from_bottom = bar.maximum() - value  # (keeps the scroll handler from reading more meanwhile)
        self.doItemsLayout()  # settle heights now
        self._anchor_from_bottom = None
        bar.setValue(value + self._tops[min(count, len(self._tops) - 1)])
        self._read_more_while_short()

    def rowsAboutToBeRemoved(self, parent: QModelIndex, start: int, end: int) -> None:
        """Rows that go (a followed room trimmed from the top) are forgotten by the row sizes,
        which held every row ever laid out with its body, up to 20,000, and by the layout cache,
        which held 1,500 bodies (issue 42). Forgotten after the base class's part: letting go of
        a current row among them lays every row out, these too, when a layout is due."""
        model = self._model
        keys = [entry.key for row in range(start, end + 1) if (entry := model.entry(row)) is not None]
        super().rowsAboutToBeRemoved(parent, start, end)
        self.message_delegate.sizes.forget(keys)
        self.message_delegate.layouts.forget(keys)

    def _room_reset(self) -> None:
        self._unannounced = 0  # (another room's)
        self._divider_held = False
        if self._model.room != self._sizes_room:  # another room: the rows known (and their bodies) go
            self.message_delegate.sizes.clear()  # (they held up to 20,000 laid-out bodies, issue 42)
            self.message_delegate.layouts.shrink(KEPT_LAYOUTS)  # a few pages, for going back
            self._sizes_room = self._model.room
        self.unseen = 0
        self._pill.hide()
        self._anchor_from_bottom = None
        self._place_held = None
        self._set_at_bottom(True)
        self.seen_seq = 0
        self.seenChanged.emit(0)

    def _room_loaded(self) -> None:
        """Open at the read cursor: the first unread message at the top, or else the bottom; or,
        opened at one message (a notification, a search result, a link), at that message."""
        model = self._model
        if isinstance(model.landing, int):
            self._show_message(model.landing)
            return
        row = model.first_unread_row()
        if row is not None and model.landing == "unread":
            self._width_relayout.opening(row, upward=False)  # the rows on screen laid out first (``width_relayout``)
            self._show_at_top(row)
            self._hold(row)
            self._divider_held = True
        else:
            self._width_relayout.opening(model.rowCount() - 1, upward=True)
            self.scroll_to_newest()
        self._update_jump()

    def _hold(self, row: int) -> None:
        """Keep ``row`` where it is on screen while the rows above it are laid out (``_hold_place``)."""
        if self.message_delegate.sizes.stale and not self.at_bottom:
            index = self._model.index(row)
            self._place_held = (QPersistentModelIndex(index), self.visualRect(index).top())

    def _show_message(self, seq: int) -> None:
        """Select the message ``seq`` and put it in the middle of the view."""
        model = self._model
        row = next((row for row in range(model.rowCount()) if (entry := model.entry(row)) and entry.seq == seq), None)
        if row is not None:
            self._set_at_bottom(False)
            self.doItemsLayout()
            self.setCurrentIndex(model.index(row))
            self.scrollTo(model.index(row), QAbstractItemView.ScrollHint.PositionAtCenter)
            self._scrolled(self._bar.value())
        self._update_jump()

    def _show_at_top(self, row: int) -> None:
        """Put ``row`` (with its divider) at the top of the view; the bottom if all fits below."""
        self._set_at_bottom(False)
        self.doItemsLayout()
        self.scrollTo(self._model.index(row), QAbstractItemView.ScrollHint.PositionAtTop)
        self._scrolled(self._bar.value())

    def set_online(self, online: bool) -> None:
        """Whether the session sends (live or catching up): unsent posts say "Sending…" or
        "Waiting for connection"."""
        if self.message_delegate.layouts.online != online:
            self.message_delegate.layouts.online = online
            self._viewport.update()

    # -- first unread -----------------------------------------------------------------------
    def _update_jump(self) -> None:
        """Offer the jump back to the divider while something unread is above the view: not
        while all that is still unread is on screen or below it (following a busy room, the
        divider's rows leave the loaded window, and the newest message is unread until its ack
        lands: the button came and went with every message); nor while the reader follows the
        bottom in the active window, where all that scrolls past is being read (the read tracker's
        ack lands a moment later: in a busy room the button came and went every second)."""
        model = self._model
        if self.at_bottom and self.isActiveWindow():
            if self._jump.isVisible():
                self._jump.hide()
            return
        row = model.first_unread_row()
        above = row is not None and self.visualRect(model.index(row)).bottom() < 0
        unread = model.first_unread_after(model.cursor)  # by the hub cursor now, not the divider
        unread_above = unread == -1 or (unread is not None and self.visualRect(model.index(unread)).bottom() < 0)
        show = not model.loading and unread_above and (above or model.first_unread_outside)
        if show != self._jump.isVisible():
            self._jump.setVisible(show)
            self._place_overlays()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange:
            self._jump_timer.start()  # the active window's reader at the bottom is offered no jump

    def jump_to_first_unread(self) -> None:
        """Show the first unread message at the top; from outside the window, the room opens
        there again (one page read, however far back it is)."""
        row = self._model.first_unread_row()
        if row is not None:
            self._show_at_top(row)
            self._update_jump()
        elif self._model.first_unread_outside:
            self._model.open_room(self._model.room)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self._divider_held = False  # the reader moves in the timeline
        if not self._scroll_by_key(event.key()):
            super().keyPressEvent(event)

    def _scroll_by_key(self, key: int) -> bool:
        """Home / End / Page Up / Page Down scroll the conversation, as in any chat app (they
        would otherwise move the current row, starting from the first one)."""
        bar = self._bar
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
            with QPainter(self._viewport) as painter:  # (ended even if this raises: RowListView.paintEvent)
                painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
                area = self._viewport.rect().adjusted(40, 40, -40, -40)
                painter.drawText(area, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.placeholder)

    def resizeEvent(self, event: QResizeEvent) -> None:
        if event.size().width() != event.oldSize().width():
            self._width_relayout.width_changing(self.at_bottom)
            top = self.indexAt(QPoint(0, 0))
            if not self.at_bottom and top.isValid():
                self._place_held = (QPersistentModelIndex(top), self.visualRect(top).top())
        super().resizeEvent(event)
        self._place_overlays()

    def doItemsLayout(self) -> None:
        nested = self._laying_out
        super().doItemsLayout()
        if not nested and self._place_held is not None:
            self._hold_place()

    def _hold_place(self) -> None:
        """While a new width lays the rows out (those on screen at once, the others in slices),
        keep the row the reader had at the top of the view where it was: the rows above it grow
        or shrink, and would carry the text being read off the screen. Until the reader scrolls,
        or every row has its height at the new width."""
        place = self._place_held
        held, top = place
        if held.isValid() and not self.at_bottom:
            bar = self._bar
            bar.setValue(bar.value() + self.visualRect(self._model.index(held.row(), 0)).top() - top)
        self._place_held = place if self.message_delegate.sizes.stale else None  # (that scroll dropped it)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if self._place_held is not None and not self._laying_out:
            self._place_held = None  # the reader (or a jump) moved the view: that place is theirs now
        self._place_overlays()  # the viewport's scroll moved them with the rows
        self._scrolled(self._bar.value())  # not a slot: on a push's way to the screen

    def _place_overlays(self) -> None:
        if self._pill.isHidden() and self._jump.isHidden():
            return  # placed when shown (the scroll of a new message need not wait for this)
        area = self._viewport.rect()
        self._pill.adjustSize()
        self._pill.move(area.center().x() - self._pill.width() // 2, area.bottom() - self._pill.height() - 12)
        self._jump.adjustSize()
        self._jump.move(area.center().x() - self._jump.width() // 2, area.top() + 8)
