"""The rows of files on their way (sent: ``uploads/``, saved: ``saves/``), as the transfer strip
above the composer shows them: each row's ``transfer`` (the FileUpload or BlobSave), how far it
is (``fraction``) and, once it failed, the sentence saying why (``problem``). Progress repaints a
row at most every ``PROGRESS_STEP`` of its bytes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex

from parler_desktop.app import roles
from parler_desktop.app.display_text import NOTICE_CHARS, display_text

PROGRESS_STEP = 1 / 100

Index = QModelIndex | QPersistentModelIndex


class TransferRows(QAbstractListModel):
    """A row is any object with ``transfer``, ``fraction``, ``problem`` and ``shown_fraction``."""

    FRACTION = roles.TRANSFER_FRACTION
    PROBLEM = roles.TRANSFER_PROBLEM

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[Any] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def _row_data(self, index: Index, role: int) -> tuple[Any, Any]:
        """(the row, its FRACTION or PROBLEM data); (None, None) for no row, (row, None) for another role."""
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None, None
        row = self._rows[index.row()]
        return row, row.fraction if role == self.FRACTION else row.problem if role == self.PROBLEM else None

    def _append(self, row: Any) -> None:
        self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows))
        self._rows.append(row)
        self.endInsertRows()

    def _row_of(self, transfer: Any) -> int | None:
        return next((i for i, row in enumerate(self._rows) if row.transfer is transfer), None)

    def _progress(self, transfer: Any) -> None:
        number = self._row_of(transfer)
        if number is None:
            return
        row = self._rows[number]
        if abs(row.fraction - row.shown_fraction) >= PROGRESS_STEP or row.fraction in (0.0, 1.0):
            row.shown_fraction = row.fraction
            self.dataChanged.emit(self.index(number), self.index(number))

    def _fail(self, transfer: Any, sentence: str) -> None:
        number = self._row_of(transfer)
        if number is not None:
            self._rows[number].problem = display_text(sentence, NOTICE_CHARS)
            self.dataChanged.emit(self.index(number), self.index(number))

    def _remove(self, transfer: Any) -> None:
        number = self._row_of(transfer)
        if number is not None:
            self.beginRemoveRows(QModelIndex(), number, number)
            del self._rows[number]
            self.endRemoveRows()
