"""Asking where to save a file without a nested event loop.

``QFileDialog.getSaveFileName`` runs one, and with it qasync's asyncio, re-entered from inside
whatever called it; the dialog is opened instead and answers by signal.

The name proposed comes from the wire (a room's, a peer's file's): it is made a bare file name,
and the dialog opens in the folder the human chose last in this window, else Downloads
(``app/file_names.py``), never the working directory.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QWidget

from parler_desktop.app.file_names import bare_file_name, save_folder

LAST_FOLDER = "lastSaveFolder"  # the window's property: the folder the human chose last


def ask_save_path(parent: QWidget, title: str, name: str, chosen: Callable[[Path], None]) -> QFileDialog:
    """Open a "save as" dialog proposing ``name`` (made bare); ``chosen`` gets the path if one is picked."""
    window = parent.window()
    while window.parentWidget() is not None:  # (a dialog's window is the dialog: the main window remembers)
        window = window.parentWidget().window()
    last = window.property(LAST_FOLDER)
    dialog = QFileDialog(parent, title, str(save_folder(Path(last) if last else None)))
    dialog.setObjectName("saveAs")
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.selectFile(bare_file_name(name))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def selected(target: str) -> None:
        window.setProperty(LAST_FOLDER, str(Path(target).parent))
        chosen(Path(target))

    dialog.fileSelected.connect(selected)
    dialog.open()
    return dialog
