"""An agent's card, opened from its row in the Agents view: its directory card (description, tags,
skills, verified or not), its recent messages in the rooms the human shares with it (read from
the hub's cache, then as they are stored), its task history (accepted → done/failed, with
durations), and the actions: Message, Hand off…, Copy id.

Message opens the DM the human shares with the agent; when the window knows none it asks for a
first message and posts it with a ``dm`` target (protocol.md §7.4), which makes the DM on the hub
when the agent has a directory card, no invite needed. The first message goes through the outbox
as every post does (on disk at Enter, sent once, kept through a hub's or the app's restart): the
card says it is queued, and opens the DM once the hub has it. An agent without a card cannot be
reached so: the card says so in a sentence (and the hub's refusal, should it refuse). Everything
shown is wire text, in plain-text widgets only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from parler_desktop.app.agents.cost_totals import duration_text
from parler_desktop.app.agents.fleet_model import NOTE_CHARS, FleetModel
from parler_desktop.app.display_text import one_line
from parler_desktop.app.agents.fleet_state import AgentRecord, task_runs
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import why_not_posted
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.client.errors import BadReply, ConnectionLost, HubRefused, SessionClosed
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus
from parler_desktop.protocol.parts import SIG_KIND, Handoff
from parler_desktop.protocol.part_text import part_headline
from parler_desktop.protocol.readable import readable
from parler_desktop.protocol.values import DmTarget, StoredMessage
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.ui.agents.agents_view import plain_label
from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog

RECENT_MESSAGES = 30
DESCRIPTION_CHARS = 2000  # of a card's description (its lines kept)
SEND_FAILURES = (BadReply, ConnectionLost, HubRefused, SessionClosed, TimeoutError, ValueError, StoreError)
NOT_WRITTEN = (StoreError, ValueError, SessionClosed)  # a post the outbox could not take
OpenRoom = Callable[[HubEntry, str], None]


class AgentCard(QDialog):
    def __init__(self, model: FleetModel, key: tuple[str, str], open_room: OpenRoom, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("agentCard")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.model = model
        self.key = key
        self.entry = model.hubs.entry(key[0])
        self._open_room = open_room
        self._first: tuple[str, str] | None = None  # the first message queued: (its client id, its text)
        agent = self.agent
        self.setWindowTitle(f"Agent — {model.name_of(agent)}" if agent is not None else "Agent")
        self.resize(640, 620)

        self.summary = plain_label(name="Agent")
        self.directory = plain_label(name="Directory card")
        self.history = QPlainTextEdit(readOnly=True)
        self.history.setAccessibleName("Task history")
        self.history.setPlaceholderText("No task statuses stored.")
        self.recent = QPlainTextEdit(readOnly=True)
        self.recent.setAccessibleName("Recent messages")
        self.recent.setPlaceholderText("Reading its messages…")
        self.note = plain_label(name="Card status")
        self.first_message = QLineEdit(placeholderText="A first message (opens a DM with it)")
        self.first_message.setAccessibleName("First message")
        self.first_message.hide()
        self.message_button = QPushButton("&Message")
        self.handoff_button = QPushButton("&Hand off…")
        self.copy_button = QPushButton("&Copy id")
        close = QPushButton("Close")
        for button, name in (
            (self.message_button, "Message"), (self.handoff_button, "Hand off"), (self.copy_button, "Copy id"), (close, "Close")
        ):
            button.setAutoDefault(False)  # Enter in the first message sends it, nothing else
            button.setAccessibleName(name)
        actions = QHBoxLayout()
        for button in (self.message_button, self.handoff_button, self.copy_button):
            actions.addWidget(button)
        actions.addStretch(1)
        actions.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.directory)
        layout.addWidget(plain_label("Task history"))
        layout.addWidget(self.history, 1)
        layout.addWidget(plain_label("Recent messages in rooms you share"))
        layout.addWidget(self.recent, 1)
        layout.addWidget(self.first_message)
        layout.addWidget(self.note)
        layout.addLayout(actions)

        self.message_button.clicked.connect(self.message)
        self.first_message.returnPressed.connect(self.send_first_message)
        self.handoff_button.clicked.connect(self.hand_off)
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(key[1]))
        close.clicked.connect(self.close)
        self.refresh()
        model.modelReset.connect(self.refresh)  # what the rows say, the card says (as often)
        model.updated.connect(self.refresh)
        self._recent: dict[int, StoredMessage] = {}  # its newest messages shown, by seq
        if self.entry is not None:
            self.entry.bridge.outboxChanged.connect(self._outbox_changed)
            self.entry.bridge.messagesStored.connect(self._stored)
        if self.entry is not None and self.entry.bridge.store is not None and agent is not None:
            self.entry.bridge.tasks.spawn("agent's messages", self._read_recent(self.entry.bridge.store, sorted(agent.rooms)))

    @property
    def agent(self) -> AgentRecord | None:
        return self.model.record(self.key)

    def refresh(self, *_changed: object) -> None:
        agent = self.agent
        if agent is None:
            self.summary.setText("This agent is no longer known to the window.")
            return
        model = self.model
        lines = [
            f"{model.name_of(agent)} · {one_line(agent.role) or 'no role'} · on {model.hub_label(agent.hub)}",
            f"id {one_line(agent.id)}",
            f"{one_line(agent.presence)}{' — ' + one_line(agent.activity) if agent.activity else ''}",
            f"On: {model.on_text(agent) or 'nothing reported'}",
            model.lease_line(agent),  # (while it holds a lease: when it ends, counting down)
            f"Today: {model.costs.totals('agent', agent.hub, agent.id, 'today').summary()}",
            f"All stored: {model.costs.totals('agent', agent.hub, agent.id).summary()}",
        ]
        self.summary.setText("\n".join(line for line in lines if line))
        self.directory.setText(self._directory_text(agent))
        history = "\n".join(self._history_lines(agent))
        if history != self.history.toPlainText():  # (the rows repaint often: a reader's scroll stays)
            self.history.setPlainText(history)
        room = self.handoff_room()
        self.handoff_button.setEnabled(room is not None or agent.discoverable)
        self.handoff_button.setToolTip(
            f"Posts a handoff to it in {model.room_label(agent.hub, room)}" if room
            else "Posts a handoff to it in a DM (made by the post: it has a directory card)." if agent.discoverable
            else "You share no room with it, and it has no directory card for a DM."
        )

    def _directory_text(self, agent: AgentRecord) -> str:
        card = agent.card
        if card is None:
            return "No directory card: it is known from the rooms you share."
        lines = [f"Directory card ({'verified' if agent.verified else 'not verified'})"]
        if card.description:
            lines.append(readable(card.description[:DESCRIPTION_CHARS]))
        if card.tags:
            lines.append("Tags: " + ", ".join(one_line(tag) for tag in card.tags))
        for skill in card.skills or ():
            about = f" — {one_line(skill.description, NOTE_CHARS)}" if skill.description else ""
            lines.append(f"Skill: {one_line(skill.name or skill.id)}{about}")
        return "\n".join(lines)

    def _history_lines(self, agent: AgentRecord) -> list[str]:
        lines = []
        for first, last in reversed(task_runs(agent.history)):
            began = time.strftime("%d %b %H:%M", time.localtime(first.ts_ms / 1000))
            where = self.model.room_label(agent.hub, first.room)
            tokens = "" if last is None else f", {last.tokens:,} tokens" if last.tokens is not None else ", tokens unknown"
            if last is None:
                state = f"{first.status}, not finished"
            elif last is first:  # only its final status was stored
                took = f" in {duration_text(last.elapsed_ms)}" if last.elapsed_ms is not None else ""
                state = f"{last.status}{took}{tokens}"
            else:
                took_ms = last.elapsed_ms if last.elapsed_ms is not None else last.ts_ms - first.ts_ms
                state = f"{first.status} → {last.status} in {duration_text(took_ms)}{tokens}"
            note = (last or first).note
            lines.append(f"{began} · {where} · {state}{' — ' + one_line(note, NOTE_CHARS) if note else ''}")
        return lines

    async def _read_recent(self, store: object, rooms: list[str]) -> None:
        try:
            messages = await store.call(LocalStore.messages_from, self.key[1], rooms, RECENT_MESSAGES)  # type: ignore[attr-defined]
        except StoreError as error:
            messages, problem = [], f"Could not read its messages: {error}"
        else:
            problem = ""
        if not shiboken6.isValid(self):
            return
        self.recent.setPlaceholderText(problem or "No messages from it are stored.")
        self._show_recent(messages)

    def _stored(self, _room: str, messages: Sequence[StoredMessage], _live: bool) -> None:
        """What it says while the card is open shows on top (the rooms it shares with the human
        are those it posts in)."""
        mine = [m for m in messages if m.sender.id == self.key[1]]
        if mine:
            self._show_recent(mine)

    def _show_recent(self, messages: Sequence[StoredMessage]) -> None:
        """Add ``messages`` to those shown, newest first, the newest ``RECENT_MESSAGES`` kept."""
        self._recent.update((m.seq, m) for m in messages)
        for seq in sorted(self._recent)[:-RECENT_MESSAGES]:
            del self._recent[seq]
        lines = [
            f"{time.strftime('%d %b %H:%M', time.localtime(m.ts / 1000))} · {self.model.room_label(self.key[0], m.room)}: "
            f"{one_line(m.text or '  '.join(part_headline(p) for p in m.parts if p.get('kind') not in ('text', SIG_KIND)), NOTE_CHARS)}"
            for _seq, m in sorted(self._recent.items(), reverse=True)
        ]
        self.recent.setPlainText("\n".join(lines))

    # -- actions --------------------------------------------------------------------------
    def message(self) -> None:
        """Open the DM with it, or ask for the first message that makes one."""
        agent = self.agent
        if agent is None or self.entry is None:
            return
        room = self.model.state.dm_room_with(agent.hub, agent.id)
        if room is not None:
            self._open_room(self.entry, room)
            self.close()
        elif not agent.discoverable:
            self.note.setText(
                f"{self.model.name_of(agent)} has no directory card, so the hub opens no DM with it without an "
                "invite: invite it to a room (Hub → Invite agents to this room…) and talk there."
            )
        else:
            self.note.setText(f"Type a first message to {self.model.name_of(agent)} and press Enter: it opens a DM.")
            self.first_message.show()
            self.first_message.setFocus()

    def send_first_message(self) -> None:
        text = self.first_message.text().strip()
        if text and self.entry is not None and self.first_message.isEnabled():
            self.first_message.setEnabled(False)
            self.entry.bridge.tasks.spawn("message agent", self._send(self.entry, text))

    async def _send(self, entry: HubEntry, text: str) -> None:
        """Into the outbox (as the composer posts); the outbox's word on it comes to
        ``_outbox_changed``."""
        try:
            item = await entry.bridge.message_agent(self.key[1], text)
        except NOT_WRITTEN as error:
            if shiboken6.isValid(self):
                self.first_message.setEnabled(True)
                self.note.setText(display_text(why_not_posted(error), NOTICE_CHARS))
            return
        if not shiboken6.isValid(self):
            return
        self._first = (item.client_id, text)
        self.first_message.clear()
        agent = self.agent
        name = self.model.name_of(agent) if agent is not None else "it"
        self.note.setText(f"Queued for {name}: sent as soon as the hub answers (kept if the app closes meanwhile); its DM opens then.")
        store = entry.bridge.store
        current = None if store is None else await store.call(LocalStore.outbox_get, item.client_id)  # (it may have gone already)
        if current is not None and shiboken6.isValid(self):
            self._outbox_changed(current)

    def follows(self, client_id: str) -> bool:
        """It waits for the hub's word on this post (its first message), and will say it."""
        return self._first is not None and self._first[0] == client_id

    def _outbox_changed(self, item: OutboxItem) -> None:
        """The first message sent: its DM opens; refused: the text comes back with the hub's reason."""
        if self._first is None or item.client_id != self._first[0] or self.entry is None:
            return
        entry = self.entry
        if item.status is OutboxStatus.SENT and item.room:
            self._first = None
            self.model.state.dm_rooms.setdefault(entry.url, set()).add(item.room)
            self.model.state.agent(entry.url, self.key[1]).rooms.add(item.room)
            self._open_room(entry, item.room)
            self.close()
        elif item.status is OutboxStatus.FAILED:
            text, self._first = self._first[1], None
            entry.bridge.discard_outbox(item.client_id)  # the human has the text back to send again
            self.first_message.setText(text)
            self.first_message.setEnabled(True)
            self.note.setText(display_text(f"Not sent: {item.error or 'the hub refused it'}", NOTICE_CHARS))

    def handoff_room(self) -> str | None:
        """Where a handoff to it is posted: the room of its current task, else a DM, else a room
        the human shares with it (None: none; one with a directory card gets it in a DM the
        post makes, as a first message does)."""
        agent = self.agent
        if agent is None:
            return None
        if agent.task is not None and agent.task.room in agent.rooms:
            return agent.task.room
        return self.model.state.dm_room_with(agent.hub, agent.id) or next(iter(sorted(agent.rooms)), None)

    def hand_off(self) -> HandoffDialog | None:
        agent, room = self.agent, self.handoff_room()
        if agent is None or (room is None and not agent.discoverable) or self.entry is None:
            return None
        name = one_line(agent.name) or agent.id
        dialog = HandoffDialog([name], self)
        dialog.to.setCurrentText(name)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._post_handoff(room, dialog.handoff()))
        dialog.open()
        return dialog

    def _post_handoff(self, room: str | None, handoff: Handoff) -> None:
        entry = self.entry
        if entry is None or entry.bridge.session is None:
            self.note.setText("Not handed off: the hub is not connected.")
            return
        mentions = [handoff.to] if handoff.to else []
        entry.bridge.tasks.spawn("hand off", self._post(entry, room, handoff, mentions))

    async def _post(self, entry: HubEntry, room: str | None, handoff: Handoff, mentions: list[str]) -> None:
        """Through the outbox: into ``room``, or (None) by a ``dm`` target to the agent."""
        target = None if room is not None else DmTarget(self.key[1])
        try:
            await entry.bridge.post(room or "", "", mentions, extra_parts=[handoff.to_part()], session=entry.bridge.session, target=target)
        except SEND_FAILURES as error:
            if shiboken6.isValid(self):
                self.note.setText(f"Not handed off: {error}")
            return
        if shiboken6.isValid(self):
            where = self.model.room_label(entry.url, room) if room is not None else f"a DM with {self.model.name_of(self.agent) if self.agent else 'it'}"
            self.note.setText(f"Handed off in {where}.")
