"""Acting on an agent's request from its card: a handoff addressed to the human, or a task
awaiting input, shows Reply, Hand back and Done.

Reply opens the composer replying to the message, addressed to its sender. Hand back posts a
handoff to the sender; Done posts a "done" (for a task, a task status ``done``). Each answer is a
real message through the outbox, replying to the request, so the agent sees what the human did.

A request counts as answered once the human has posted any reply to it (from these buttons or
the composer; seen in the outbox and in the loaded history); its buttons then go, so a second
click can never post twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QObject
from PySide6.QtGui import QTextCursor

from parler_desktop.app.hubs.bridge import SessionBridge, why_not_posted
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.client.errors import SessionClosed
from parler_desktop.client.events import OutboxItem
from parler_desktop.protocol.parts import Handoff, TaskStatus
from parler_desktop.store import StoreError
from parler_desktop.ui.composer.composer import Composer
from parler_desktop.ui.timeline.timeline_view import TimelineView


def request_subject(entry: TimelineEntry) -> str:
    """What the request is about: the handoff's next step, else the waiting task's name."""
    return subject_of(entry.parts)


def subject_of(parts: Sequence[dict]) -> str:
    """``request_subject`` of a message's parts (the Needs you queue asks it of its items)."""
    for part in parts:
        if (handoff := Handoff.from_part(part)) is not None:
            return handoff.next
        if (task := TaskStatus.from_part(part)) is not None and task.status == "awaiting":
            return task.task or task.note or "the task"
    return "this"


def answer(entry: TimelineEntry, action: str) -> tuple[str, list[dict]]:
    """The text and extra parts that ``action`` ("Hand back" or "Done") posts for ``entry``."""
    return answer_to(entry.sender_name, entry.parts, action)


def answer_to(sender: str, parts: Sequence[dict], action: str) -> tuple[str, list[dict]]:
    """``answer`` for a request from ``sender`` carrying ``parts``: one answer, from the card's
    buttons and the Needs you queue's keys alike."""
    subject = subject_of(parts)
    if action == "Hand back":
        handoff = Handoff(next=subject, summary="handed back by the supervisor", to=sender)
        return f"@{sender} handing this back to you: {subject}", [handoff.to_part()]
    tasks = [task for task in map(TaskStatus.from_part, parts) if task is not None and task.status == "awaiting"]
    done = [TaskStatus(status="done", task=tasks[0].task).to_part()] if tasks else []
    return f"@{sender} done: {subject}", done


class RequestActions(QObject):
    def __init__(self, bridge: SessionBridge, model: TimelineModel, view: TimelineView, composer: Composer) -> None:
        super().__init__(view)
        self._bridge = bridge
        self._model = model
        self._view = view
        self._composer = composer
        self._answered: set[str] = set()  # ids of the messages the human replied to
        view.message_delegate.answered = self.answered
        view.message_delegate.requestAction.connect(self._clicked)
        bridge.outboxChanged.connect(self._outbox_changed)
        bridge.sessionChanged.connect(self._answered.clear)
        model.roomLoaded.connect(lambda _room: self._learn(range(model.rowCount())))
        # Every row that comes in, the human's own replies from other clients included.
        model.rowsInserted.connect(lambda _parent, first, last: self._learn(range(first, last + 1)))

    def answered(self, message_id: str) -> bool:
        return message_id in self._answered

    def _clicked(self, index: QModelIndex, action: str) -> None:
        entry = self._model.entry(index.row())
        if entry is None or entry.message_id is None or self.answered(entry.message_id):
            return
        if action == "Reply":
            self._composer.set_reply(entry)
            self._composer.edit.setPlainText(f"@{entry.sender_name} ")
            self._composer.edit.moveCursor(QTextCursor.MoveOperation.End)
            return
        self._mark_answered(entry.message_id)  # at once: a second click finds no button
        self._bridge.tasks.spawn("post", self._post(entry, action))

    async def _post(self, entry: TimelineEntry, action: str) -> None:
        """Into the outbox (then sent); if it cannot be written, the buttons come back and the
        status bar says why."""
        text, parts = answer(entry, action)
        try:
            await self._bridge.post(entry.room, text, [entry.sender_name.lower()], entry.message_id, parts)
        except (StoreError, ValueError, SessionClosed) as error:
            self._answered.discard(entry.message_id)
            self._relayout()
            self._view.window().statusBar().showMessage(f"{action}: {why_not_posted(error)}", 15_000)

    def _outbox_changed(self, item: OutboxItem) -> None:
        if item.reply_to:
            self._mark_answered(item.reply_to)

    def _learn(self, rows: range) -> None:
        replied = {e.reply_to for e in map(self._model.entry, rows) if e is not None and e.mine and e.reply_to}
        if not replied <= self._answered:
            self._answered |= replied
            self._relayout()

    def _mark_answered(self, message_id: str) -> None:
        if message_id not in self._answered:
            self._answered.add(message_id)
            self._relayout()

    def _relayout(self) -> None:
        self._view.doItemsLayout()
        self._view.viewport().update()
        self._view.cardActionsChanged.emit()
