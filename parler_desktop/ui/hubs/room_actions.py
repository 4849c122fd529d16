"""Hub menu actions for rooms: create one, invite agents to the shown room (with or without the
owner's approval), answer join requests, join with a code.

On a fresh embedded hub there is nothing to see until a room exists and agents have a code to
join it, so these are the first things a supervisor does. Every dialog is opened with
``open()`` and answers through signals: none runs a nested event loop, so none can block the
tasks of the asyncio loop the window shares. Failures are shown as sentences with the error icon.

A code that needs approval answers "pending", and the hub never tells the requester the outcome
(protocol.md §7.9, §7.10): while the window waits it redeems the code again every few seconds
(a pending request answers "pending" again and uses nothing), and opens the room once it is in,
or says that the owner turned it away.
"""

from __future__ import annotations

import asyncio

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.wording import sentence
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.frames import Invited, Joined
from parler_desktop.protocol.values import sanitize_name
from parler_desktop.ui.dialogs.join_requests_dialog import JoinRequestsDialog

FAILURES = (HubRefused, ConnectionLost, BadReply, SessionClosed, ValueError)
NEW_ROOM_HINT = "Room name (letters, digits, - and _):"
APPROVAL_POLL_SECS = 3.0  # while waiting for an owner's approval: how often the code is redeemed again
APPROVAL_WAIT_SECS = 3600.0  # then the window stops asking (the room still shows once listed)


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
        self.approval_poll_secs = APPROVAL_POLL_SECS
        self.approval_wait_secs = APPROVAL_WAIT_SECS
        self.requests_dialog: JoinRequestsDialog | None = None
        self._awaiting: set[str] = set()  # rooms whose owner's approval the window waits for now

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

    def invite_to(self, room: str | None, require_approval: bool = False) -> None:
        if room is not None:
            self._bridge.tasks.spawn("invite", self.invite_agents(room, require_approval))

    def join_requests(self, room: str | None, label: str | None = None) -> JoinRequestsDialog | None:
        """Open the join requests of ``room`` (one such dialog at a time)."""
        if room is None:
            return None
        if self.requests_dialog is not None and shiboken6.isValid(self.requests_dialog):
            self.requests_dialog.close()
            self.requests_dialog.deleteLater()
        dialog = JoinRequestsDialog(self._bridge, room, label or room, self._window)
        dialog.open()
        self.requests_dialog = dialog
        return dialog

    def join_with_code(self) -> QInputDialog:
        dialog = self._ask("Join a room", "Invite code, link or the line parler printed:", lambda code: self._bridge.tasks.spawn("join", self.join(code)))
        dialog.setObjectName("joinDialog")
        return dialog

    async def invite_agents(self, room: str, require_approval: bool = False) -> Invited | None:
        """Mint a code for ``room`` (a new room is created) and show it; None when that failed."""
        try:
            invited = await self._bridge.invite("channel", room, require_approval=require_approval)
        except FAILURES as error:
            self._tell("Could not create the invite", sentence(getattr(error, "message", None) or str(error)), error=True)
            return None
        self.roomReady.emit(invited.room)
        self._show_invite(invited, require_approval)
        return invited

    async def join(self, code: str) -> None:
        try:
            joined = await self._bridge.redeem(code)
        except FAILURES as error:
            self._tell("Could not join", sentence(getattr(error, "message", None) or str(error)), error=True)
            return
        if isinstance(joined, Joined):
            self.roomReady.emit(joined.room)
            self._tell("Joined", f"You are now a member of {display_text(joined.room)}.")
        else:
            waiting = self._tell(
                "Waiting for approval",
                f"The owner of {display_text(joined.room)} has to approve you first. The room opens here once they do.",
            )
            if joined.room not in self._awaiting:  # asked twice: one wait is enough
                self._awaiting.add(joined.room)
                try:
                    await self._await_approval(code, joined.room, waiting)
                finally:
                    self._awaiting.discard(joined.room)

    async def _await_approval(self, code: str, room: str, waiting: QMessageBox) -> None:
        """Redeem ``code`` again until the owner has answered: then open the room, or say no."""
        session = self._bridge.session
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.approval_wait_secs
        while loop.time() < give_up:
            await asyncio.sleep(self.approval_poll_secs)
            if self._bridge.session is not session:
                return  # another hub or identity now: the code is not ours to redeem there
            try:
                joined = await self._bridge.redeem(code)
            except (ConnectionLost, BadReply):
                continue  # offline for a while: ask again once back
            except HubRefused as error:
                if error.is_transient:
                    continue
                self._close(waiting)
                self._tell(f"Not admitted to {display_text(room)}", sentence(error.message), error=True)
                return
            except (SessionClosed, ValueError):
                return
            if isinstance(joined, Joined):
                self._close(waiting)
                self.roomReady.emit(joined.room)
                self._tell("Joined", f"The owner approved you: you are now a member of {display_text(joined.room)}.")
                return

    @staticmethod
    def _close(box: QMessageBox) -> None:
        if shiboken6.isValid(box):
            box.close()

    def _show_invite(self, invited: Invited, require_approval: bool = False) -> None:
        QGuiApplication.clipboard().setText(invited.code)
        hub = self._bridge.hub_url
        box = QMessageBox(QMessageBox.Icon.Information, f"Invite to {display_text(invited.room)}", "", parent=self._window)
        box.setObjectName("inviteBox")
        box.setTextFormat(Qt.TextFormat.PlainText)
        code, url = display_text(invited.code, NOTICE_CHARS), display_text(invited.url, NOTICE_CHARS)  # the hub's words
        box.setText(
            f"Agents join {display_text(invited.room)} with this code (copied to the clipboard):\n\n{code}\n\n"
            f"An agent on this computer runs:\n\nparler-desktop join --hub {hub} {code}\n\n"
            f"or redeems the link:\n{url}"
            + (
                "\n\nEach agent that redeems it asks to join: approve or deny it under Hub → Join requests…"
                if require_approval else ""
            )
        )
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _tell(self, title: str, text: str, error: bool = False) -> QMessageBox:
        """A window-modal sentence, opened without a nested loop; plain text (it may quote the hub)."""
        icon = QMessageBox.Icon.Critical if error else QMessageBox.Icon.Information
        box = QMessageBox(icon, title, text, parent=self._window)
        box.setObjectName("roomActionMessage")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return box
