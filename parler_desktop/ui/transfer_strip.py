"""A strip above the composer: one line per file being sent (``UploadsModel``) or saved
(``FileSavesModel``), with its progress and a Cancel button (Dismiss once it failed, its sentence
in place of the progress). The few row widgets are made again when rows come or go.

A model for it has the roles ``TRANSFER_FRACTION`` and ``TRANSFER_PROBLEM``, ``cancel(row)`` and
``subject(row)`` (what Cancel stops: "sending report.pdf")."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from parler_desktop.app import roles
from parler_desktop.ui.keyboard import set_tab_order

BAR_STEPS = 1000


class TransferLine(QWidget):
    def __init__(self, model: Any, row: int, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model, self._row = model, row
        self.label = QLabel(textFormat=Qt.TextFormat.PlainText, objectName=f"{kind}Label", wordWrap=True)
        self.bar = QProgressBar(objectName=f"{kind}Progress", maximum=BAR_STEPS, textVisible=False)
        self.bar.setAccessibleName(f"{kind.capitalize()} progress")
        self.button = QPushButton(objectName=f"{kind}Cancel")
        self.button.clicked.connect(lambda: self._model.cancel(self._row))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.button)
        self.refresh()

    def refresh(self) -> None:
        index = self._model.index(self._row)
        problem = index.data(roles.TRANSFER_PROBLEM)
        self.label.setText(index.data())
        self.bar.setVisible(not problem)
        self.bar.setValue(int(index.data(roles.TRANSFER_FRACTION) * BAR_STEPS))
        self.button.setText("Dismiss" if problem else "Cancel")
        self.button.setAccessibleName(f"{self.button.text()} {self._model.subject(self._row)}")


class TransferStrip(QWidget):
    """``kind`` names its widgets (``uploadStrip``, ``uploadCancel``, …)."""

    def __init__(self, model: Any, kind: str, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{kind}Strip")
        self.setAccessibleName(accessible_name)
        self._model, self._kind = model, kind
        self.lines: list[TransferLine] = []
        self.tab_after: QWidget | None = None  # the window's widget before the strip in Tab order
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 0)
        model.rowsInserted.connect(self._rebuild)
        model.rowsRemoved.connect(self._rebuild)
        model.dataChanged.connect(self._changed)
        self._rebuild()

    def _rebuild(self) -> None:
        for line in self.lines:
            line.deleteLater()
        self.lines = [TransferLine(self._model, row, self._kind, self) for row in range(self._model.rowCount())]
        for line in self.lines:
            self._layout.addWidget(line)
        if self.tab_after is not None:  # made now, the buttons would come last in Tab order
            set_tab_order([self.tab_after, *(line.button for line in self.lines)])
        self.setVisible(bool(self.lines))

    def _changed(self, first: QModelIndex, last: QModelIndex) -> None:
        for row in range(first.row(), last.row() + 1):
            if 0 <= row < len(self.lines):
                self.lines[row].refresh()
