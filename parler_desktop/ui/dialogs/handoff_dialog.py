"""The hand-off dialog: who is up next, what they should do, what was done (protocol.md §8.2)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QPlainTextEdit, QWidget

from parler_desktop.protocol.parts import Handoff


class HandoffDialog(QDialog):
    def __init__(self, names: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Hand off")
        self.to = QComboBox(editable=True, accessibleName="To")
        self.to.lineEdit().setAccessibleName("To")
        self.to.addItems(["", *names])
        self.to.lineEdit().setPlaceholderText("anyone (or a name / role)")
        self.next = QPlainTextEdit()
        self.next.setPlaceholderText("What should they do next? (required)")
        self.next.setFixedHeight(80)
        self.next.setTabChangesFocus(True)  # Tab moves on to the next field, as in every dialog
        self.summary = QLineEdit(placeholderText="What was done (optional)")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Hand off")
        buttons.accepted.connect(self._accept_if_complete)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("To", self.to)
        form.addRow("Next", self.next)
        form.addRow("Done", self.summary)
        form.addRow(buttons)

    def _accept_if_complete(self) -> None:
        if self.next.toPlainText().strip():
            self.accept()
        else:
            self.next.setFocus()

    def handoff(self) -> Handoff:
        return Handoff(
            next=self.next.toPlainText().strip(),
            summary=self.summary.text().strip() or None,
            to=self.to.currentText().strip() or None,
        )
