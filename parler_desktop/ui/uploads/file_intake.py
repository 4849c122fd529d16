"""Files dropped on or pasted into the composer become uploads, not text: an event filter on
the text box (drops arrive at its viewport, keys at the box). Only local files count; a drop or
paste of anything else is the text box's as before. A pasted picture with no file behind it (a
screenshot) goes to ``take_image``, which writes it somewhere first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QPlainTextEdit


def local_files(mime: QMimeData | None) -> list[str]:
    """The local files (not folders) that ``mime`` carries as URLs."""
    if mime is None or not mime.hasUrls():
        return []
    paths = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
    return [path for path in paths if Path(path).is_file()]


class FileIntake(QObject):
    """Calls ``take(paths)`` with the files dropped on or pasted into ``edit``."""

    def __init__(self, edit: QPlainTextEdit, take: Callable[[list[str]], None], take_image: Callable[[QImage], None]) -> None:
        super().__init__(edit)
        self._take = take
        self._take_image = take_image
        edit.installEventFilter(self)
        edit.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDragEnterEvent | QDropEvent):
            if local_files(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            files = local_files(event.mimeData())
            if files:
                event.acceptProposedAction()
                self._take(files)
                return True
        elif kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and event.matches(QKeySequence.StandardKey.Paste):
            return self.paste(QGuiApplication.clipboard().mimeData())
        return False

    def paste(self, mime: QMimeData | None) -> bool:
        """Take the files (or the picture) ``mime`` holds; False when it holds neither."""
        files = local_files(mime)
        if files:
            self._take(files)
            return True
        if mime is not None and mime.hasImage() and not mime.hasText():
            image = QImage(mime.imageData())
            if not image.isNull():
                self._take_image(image)
                return True
        return False
