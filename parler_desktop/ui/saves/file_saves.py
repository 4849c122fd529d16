"""Save… on a shared file's card: a dialog (opened with open()) proposing the file's name made
bare, in Downloads or the folder chosen last (``ui/dialogs/save_as.py``), then the file streamed
there with its progress and Cancel in the strip above the composer (``app/saves/``)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.saves.file_saves_model import FileSavesModel
from parler_desktop.app.timeline.cards import Card
from parler_desktop.ui.dialogs.save_as import ask_save_path
from parler_desktop.ui.transfer_strip import TransferStrip


class FileSaves(QObject):
    statusMessage = Signal(str)

    def __init__(self, bridge: SessionBridge, parent: QWidget) -> None:
        """``strip`` goes above the composer."""
        super().__init__(parent)
        self._window = parent
        self.model = FileSavesModel(bridge, self)
        self.model.saved.connect(self.statusMessage)
        self.strip = TransferStrip(self.model, "save", "Files being saved")

    def ask(self, card: Card) -> QFileDialog | None:
        """Ask where to save the card's file, then save it there."""
        if card.blob_id is None:
            return None
        blob_id, size = card.blob_id, card.file_size
        return ask_save_path(self._window, "Save file", card.file_name, lambda target: self.model.save(blob_id, size, target))
