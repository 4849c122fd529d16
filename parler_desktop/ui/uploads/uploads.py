"""The human sends files (issue 43 item 5): the composer's Attach… button (a file dialog opened
with open()), files dropped on the composer and pasted into it all end in ``send_files``, which
sends them to the room shown (``app/uploads/``: hash, upload with progress and Cancel, post);
the strip above the composer shows them until each is posted."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QModelIndex, QObject, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QWidget

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.app.uploads.uploads_model import UploadsModel
from parler_desktop.ui.composer.composer import Composer
from parler_desktop.ui.uploads.file_intake import FileIntake
from parler_desktop.ui.transfer_strip import TransferStrip


class FileUploads(QObject):
    statusMessage = Signal(str)

    def __init__(self, bridge: SessionBridge, timeline_model: TimelineModel, composer: Composer, parent: QWidget) -> None:
        """``strip`` goes above the composer."""
        super().__init__(parent)
        self._bridge = bridge
        self._timeline = timeline_model
        self._window = parent
        self.model = UploadsModel(bridge, self)
        self.model.posted.connect(self.statusMessage)
        self.strip = TransferStrip(self.model, "upload", "Files being sent")
        self.intake = FileIntake(composer.edit, self.send_files, self.send_image)
        composer.attachRequested.connect(self.choose_files)
        self.model.rowsAboutToBeRemoved.connect(self._forget_pasted)
        self.dialog: QFileDialog | None = None
        self.paste_dir: Path | None = None  # where pasted pictures are written, made at the first

    def choose_files(self) -> QFileDialog | None:
        """Ask which files to send to the room shown (no nested event loop)."""
        if self._timeline.room is None:
            return None
        self.dialog = QFileDialog(self._window, "Send files")
        self.dialog.setObjectName("attachDialog")
        self.dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.dialog.filesSelected.connect(self.send_files)
        self.dialog.open()
        return self.dialog

    def send_files(self, paths: list[str]) -> None:
        """The one way in: the dialog, a drop and a paste all send through here."""
        self.model.send(paths, self._timeline.room)

    def send_image(self, image: QImage) -> None:
        """A pasted picture: written as a PNG (on a worker thread), then sent as a file."""
        self._bridge.tasks.spawn("paste picture", self._send_image(image, self._timeline.room))

    async def _send_image(self, image: QImage, room: str | None) -> None:
        if self.paste_dir is None:
            self.paste_dir = Path(tempfile.mkdtemp(prefix="parler-pasted-"))
        path = self.paste_dir / time.strftime("pasted-%Y%m%d-%H%M%S.png")
        if await asyncio.to_thread(image.save, str(path), "PNG"):
            self.model.send([str(path)], room)
        else:
            self.statusMessage.emit("The pasted picture could not be written to a file, so it was not sent.")

    def _forget_pasted(self, _parent: QModelIndex, first: int, last: int) -> None:
        """A pasted picture's file is ours: gone with its row (sent, cancelled or dismissed)."""
        for row in range(first, last + 1):
            path = self.model.upload(row).path
            if self.paste_dir is not None and path.parent == self.paste_dir:
                with contextlib.suppress(OSError):
                    path.unlink()
