"""Hub menu actions for rooms: create one, invite agents to the shown room, join with a code.

On a fresh embedded hub there is nothing to see until a room exists and agents have a code to
join it, so these are the first things a supervisor does. Every dialog is opened with
``open()`` and answers through signals: none runs a nested event loop, so none can block the
tasks of the asyncio loop the window shares. Failures are shown as sentences with the error icon.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from parler_desktop.app.bridge import SessionBridge
from parler_desktop.app.wording import sentence
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.frames import Invited, Joined
from parler_desktop.protocol.values import sanitize_name

FAILURES = (HubRefused, ConnectionLost, BadReply, SessionClosed, ValueError)
NEW_ROOM_HINT = "Room name (letters, digits, - and _):"


def stored_name_hint(typed: str) -> str:
    """What the New room dialog says under the name: how the hub will store it."""
    if not typed.strip():
        return NEW_ROOM_HINT
    stored = sanitize_name(typed)
    same = stored == typed.strip()
    return f"{NEW_ROOM_HINT}\nIt will be created as “{stored}”." + ("" if same else " (other characters become _)")


class RoomActions(QObject):
    roomReady = Signal(str)  # a room was created or joined: the window opens it once listed

    def __init__(self, bridge: SessionBridge, window: QWidget) -> None:
        super().__init__(window)
        self._bridge = bridge
        self._window = window

    def _ask(self, title: str, label: str, then) -> QInputDialog:  # noqa: ANN001 - a slot taking the text
        dialog = QInputDialog(self._window)
        dialog.setWindowTitle(title)
        dialog.setLabelText(label)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda text: text.strip() and then(text.strip()))
        dialog.open()
        return dialog

    def new_room(self) -> QInputDialog:
        dialog = self._ask("New room", NEW_ROOM_HINT, lambda name: self._bridge.tasks.spawn("new room", self.invite_agents(name)))
        dialog.setObjectName("newRoomDialog")
        dialog.textValueChanged.connect(lambda typed: dialog.setLabelText(stored_name_hint(typed)))
        return dialog

    def invite_to(self, room: str | None) -> None:
        if room is not None:
            self._bridge.tasks.spawn("invite", self.invite_agents(room))

    def join_with_code(self) -> QInputDialog:
        dialog = self._ask("Join a room", "Invite code, link or the line parler printed:", lambda code: self._bridge.tasks.spawn("join", self.join(code)))
        dialog.setObjectName("joinDialog")
        return dialog

    async def invite_agents(self, room: str) -> Invited | None:
        """Mint a code for ``room`` (a new room is created) and show it; None when that failed."""
        try:
            invited = await self._bridge.invite("channel", room)
        except FAILURES as error:
            self._tell("Could not create the invite", sentence(getattr(error, "message", None) or str(error)), error=True)
            return None
        self.roomReady.emit(invited.room)
        self._show_invite(invited)
        return invited

    async def join(self, code: str) -> None:
        try:
            joined = await self._bridge.redeem(code)
        except FAILURES as error:
            self._tell("Could not join", sentence(getattr(error, "message", None) or str(error)), error=True)
            return
        if isinstance(joined, Joined):
            self.roomReady.emit(joined.room)
            self._tell("Joined", f"You are now a member of {joined.room}.")
        else:
            self._tell("Waiting for approval", f"The owner of {joined.room} has to approve you first.")

    def _show_invite(self, invited: Invited) -> None:
        QGuiApplication.clipboard().setText(invited.code)
        hub = self._bridge.hub_url
        box = QMessageBox(QMessageBox.Icon.Information, f"Invite to {invited.room}", "", parent=self._window)
        box.setObjectName("inviteBox")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(
            f"Agents join {invited.room} with this code (copied to the clipboard):\n\n{invited.code}\n\n"
            f"An agent on this computer runs:\n\nparler-desktop join --hub {hub} {invited.code}\n\n"
            f"or redeems the link:\n{invited.url}"
        )
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _tell(self, title: str, text: str, error: bool = False) -> None:
        """A window-modal sentence, opened without a nested loop; plain text (it may quote the hub)."""
        icon = QMessageBox.Icon.Critical if error else QMessageBox.Icon.Information
        box = QMessageBox(icon, title, text, parent=self._window)
        box.setObjectName("roomActionMessage")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
