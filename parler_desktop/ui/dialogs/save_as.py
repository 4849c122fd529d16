"""Asking where to save a file without a nested event loop.

``QFileDialog.getSaveFileName`` runs one, and with it qasync's asyncio, re-entered from inside
whatever called it; the dialog is opened instead and answers by signal.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QWidget


def ask_save_path(parent: QWidget, title: str, name: str, chosen: Callable[[Path], None]) -> QFileDialog:
    """Open a "save as" dialog proposing ``name``; ``chosen`` gets the path if one is picked."""
    dialog = QFileDialog(parent, title, name)
    dialog.setObjectName("saveAs")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.selectFile(name)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.fileSelected.connect(lambda target: chosen(Path(target)))
    dialog.open()
    return dialog
