"""The Connect dialog: an address (empty = the local hub), an optional join secret, a name, a CA file."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox

from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.paths import Home
from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog
from support.private_ca import make_private_ca


def dialog_for(tmp_path, hub_url: str, **options) -> ConnectDialog:
    return ConnectDialog(hub_url, "boss", home=Home.resolve(tmp_path / "home"), tasks=TaskSupervisor("test"), **options)


def accept(dialog: ConnectDialog) -> None:
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def test_a_remote_hub_is_normalized_and_the_secret_kept(qtbot, tmp_path):
    dialog = dialog_for(tmp_path, "")
    qtbot.addWidget(dialog)
    dialog.url.setText("  hub.example.org:7070 ")
    dialog.secret.setText("s3cret")
    accept(dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    choice = dialog.choice()
    assert choice.hub_url == "ws://hub.example.org:7070/ws" and choice.join_secret == "s3cret" and choice.display_name == "boss"


def test_an_empty_address_means_the_local_hub_and_no_new_secret(qtbot, tmp_path):
    dialog = dialog_for(tmp_path, "ws://old:1/ws")
    qtbot.addWidget(dialog)
    dialog.url.clear()
    accept(dialog)
    assert dialog.choice().hub_url == "" and dialog.choice().join_secret is None


def test_a_missing_name_is_explained_and_keeps_the_dialog_open(qtbot, tmp_path):
    dialog = dialog_for(tmp_path, "")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.setText("  ")
    accept(dialog)
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.problem.isVisible() and "name" in dialog.problem.text()


def test_a_ca_file_to_trust_is_checked_and_kept(qtbot, tmp_path):
    ca = make_private_ca(tmp_path)
    dialog = dialog_for(tmp_path, "", ca_file="")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.url, "wss://localhost:8443")
    qtbot.keyClicks(dialog.ca_file, str(tmp_path / "nope.pem"))
    accept(dialog)
    assert dialog.result() != QDialog.DialogCode.Accepted
    assert dialog.problem.isVisible() and "nope.pem" in dialog.problem.text()
    dialog.ca_file.clear()
    qtbot.keyClicks(dialog.ca_file, str(ca.ca_file))
    accept(dialog)
    assert dialog.result() == QDialog.DialogCode.Accepted
    assert dialog.choice().ca_file == str(ca.ca_file) and dialog.choice().hub_url == "wss://localhost:8443/ws"
