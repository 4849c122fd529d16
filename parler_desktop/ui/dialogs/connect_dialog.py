"""Connect to another hub: its address (empty = the embedded local hub), a join secret, a name, and
for a ``wss://`` hub with a private certificate authority the CA file to trust for it."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QWidget

from parler_desktop.client.address import normalize_hub_url
from parler_desktop.client.tls import check_ca_file
from parler_desktop.settings import default_display_name


@dataclass(frozen=True)
class ConnectChoice:
    hub_url: str  # "" = the embedded hub
    join_secret: str | None  # None = keep what is configured
    display_name: str
    ca_file: str = ""  # "" = trust the system's certificate authorities


class ConnectDialog(QDialog):
    def __init__(self, hub_url: str, display_name: str, parent: QWidget | None = None, ca_file: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect to a Parler hub")
        self.setObjectName("connectDialog")
        self.setMinimumWidth(520)  # room for a full wss:// address
        self.url = QLineEdit(hub_url, placeholderText="empty: the local hub on this computer", objectName="hubUrl")
        self.secret = QLineEdit(placeholderText="only if the hub asks for one", objectName="joinSecret")
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.name = QLineEdit(display_name or default_display_name(), objectName="displayName")
        self.name.setPlaceholderText("the name the agents see")
        self.ca_file = QLineEdit(
            ca_file, placeholderText="wss:// hubs with a private CA: its PEM file", objectName="caFile"
        )
        self.problem = QLabel(objectName="connectProblem", textFormat=Qt.TextFormat.PlainText)
        self.problem.setStyleSheet("color: #b71c1c;")
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Connect")
        buttons.accepted.connect(self._accept_if_valid)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Hub address", self.url)
        form.addRow("Join secret", self.secret)
        form.addRow("Your name", self.name)
        form.addRow("Trust CA file", self.ca_file)
        form.addRow(self.problem)
        form.addRow(buttons)

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
        self.accept()

    def _complain(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()

    def choice(self) -> ConnectChoice:
        url = self.url.text().strip()
        return ConnectChoice(
            hub_url=normalize_hub_url(url) if url else "",
            join_secret=self.secret.text() or None,
            display_name=self.name.text().strip(),
            ca_file=self.ca_file.text().strip(),
        )
