"""The uploads strip above the composer: one line per file being sent, with its progress and a
Cancel button (Dismiss once it failed, its sentence in place of the progress). It follows an
``UploadsModel``; the few row widgets are made again when rows come or go."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from parler_desktop.app.uploads.uploads_model import UploadsModel
from parler_desktop.ui.keyboard import set_tab_order

BAR_STEPS = 1000


class UploadLine(QWidget):
    def __init__(self, model: UploadsModel, row: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model, self._row = model, row
        self.label = QLabel(textFormat=Qt.TextFormat.PlainText, objectName="uploadLabel", wordWrap=True)
        self.bar = QProgressBar(objectName="uploadProgress", maximum=BAR_STEPS, textVisible=False)
        self.bar.setAccessibleName("Upload progress")
        self.button = QPushButton(objectName="uploadCancel")
        self.button.clicked.connect(lambda: self._model.cancel(self._row))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.button)
        self.refresh()

    def refresh(self) -> None:
        index = self._model.index(self._row)
        problem = index.data(UploadsModel.PROBLEM)
        self.label.setText(index.data())
        self.bar.setVisible(not problem)
        self.bar.setValue(int(index.data(UploadsModel.FRACTION) * BAR_STEPS))
        self.button.setText("Dismiss" if problem else "Cancel")
        self.button.setAccessibleName(f"{self.button.text()} sending {self._model.upload(self._row).name}")


class UploadStrip(QWidget):
    def __init__(self, model: UploadsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("uploadStrip")
        self.setAccessibleName("Files being sent")
        self._model = model
        self.lines: list[UploadLine] = []
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
        self.lines = [UploadLine(self._model, row, self) for row in range(self._model.rowCount())]
        for line in self.lines:
            self._layout.addWidget(line)
        if self.tab_after is not None:  # made now, the buttons would come last in Tab order
            set_tab_order([self.tab_after, *(line.button for line in self.lines)])
        self.setVisible(bool(self.lines))

    def _changed(self, first: QModelIndex, last: QModelIndex) -> None:
        for row in range(first.row(), last.row() + 1):
            if 0 <= row < len(self.lines):
                self.lines[row].refresh()
