"""Room memory…: search what the agents of the shown room remember (keyed facts with that key
first, newest first), and add or correct a fact: choosing a keyed fact puts its key and text in
the form below, and Save writes the human's own fact under that key. Where the hub refuses the
human's facts, the form gives way to the hub's sentence. A panel beside the window (shown, not
modal), following the room shown."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from parler_desktop.app.memory.facts_model import FactsModel

SEARCH_PAUSE_MS = 300  # a search once typing pauses: each recall spends one of the hub's operations


class MemoryPanel(QDialog):
    def __init__(self, model: FactsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryPanel")
        self.setWindowTitle("Room memory")
        self.setModal(False)
        self.resize(560, 460)
        self.model = model
        self.search = QLineEdit(objectName="memorySearch", placeholderText="Search: words, or a fact's key")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search the room's memory")
        self.facts = QListView(objectName="memoryFacts")
        self.facts.setAccessibleName("Facts")
        self.facts.setModel(model)
        self.facts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.facts.setWordWrap(True)
        self.hint = QLabel(objectName="memoryHint", textFormat=Qt.TextFormat.PlainText, wordWrap=True)
        self.problem = QLabel(objectName="memoryProblem", textFormat=Qt.TextFormat.PlainText, wordWrap=True)
        self.problem.hide()
        self.key = QLineEdit(objectName="memoryKey", placeholderText="a key, to replace your fact with it (optional)")
        self.text = QLineEdit(objectName="memoryText", placeholderText="what should be remembered")
        self.save = QPushButton("&Save fact", objectName="memorySave")
        self.save.clicked.connect(self._save)
        self.text.returnPressed.connect(self._save)
        self.form = QWidget()
        form = QFormLayout(self.form)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("&Key", self.key)
        form.addRow("&Fact", self.text)
        form.addRow(self.save)
        self.read_only = QLabel(objectName="memoryReadOnly", textFormat=Qt.TextFormat.PlainText, wordWrap=True)
        self.read_only.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.hint)
        layout.addWidget(self.facts, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.form)
        layout.addWidget(self.read_only)
        self._pause = QTimer(self, singleShot=True, interval=SEARCH_PAUSE_MS)
        self._pause.timeout.connect(lambda: model.search(self.search.text()))
        self.search.textChanged.connect(self._pause.start)
        self.search.returnPressed.connect(lambda: (self._pause.stop(), model.search(self.search.text())))
        self.facts.clicked.connect(self._correct)
        self.facts.activated.connect(self._correct)
        model.problemChanged.connect(self._show_problem)
        model.readOnlyChanged.connect(self._show_read_only)
        model.saved.connect(self.text.clear)
        model.modelReset.connect(self._update_hint)
        self._show_read_only(model.read_only)
        self._update_hint()

    def _save(self) -> None:
        if self.text.text().strip():
            self.model.remember(self.key.text(), self.text.text())

    def _correct(self, index: QModelIndex) -> None:
        """A fact chosen: its key and text in the form, to be corrected and saved as the human's."""
        self.key.setText(index.data(FactsModel.KEY))
        self.text.setText(index.data(FactsModel.TEXT))
        self.text.setFocus()

    def _show_problem(self, sentence: str) -> None:
        self.problem.setText(sentence)
        self.problem.setVisible(bool(sentence))

    def _show_read_only(self, reason: str) -> None:
        self.form.setVisible(not reason)
        self.read_only.setText(reason)
        self.read_only.setVisible(bool(reason))

    def follow(self, room_label: str) -> None:
        """The room shown changed (the model follows it): say which room's memory this is."""
        self.setWindowTitle(f"Memory of {room_label}" if room_label else "Room memory")
        self._update_hint()

    def _update_hint(self) -> None:
        model = self.model
        if model.room is None:
            text = "Open a room to see what its agents remember."
        elif not model.query:
            text = "Type words, or a fact's key, to see what the agents of this room remember."
        elif not model.rowCount():
            text = f"No fact in this room matches “{model.query}”."
        else:
            text = ""
        self.hint.setText(text)
        self.hint.setVisible(bool(text))
