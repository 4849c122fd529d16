"""Hub menu actions for rooms: create one, invite agents to the shown room, join with a code.

On a fresh embedded hub there is nothing to see until a room exists and agents have a code to
join it, so these are the first things a supervisor does. Failures are shown as sentences.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

from parler_desktop.app.bridge import SessionBridge
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.frames import Invited, Joined

FAILURES = (HubRefused, ConnectionLost, BadReply, SessionClosed, ValueError)


class RoomActions(QObject):
    def __init__(self, bridge: SessionBridge, window: QWidget) -> None:
        super().__init__(window)
        self._bridge = bridge
        self._window = window

    def new_room(self) -> None:
        name, ok = QInputDialog.getText(self._window, "New room", "Room name (letters, digits, - and _):")
        if ok and name.strip():
            self._bridge.tasks.spawn("new room", self.invite_agents(name.strip()))

    def invite_to(self, room: str | None) -> None:
        if room is not None:
            self._bridge.tasks.spawn("invite", self.invite_agents(room))

    def join_with_code(self) -> None:
        code, ok = QInputDialog.getText(self._window, "Join a room", "Invite code or link:", QLineEdit.EchoMode.Normal)
        if ok and code.strip():
            self._bridge.tasks.spawn("join", self._join(code.strip()))

    async def invite_agents(self, room: str) -> Invited | None:
        """Mint a code for ``room`` (a new room is created) and show it; None when that failed."""
        try:
            invited = await self._bridge.invite("channel", room)
        except FAILURES as error:
            self._tell("Could not create the invite", str(error))
            return None
        self._show_invite(invited)
        return invited

    async def _join(self, code: str) -> None:
        try:
            joined = await self._bridge.redeem(code)
        except FAILURES as error:
            self._tell("Could not join", str(error))
            return
        if isinstance(joined, Joined):
            self._tell("Joined", f"You are now a member of {joined.room}.")
        else:
            self._tell("Waiting for approval", f"The owner of {joined.room} has to approve you first.")

    def _show_invite(self, invited: Invited) -> None:
        QGuiApplication.clipboard().setText(invited.code)
        box = QMessageBox(QMessageBox.Icon.Information, f"Invite to {invited.room}", "", parent=self._window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(
            f"Agents join {invited.room} with this code (copied to the clipboard):\n\n{invited.code}\n\n"
            f"or with the link:\n{invited.url}"
        )
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()

    def _tell(self, title: str, text: str) -> None:
        """A modal sentence; plain text, since it may quote the hub."""
        box = QMessageBox(QMessageBox.Icon.Information, title, text, parent=self._window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.exec()
