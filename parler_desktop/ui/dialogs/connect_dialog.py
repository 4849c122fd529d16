"""Connect to another hub: its address (empty = the embedded local hub), a join secret, a name, for
a ``wss://`` hub with a private certificate authority the CA file to trust for it, and which
identity the window uses there (``identity_picker.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QWidget

from parler_desktop.client.address import normalize_hub_url
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.client.tls import check_ca_file
from parler_desktop.paths import Home
from parler_desktop.settings import default_display_name
from parler_desktop.ui.dialogs.identity_picker import HubIdentity, IdentityPicker
from parler_desktop.ui.appearance.theme import follow_style


@dataclass(frozen=True)
class ConnectChoice:
    hub_url: str  # "" = the embedded hub
    join_secret: str | None  # None = keep what is configured
    display_name: str
    ca_file: str = ""  # "" = trust the system's certificate authorities
    identity: HubIdentity | None = None  # None = as the settings chose for the hub
    key_file: str = ""  # with HubIdentity.FILE: the key file, checked

    def key_file_for(self, home: Home) -> Path | None:
        """The key file this choice uses on its hub (None: the home's own identity)."""
        if self.identity is HubIdentity.OWN:
            return home.hub_key_file(self.hub_url)
        return Path(self.key_file) if self.identity is HubIdentity.FILE else None


class ConnectDialog(QDialog):
    def __init__(
        self, hub_url: str, display_name: str, parent: QWidget | None = None, ca_file: str = "", *,
        home: Home, tasks: TaskSupervisor, key_file: str | None = None,
    ) -> None:
        """``key_file``: the one the settings chose for ``hub_url`` (None: the home's identity);
        ``tasks`` runs what reads files (off the UI thread)."""
        super().__init__(parent)
        self.setWindowTitle("Connect to a Parler hub")
        self.setObjectName("connectDialog")
        self.setMinimumWidth(520)  # room for a full wss:// address
        self._tasks = tasks
        self._checked_key_file = ""
        self.url = QLineEdit(hub_url, placeholderText="empty: the local hub on this computer", objectName="hubUrl")
        self.secret = QLineEdit(placeholderText="only if the hub asks for one", objectName="joinSecret")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.name = QLineEdit(display_name or default_display_name(), objectName="displayName")
        self.name.setPlaceholderText("the name the agents see")
        self.ca_file = QLineEdit(
            ca_file, placeholderText="wss:// hubs with a private CA: its PEM file", objectName="caFile"
        )
        self.identity = IdentityPicker(home, hub_url, key_file)
        self.url.textChanged.connect(self.identity.follow_address)
        self.problem = QLabel(objectName="connectProblem", textFormat=Qt.TextFormat.PlainText)
        follow_style(self.problem, lambda colours: f"color: {colours.failed};")
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self._ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self._ok.setText("Connect")
        buttons.accepted.connect(self._accept_if_valid)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Hub address", self.url)
        form.addRow("Join secret", self.secret)
        form.addRow("Your name", self.name)
        form.addRow("Trust CA file", self.ca_file)
        form.addRow("Your identity", self.identity)
        form.addRow(self.problem)
        form.addRow(buttons)

    def open(self) -> None:
        super().open()
        self._tasks.spawn("home identity", self.identity.describe_home())

    def _accept_if_valid(self) -> None:
        if not self.name.text().strip():
            self._complain("Enter the name the agents will see.")
            return
        if self.url.text().strip():
            try:
                normalize_hub_url(self.url.text())
            except ValueError as error:
                self._complain(str(error))
                return
        if self.ca_file.text().strip():
            try:
                check_ca_file(self.ca_file.text().strip())
            except ValueError as error:
                self._complain(f"Cannot trust that CA file: {error}.")
                return
        if self.url.text().strip() and self.identity.chosen is HubIdentity.FILE:
            path = self.identity.chosen_file()
            if isinstance(path, str):
                self._complain(path)
                return
            self._ok.setEnabled(False)  # until the file is read
            self._tasks.spawn("key file check", self._accept_key_file(path))
            return
        self.accept()

    async def _accept_key_file(self, path: Path) -> None:
        problem = await IdentityPicker.check(path)
        if not shiboken6.isValid(self) or not self.isVisible():  # closed meanwhile: not taken
            return
        self._ok.setEnabled(True)
        if problem is not None:
            self._complain(problem)
            return
        self._checked_key_file = str(path)
        self.accept()

    def _complain(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()

    def choice(self) -> ConnectChoice:
        url = self.url.text().strip()
        identity = self.identity.chosen if url else None
        return ConnectChoice(
            hub_url=normalize_hub_url(url) if url else "",
            join_secret=self.secret.text() or None,
            display_name=self.name.text().strip(),
            ca_file=self.ca_file.text().strip(),
            identity=identity,
            key_file=self._checked_key_file if identity is HubIdentity.FILE else "",
        )
