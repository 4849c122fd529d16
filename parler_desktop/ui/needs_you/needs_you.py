"""Needs you in the window: the sidebar entry with its count, the queue in the centre column
(View → Needs you, Ctrl+I) and what its keys and buttons do, through each hub's own bridge.

Every answer is a message through the outbox (exactly once, surviving a kill), replying to the
item's message: Reply posts what the human typed; Done and Hand back post what the card's
buttons post (``request_actions.answer_to``). Done on a mention marks it read (the hub's cursor),
on a failure or a silence acknowledges it (a dismissal kept in the hub's store). Approve and Deny
resolve the join request on the hub. Snooze hides the item for an hour, until tomorrow 9:00 or
until the agent posts again.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMenu, QPushButton, QStackedWidget

from parler_desktop.app.hubs.bridge import why_not_posted
from parler_desktop.app.needs_you.hub_needs import HubItem, HubNeeds
from parler_desktop.app.needs_you.needs_rules import Decision, NeedKind
from parler_desktop.app.needs_you.queue_model import NeedsQueueModel
from parler_desktop.client.errors import ConnectionLost, HubRefused, SessionClosed
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.ui.needs_you.needs_queue_view import NeedsQueueView
from parler_desktop.ui.needs_you.today_panel import TodayPanel
from parler_desktop.app.needs_you.since_you_looked import SinceYouLooked
from parler_desktop.ui.timeline.message_jump import MessageJump, bring_forward
from parler_desktop.ui.timeline.request_actions import answer_to

CONTEXT_MESSAGES = 5


def tomorrow_at_nine(now: float) -> float:
    day = datetime.datetime.fromtimestamp(now).date() + datetime.timedelta(days=1)
    return datetime.datetime.combine(day, datetime.time(9)).timestamp()


class NeedsYou(QObject):
    def __init__(self, window, needs: HubNeeds, centre: QStackedWidget, show_status: Callable[[str], None]) -> None:  # noqa: ANN001
        super().__init__(window)
        self.window = window
        self.needs = needs
        self.centre = centre
        self._status = show_status
        self.model = NeedsQueueModel(needs, self)
        self.view = NeedsQueueView(self.model)
        centre.addWidget(self.view)
        self.entry = QPushButton(objectName="needsYouEntry")
        self.entry.setAccessibleName("Needs you")
        self.entry.clicked.connect(self.show_queue)
        window.room_panel.layout().insertWidget(0, self.entry)
        self.snooze_menu = QMenu(self.view)
        for text, how in (("For &1 hour", "hour"), ("Until &tomorrow 9:00", "tomorrow"), ("Until the agent &posts again", "speaks")):
            self.snooze_menu.addAction(text, lambda h=how: self._snooze(h))
        self._snoozing: HubItem | None = None
        needs.countChanged.connect(self._count_changed)
        self.view.actionRequested.connect(self._act)
        self.view.replyRequested.connect(lambda text, found: self._post(found, text, []))
        self.view.contextWanted.connect(self._want_context)
        self.since = SinceYouLooked(window.hubs, parent=self)
        self.since.changed.connect(lambda: self.view.set_digest(self.since.digest))
        self.view.digestDismissed.connect(self.since.dismiss)
        self.view.digestOpened.connect(lambda line: self.open_message(line.hub, line.room, line.seq))
        self.jump = MessageJump(window, window.room_panel, window.timeline_model)
        self.today: TodayPanel | None = None
        self.view.today_button.clicked.connect(self.show_today)
        self._count_changed(needs.count())

    @property
    def showing(self) -> bool:
        return self.centre.currentWidget() is self.view

    def show_queue(self) -> None:
        """The queue in the centre column, the keys on its first item."""
        self.needs.refresh()
        self.centre.setCurrentWidget(self.view)
        self.view.refresh_times()
        self.view.focus_first()

    def open_item(self, hub: str, room: str, seq: int) -> bool:
        """Show the queue with the item that message raised selected (a summary's: the queue
        from its top); False when no item Needs you told of is that message's."""
        self.model.set_filter()
        rows = [row for row in range(self.model.rowCount()) if (found := self.model.item(row)) is not None
                and (found.entry.url, found.item.room, found.item.seq) == (hub, room, seq)
                and found.item.kind is not NeedKind.MENTION]  # (a mention's alert is the rules': it opens the room)
        if not rows and (room or seq):
            return False
        bring_forward(self.window)
        self.show_queue()
        if rows:
            self.view.list.setCurrentIndex(self.model.index(rows[0]))
        return True

    def reply_to(self, hub: str, room: str, seq: int) -> bool:
        """A notification's Reply: the item in the queue with its inline composer open."""
        if not self.open_item(hub, room, seq) or self.view.selected() is None:
            return False
        self.view.act("reply")
        return True

    def show_today(self) -> TodayPanel:
        """The Today panel (one, kept current while open)."""
        if self.today is None:
            self.today = TodayPanel(self.needs, self.window)
            self.needs.changed.connect(self.today.refresh)
        self.today.refresh()
        self.today.open()
        return self.today

    def open_message(self, hub: str, room: str, seq: int) -> None:
        """The message in its room (the timeline back in the centre)."""
        self.hide_queue()
        if seq:
            self.jump.open(room, seq, hub)
        else:
            self.window.show_room(hub, room)

    def hide_queue(self) -> None:
        self.centre.setCurrentIndex(0)

    def _count_changed(self, count: int) -> None:
        self.entry.setText(f"Needs you · {count}" if count else "Needs you")
        self.entry.setToolTip(f"{count} item(s) wait on you" if count else "Nothing waits on you")
        self.entry.setAccessibleName(f"Needs you, {count} waiting" if count else "Needs you, nothing waiting")  # read as seen

    # -- acting -----------------------------------------------------------------------------
    def _act(self, name: str, found: HubItem) -> None:
        item, watch = found.item, self.needs.watch(found.entry)
        if name == "open":
            self.open_message(found.entry.url, item.room, item.seq)
            return
        if name == "snooze":
            self._snoozing = found
            where = self.view.list.visualRect(self.view.list.currentIndex()).center()
            self.snooze_menu.popup(self.view.list.viewport().mapToGlobal(where))
            return
        self.view.select_next()
        if name in ("done", "hand back") and item.kind in (NeedKind.HANDOFF, NeedKind.QUESTION):
            text, parts = answer_to(item.agent_name, item.parts, "Hand back" if name == "hand back" else "Done")
            self._post(found, text, parts)
        elif name == "done" and item.kind is NeedKind.MENTION:
            found.entry.bridge.mark_read(item.room, item.seq)
        elif name == "done" and watch is not None:
            watch.decide(Decision(item.key, "dismissed"))
        elif name in ("approve", "deny"):
            found.entry.bridge.tasks.spawn("resolve join", self._resolve(found, name == "approve"))

    def _post(self, found: HubItem, text: str, parts: list[dict]) -> None:
        found.entry.bridge.tasks.spawn("answer", self._send(found, text, parts))

    async def _send(self, found: HubItem, text: str, parts: list[dict]) -> None:
        item = found.item
        try:
            await found.entry.bridge.post(item.room, text, [item.agent_name.lower()], item.message_id, parts)
        except (StoreError, ValueError, SessionClosed) as error:
            self._status(f"Not answered: {why_not_posted(error)}")

    async def _resolve(self, found: HubItem, approve: bool) -> None:
        item, watch = found.item, self.needs.watch(found.entry)
        try:
            await found.entry.bridge.resolve_join(item.room, item.agent_id, approve)
        except (HubRefused, ConnectionLost, SessionClosed) as error:
            self._status(f"Could not {'approve' if approve else 'deny'} {item.agent_name}: {error}")
            return
        if watch is not None:
            watch.joined_or_denied(item)

    def _snooze(self, how: str) -> None:
        found, self._snoozing = self._snoozing, None
        watch = None if found is None else self.needs.watch(found.entry)
        if found is None or watch is None:
            return
        now, item = self.needs.clock(), found.item
        self.view.select_next()
        if how == "hour":
            watch.decide(Decision(item.key, "snoozed", until=now + 3600))
        elif how == "tomorrow":
            watch.decide(Decision(item.key, "snoozed", until=tomorrow_at_nine(now)))
        else:
            watch.decide(Decision(item.key, "until_speaks", agent=item.agent_id, after_seq=watch.newest_seq()))
        self.view.list.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- context ----------------------------------------------------------------------------
    def _want_context(self, found: HubItem) -> None:
        store = found.entry.bridge.store
        if store is not None and found.item.seq:
            found.entry.bridge.tasks.spawn("context", self._context(store, found))

    async def _context(self, store: object, found: HubItem) -> None:
        try:
            page = await store.call(LocalStore.messages_before, found.item.room, found.item.seq, CONTEXT_MESSAGES)
        except StoreError:
            return
        lines = []
        for message in page:
            text = " ".join(str(p.get("text", "")) for p in message.parts if p.get("kind") == "text")
            lines.append(f"{message.sender.name}: {text}")
        self.view.set_context(found, lines)
