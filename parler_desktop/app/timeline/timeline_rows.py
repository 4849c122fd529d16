"""TimelineRows: what a timeline's rows are and say — the loaded stored messages ascending by
seq, then the human's unsent posts — and the per-row facts the view needs: the first unread row
(under the "New messages" divider), grouping and date separators, which long messages and cards
the reader expanded, and what each row says to a screen reader (``message_reading``).
``TimelineModel`` keeps the rows in step with the store and the session.

The first unread row is asked for every row the view lays out, so it is remembered until the
rows change. Expanded messages and cards are kept by entry key (not persisted), so they survive
scrolling, paging and switching rooms until the session changes.
"""

from __future__ import annotations

import bisect
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from parler_desktop.app import roles
from parler_desktop.app.timeline.message_reading import MessageReading
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.protocol.readable import readable

Index = QModelIndex | QPersistentModelIndex


class TimelineRows(QAbstractListModel):
    def __init__(self, reading: MessageReading, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.reading = reading  # what each row says to a screen reader
        self.read_marker = 0  # the hub cursor when the room was opened
        self._stored: list[TimelineEntry] = []
        self._outbox: list[TimelineEntry] = []
        self._offset = 0  # store offset of self._stored[0]
        self._first_unread: int | None = None
        self._first_unread_known = False
        self._expanded: set[str] = set()  # keys of the long (or suspect) messages shown whole
        self._open_cards: dict[str, frozenset[int]] = {}  # key -> the cards shown with all details
        # Connected first: these run before any view's slot.
        for change in (self.modelReset, self.rowsRemoved):
            change.connect(self._forget_first_unread)

    # -- Qt model ---------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._stored) + len(self._outbox)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        entry = self.entry(index.row()) if index.isValid() else None
        if entry is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return readable(f"{entry.sender_name}: {entry.text}")
        if role == roles.FIRST_UNREAD:
            return index.row() == self.first_unread_row()
        if role == Qt.ItemDataRole.AccessibleTextRole:
            original = self.entry_by_id(entry.reply_to) if entry.reply_to else None
            return self.reading.text(entry, original, self.is_expanded(entry.key), self.open_cards(entry.key))
        return None

    # -- queries ----------------------------------------------------------------------------
    def entry(self, row: int) -> TimelineEntry | None:
        if 0 <= row < len(self._stored):
            return self._stored[row]
        if 0 <= row - len(self._stored) < len(self._outbox):
            return self._outbox[row - len(self._stored)]
        return None

    def row_of_id(self, message_id: str) -> int | None:
        """The loaded row of a stored message by hub id (a reply's original), if loaded."""
        return next((row for row in reversed(range(len(self._stored))) if self._stored[row].message_id == message_id), None)

    @property
    def has_older(self) -> bool:
        return self._offset > 0

    @property
    def newest_seq(self) -> int:
        return self._stored[-1].seq or 0 if self._stored else 0

    def first_unread_row(self) -> int | None:
        """Row of the first loaded message above the read marker, if there is one and it is loaded.

        Asked for every row the view lays out, so it is remembered until the rows change.
        """
        if not self._first_unread_known:
            row = self.first_unread_after(self.read_marker)
            self._first_unread = None if row == -1 else row
            self._first_unread_known = True
        return self._first_unread

    @property
    def first_unread_outside(self) -> bool:
        """The first unread message is older than the loaded window (it has to be paged in)."""
        return self._older_than_window(self.read_marker)

    def _older_than_window(self, marker: int) -> bool:
        return bool(self._stored) and (self._stored[0].seq or 0) > marker and self._offset > 0

    def _forget_first_unread(self, *_change: object) -> None:
        self._first_unread_known = False

    def _end_insert_rows(self, first: int) -> None:
        """``endInsertRows`` for rows inserted from ``first``: rows added below the first unread
        one leave it where it is (a message arriving while the room is open is laid out without
        looking for it again). Not a slot on ``rowsInserted``: a Qt signal to a Python slot costs
        tens of microseconds of a pushed message's way to the screen."""
        if self._first_unread is None or first <= self._first_unread:
            self._first_unread_known = False
        self.endInsertRows()

    def first_unread_after(self, marker: int) -> int | None:
        """Row of the first loaded message from others after seq ``marker`` (the read marker, or
        the hub cursor now); -1 when it is older than the loaded window; None when there is none."""
        if not self._stored or self.newest_seq <= marker:
            return None
        if self._older_than_window(marker):
            return -1
        row = bisect.bisect_right(self._stored, marker, key=lambda e: e.seq or 0)
        while row < len(self._stored) and self._stored[row].mine:
            row += 1
        return row if row < len(self._stored) else None

    def is_expanded(self, key: str) -> bool:
        return key in self._expanded

    def set_expanded(self, row: int, expanded: bool) -> None:
        """Show the row's long body whole (or folded again); the row's data changes."""
        entry = self.entry(row)
        if entry is None or (entry.key in self._expanded) == expanded:
            return
        if expanded:
            self._expanded.add(entry.key)
        else:
            self._expanded.discard(entry.key)
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def open_cards(self, key: str) -> frozenset[int]:
        return self._open_cards.get(key, frozenset())

    def toggle_card(self, row: int, number: int) -> None:
        """Show a card of the row with every detail, or fold it back to one line."""
        entry = self.entry(row)
        if entry is None:
            return
        self._open_cards[entry.key] = self.open_cards(entry.key) ^ {number}
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def entry_by_id(self, message_id: str) -> TimelineEntry | None:
        """A loaded message by hub id (reply previews); None when it is outside the window."""
        row = self.row_of_id(message_id)
        return None if row is None else self._stored[row]
