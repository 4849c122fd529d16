"""Export a room: choose Markdown or NDJSON and, optionally, a seq range, then a file; a
progress dialog (which can cancel) follows the export while the window stays usable."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QProgressDialog,
    QSpinBox,
    QWidget,
)

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.timeline.room_export import ExportFormat, export_room
from parler_desktop.store import StoreError
from parler_desktop.ui.dialogs.save_as import ask_save_path

SEQ_MAX = 2**31 - 1


class ExportDialog(QDialog):
    def __init__(self, bridge: SessionBridge, room: str, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Export {label}")
        self.setObjectName("exportDialog")
        self._bridge = bridge
        self.room = room
        self.format = QComboBox(objectName="exportFormat")
        for form in ExportFormat:
            self.format.addItem(form.value, form)
        self.first = QSpinBox(objectName="exportFirst", minimum=1, maximum=SEQ_MAX)
        self.last = QSpinBox(objectName="exportLast", minimum=0, maximum=SEQ_MAX, specialValueText="the newest")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Format", self.format)
        form.addRow("From message #", self.first)
        form.addRow("To message #", self.last)
        form.addRow(buttons)
        self.progress: QProgressDialog | None = None
        self.task: asyncio.Task | None = None
        self.path: Path | None = None
        self.save_as: QFileDialog | None = None

    def accept(self) -> None:
        """Save: ask where, then export there (Cancel in the file dialog keeps this one open)."""
        form: ExportFormat = self.format.currentData()
        self.save_as = ask_save_path(self, "Export to", f"{self.room}{form.suffix}", self._chosen)

    def _chosen(self, path: Path) -> None:
        self.start(path)
        super().accept()

    def start(self, path: Path) -> None:
        """Export to ``path`` in the background with a progress dialog."""
        self.path = path
        progress = QProgressDialog("", "Cancel", 0, 0, self.parentWidget())
        progress.setLabel(QLabel(f"Exporting {display_text(self.room)}…", textFormat=Qt.TextFormat.PlainText))  # a hub's name
        progress.setObjectName("exportProgress")
        progress.setMinimumDuration(0)
        progress.show()
        self.progress = progress
        last = self.last.value() or None
        self.task = self._bridge.tasks.spawn(
            "export", self._run(path, self.format.currentData(), self.first.value(), last, progress)
        )
        progress.canceled.connect(self.task.cancel)

    async def _run(
        self, path: Path, form: ExportFormat, first: int, last: int | None, progress: QProgressDialog
    ) -> None:
        def advance(done: int, total: int) -> None:
            progress.setMaximum(max(total, 1))
            progress.setValue(done)

        status = self.parentWidget().statusBar() if self.parentWidget() is not None else None
        try:
            count = await export_room(self._bridge.store, self.room, path, form, first, last, advance)
        except (OSError, StoreError) as error:
            message = f"Export of {display_text(self.room)} failed: {error}"
        else:
            message = f"Exported {count:,} messages of {display_text(self.room)} to {path}"
        finally:
            progress.reset()
            progress.hide()
        if status is not None:
            status.showMessage(message, 15_000)
