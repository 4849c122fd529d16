"""Dispatch to role…: the role that should do the work and what the work is (protocol.md §8.6)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QPlainTextEdit, QWidget

ELSEWHERE = "From this room the work goes to the role's own service room (svc.<role>): you join it, and it opens."


class DispatchDialog(QDialog):
    def __init__(self, role: str, parent: QWidget | None = None, *, in_service_room: bool = True) -> None:
        """``role``: the one proposed (the service the room is for); ``in_service_room`` False: the
        work goes to the role's service, which the dialog says."""
        super().__init__(parent)
        self.setWindowTitle("Dispatch to role")
        self.setObjectName("dispatchDialog")
        self.role = QLineEdit(role, objectName="dispatchRole", placeholderText="the role that should do it")
        self.task = QPlainTextEdit(objectName="dispatchTask")
        self.task.setPlaceholderText("What should be done? (required)")
        self.task.setFixedHeight(100)
        self.task.setTabChangesFocus(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Dispatch")
        buttons.accepted.connect(self._accept_if_complete)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        if not in_service_room:
            where = QLabel(ELSEWHERE, objectName="dispatchWhere")
            where.setTextFormat(Qt.TextFormat.PlainText)
            where.setWordWrap(True)
            form.addRow(where)
        form.addRow("&Role", self.role)
        form.addRow("&Task", self.task)
        form.addRow(buttons)
        self.task.setFocus()

    def _accept_if_complete(self) -> None:
        for field, text in ((self.role, self.role.text()), (self.task, self.task.toPlainText())):
            if not text.strip():
                field.setFocus()
                return
        self.accept()
