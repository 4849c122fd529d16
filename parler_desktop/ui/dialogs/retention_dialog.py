"""Keep messages…: how much of a hub's history this computer keeps (store/retention.py). Older read
messages are pruned in the background; the hub keeps them, and scrolling back reads them from it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from parler_desktop.store.retention import RetentionPolicy

EXPLAINED = (
    "Older messages you have read are removed from this computer in the background; the hub keeps "
    "them, and scrolling back reads them from it. Unread messages and what you wrote are always kept."
)
MEGABYTE = 1024**2


class RetentionDialog(QDialog):
    chosen = Signal(object)  # the RetentionPolicy, when OK is pressed

    def __init__(self, hub_label: str, policy: RetentionPolicy, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="retentionDialog")
        self.setWindowTitle("Keep messages")
        heading = QLabel(f"What this computer keeps of {hub_label}:")
        heading.setTextFormat(Qt.TextFormat.PlainText)  # (a hub's address: never rich text)
        self.everything = QCheckBox("Keep everything", objectName="keepEverything")
        self.by_age = QCheckBox("Only the newest", objectName="keepByAge")
        self.days = QSpinBox(objectName="keepDays", minimum=1, maximum=36_500, suffix=" days")
        self.by_size = QCheckBox("At most", objectName="keepBySize")
        self.megabytes = QSpinBox(objectName="keepMegabytes", minimum=50, maximum=1_000_000, singleStep=100, suffix=" MB")
        default = RetentionPolicy()
        self.everything.setChecked(policy.keeps_everything)
        self.by_age.setChecked(policy.days is not None)
        self.days.setValue(policy.days or default.days or 90)
        self.by_size.setChecked(policy.max_bytes is not None)
        self.megabytes.setValue((policy.max_bytes or default.max_bytes or 0) // MEGABYTE)
        form = QFormLayout()
        form.addRow(self.by_age, self.days)
        form.addRow(self.by_size, self.megabytes)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(QLabel(EXPLAINED, wordWrap=True))
        layout.addWidget(self.everything)
        layout.addLayout(form)
        layout.addWidget(buttons)
        for box in (self.everything, self.by_age, self.by_size):
            box.toggled.connect(self._enable)
        self._enable()
        self.accepted.connect(lambda: self.chosen.emit(self.policy()))

    def _enable(self) -> None:
        bounded = not self.everything.isChecked()
        for widget in (self.by_age, self.by_size):
            widget.setEnabled(bounded)
        self.days.setEnabled(bounded and self.by_age.isChecked())
        self.megabytes.setEnabled(bounded and self.by_size.isChecked())

    def policy(self) -> RetentionPolicy:
        """The policy the dialog shows (no bound ticked is keeping everything)."""
        if self.everything.isChecked():
            return RetentionPolicy(None, None)
        return RetentionPolicy(
            self.days.value() if self.by_age.isChecked() else None,
            self.megabytes.value() * MEGABYTE if self.by_size.isChecked() else None,
        )
