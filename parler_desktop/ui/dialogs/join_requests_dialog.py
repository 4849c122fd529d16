"""Hub → Join requests…: who asked to join the open room through an invite that needs approval,
and Approve / Deny for each (protocol.md §7.9, §7.10; only the room's owner may answer).

The hub pushes nothing about requests, so the list is read when the dialog opens, every few
seconds while it is open, and after each answer. The requester is not told either: it learns
the outcome when it redeems the code again (the window does that while it waits, room_actions).
Names come off the wire and are shown as app/display_text.py shows them (readable, bounded).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.wording import sentence
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.protocol.values import JoinRequest

FAILURES = (HubRefused, ConnectionLost, BadReply, SessionClosed)
AGENT_ID = Qt.ItemDataRole.UserRole


def request_line(request: JoinRequest) -> str:
    role = f" ({display_text(request.role)})" if request.role else ""
    return f"{display_text(request.name) or request.agent[:8]}{role} — {display_text(request.agent)}"


class JoinRequestsDialog(QDialog):
    REFRESH_MS = 3000

    def __init__(self, bridge: SessionBridge, room: str, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("joinRequestsDialog")
        self.setWindowTitle(f"Join requests for {label}")
        self._bridge = bridge
        self._session = bridge.session  # the requests of this hub's room: closed if another is attached
        self.room = room
        self.label = label
        self.status = QLabel(f"Reading who asked to join {label}…", objectName="joinRequestsStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.list = QListWidget(objectName="joinRequestList", accessibleName="Agents asking to join")
        self.approve_button = QPushButton("Approve", objectName="approveJoin")
        self.deny_button = QPushButton("Deny", objectName="denyJoin")
        for button in (self.approve_button, self.deny_button):
            button.setAutoDefault(False)
            button.setEnabled(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.approve_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.deny_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.list)
        layout.addWidget(buttons)
        self.requests: tuple[JoinRequest, ...] | None = None  # None until the hub has answered once
        self.last_answer: str | None = None  # what became of the last request answered here
        self._reading = False
        self._answering = False
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.approve_button.clicked.connect(lambda: self._answer(True))
        self.deny_button.clicked.connect(lambda: self._answer(False))
        self._timer = QTimer(self, interval=self.REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        self.finished.connect(self._timer.stop)

    def open(self) -> None:
        super().open()
        self.refresh()
        self._timer.start()

    def refresh(self) -> None:
        if self._bridge.session is not self._session:
            self.reject()
        elif not self._reading and not self._answering:
            self._reading = True
            self._bridge.tasks.spawn("join requests", self._read())

    async def _read(self) -> None:
        try:
            requests = await self._bridge.join_requests(self.room)
        except FAILURES as error:
            if shiboken6.isValid(self):
                self._reading = False
                self._say(sentence(getattr(error, "message", None) or str(error)))
            return
        if not shiboken6.isValid(self):
            return
        self._reading = False
        self._show(requests)

    def _say(self, text: str) -> None:
        self.status.setText(f"{self.last_answer}\n{text}" if self.last_answer else text)

    def _show(self, requests: tuple[JoinRequest, ...]) -> None:
        if requests != self.requests:  # else the list (and what is selected in it) stays as it is
            chosen = self.selected_agent()
            self.requests = requests
            self.list.clear()
            for request in requests:
                item = QListWidgetItem(request_line(request))
                item.setData(AGENT_ID, request.agent)
                self.list.addItem(item)
                if request.agent == chosen:
                    item.setSelected(True)
        self._say(f"{len(requests)} waiting to join {self.label}:" if requests else f"Nobody is waiting to join {self.label}.")
        self._update_buttons()

    @property
    def answering(self) -> bool:
        """An Approve or Deny is on its way to the hub."""
        return self._answering

    def selected_agent(self) -> str | None:
        items = self.list.selectedItems()
        return items[0].data(AGENT_ID) if items else None

    def _update_buttons(self) -> None:
        chosen = self.selected_agent() is not None and not self._answering
        self.approve_button.setEnabled(chosen)
        self.deny_button.setEnabled(chosen)

    def _answer(self, approve: bool) -> None:
        agent = self.selected_agent()
        if agent is None or self._answering:
            return
        self._answering = True
        self._update_buttons()
        self._bridge.tasks.spawn("approve join" if approve else "deny join", self._resolve(agent, approve))

    async def _resolve(self, agent: str, approve: bool) -> None:
        name = next((display_text(r.name) for r in self.requests or () if r.agent == agent), display_text(agent))
        try:
            resolved = await self._bridge.resolve_join(self.room, agent, approve)
        except FAILURES as error:
            said = f"Could not answer {name}: {sentence(getattr(error, 'message', None) or str(error))}"
        else:
            said = f"{name} is now a member of {self.label}." if resolved.approved else f"{name} was turned away."
            if resolved.approved:
                self._bridge.tasks.spawn("roster", self._bridge.refresh_roster(self.room))  # the members list, at once
        if not shiboken6.isValid(self):
            return
        self.last_answer = said
        self._answering = False
        self._reading = True
        await self._read()
