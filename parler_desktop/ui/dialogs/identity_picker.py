"""Which identity the window uses on a hub, as the Connect and Add a hub dialogs ask it: the home's
(the default, shown by its agent id), one of the hub's own (made beside the home's key the first
time, found again when the hub is added again), or a key file the human already has (one an agent
tool made, say), checked before it is taken.

The local hub on this computer always uses the home's identity: a command reaching it by its
port would not know it is that hub, and would post as someone else.
"""

from __future__ import annotations

import asyncio
import enum
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from parler_desktop.identity import KeyFileError, load_identity, load_or_create_identity
from parler_desktop.paths import Home


class HubIdentity(enum.Enum):
    HOME = "This home's identity"
    OWN = "An identity of its own for this hub"
    FILE = "A key file…"


def key_file_problem(error: KeyFileError) -> str:
    """A chosen key file's problem as one sentence (never its content)."""
    return f"Cannot use that key file: it {error.problem}."


class IdentityPicker(QWidget):
    def __init__(self, home: Home, hub_url: str, key_file: str | None, parent: QWidget | None = None) -> None:
        """``key_file``: the one the settings chose for ``hub_url`` (None: the home's)."""
        super().__init__(parent)
        self._home = home
        self.kind = QComboBox(objectName="hubIdentity")
        for kind in HubIdentity:
            self.kind.addItem(kind.value, kind)
        self.key_file = QLineEdit(objectName="keyFile", placeholderText="the key file's full path")
        self.browse = QPushButton("Browse…", objectName="browseKeyFile")
        self.browse.clicked.connect(self._browse)
        self._file_row = QWidget()
        row = QHBoxLayout(self._file_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.key_file)
        row.addWidget(self.browse)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.kind)
        column.addWidget(self._file_row)
        self.kind.currentIndexChanged.connect(lambda: self._file_row.setVisible(self.chosen is HubIdentity.FILE))
        if key_file is not None and key_file == str(home.hub_key_file(hub_url)):
            self.kind.setCurrentIndex(self.kind.findData(HubIdentity.OWN))
        elif key_file is not None:
            self.kind.setCurrentIndex(self.kind.findData(HubIdentity.FILE))
            self.key_file.setText(key_file)
        self._file_row.setVisible(self.chosen is HubIdentity.FILE)
        self.follow_address(hub_url)

    @property
    def chosen(self) -> HubIdentity:
        return self.kind.currentData()

    def follow_address(self, text: str) -> None:
        """Only a hub with an address may use another identity than the home's."""
        addressed = bool(text.strip())
        if not addressed:
            self.kind.setCurrentIndex(self.kind.findData(HubIdentity.HOME))
        self.kind.setEnabled(addressed)
        self.kind.setToolTip("" if addressed else "The local hub on this computer always uses this home's identity.")

    async def describe_home(self) -> None:
        """Name the home's identity by its agent id (read, or made, off the UI thread)."""
        try:
            agent_id = (await asyncio.to_thread(load_or_create_identity, self._home.key_file)).agent_id
            text = f"{HubIdentity.HOME.value} ({agent_id[:8]}…)"
        except KeyFileError as error:
            text = f"{HubIdentity.HOME.value} (unusable: it {error.problem})"
        if shiboken6.isValid(self):
            self.kind.setItemText(self.kind.findData(HubIdentity.HOME), text)

    def chosen_file(self) -> Path | str:
        """The key file typed, as a path to check, or the sentence saying what is missing."""
        text = self.key_file.text().strip()
        if not text:
            return "Choose the key file to use on this hub."
        path = Path(text).expanduser()
        return path if path.is_absolute() else "Give the key file's full path (or pick it with Browse…)."

    @staticmethod
    async def check(path: Path) -> str | None:
        """Why the key file at ``path`` cannot be used (read off the UI thread), or None."""
        try:
            await asyncio.to_thread(load_identity, path)
        except KeyFileError as error:
            return key_file_problem(error)
        return None

    def _browse(self) -> QFileDialog:
        dialog = QFileDialog(self, "Choose a key file", self.key_file.text().strip() or str(Path.home()))
        dialog.setObjectName("chooseKeyFile")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.key_file.setText)
        dialog.open()
        return dialog
