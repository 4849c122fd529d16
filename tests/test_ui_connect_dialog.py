"""The Connect dialog: an address (empty = the local hub), an optional join secret, a name, a CA file."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox

from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.paths import Home
from parler_desktop.ui.dialogs.connect_dialog import ConnectDialog
from parler_desktop.ui.dialogs.identity_picker import HubIdentity
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


def test_the_identity_shown_is_the_one_the_hub_uses_and_the_local_hub_always_uses_the_home_s(qtbot, tmp_path):
    home = Home.resolve(tmp_path / "home")
    own = dialog_for(tmp_path, "ws://a:1/ws", key_file=str(home.hub_key_file("ws://a:1/ws")))
    qtbot.addWidget(own)
    assert own.identity.chosen is HubIdentity.OWN
    assert own.choice().key_file_for(home) == home.hub_key_file("ws://a:1/ws")
    tool = dialog_for(tmp_path, "ws://a:1/ws", key_file="/keys/tool.json")
    qtbot.addWidget(tool)
    assert tool.identity.chosen is HubIdentity.FILE and tool.identity.key_file.text() == "/keys/tool.json"
    tool.url.clear()
    assert not tool.identity.kind.isEnabled() and tool.identity.chosen is HubIdentity.HOME
    assert tool.choice().identity is None and tool.choice().key_file_for(home) is None
    home_s = dialog_for(tmp_path, "ws://a:1/ws")
    qtbot.addWidget(home_s)
    assert home_s.identity.chosen is HubIdentity.HOME and home_s.choice().key_file_for(home) is None


def test_a_key_file_needs_its_whole_path(qtbot, tmp_path):
    dialog = dialog_for(tmp_path, "ws://a:1/ws", key_file="")  # the settings named no usable file
    qtbot.addWidget(dialog)
    dialog.show()
    accept(dialog)
    assert dialog.isVisible() and dialog.problem.text() == "Choose the key file to use on this hub."
    qtbot.keyClicks(dialog.identity.key_file, "keys/tool.json")
    accept(dialog)
    assert dialog.isVisible() and "full path" in dialog.problem.text()
