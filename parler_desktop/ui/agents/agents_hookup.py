"""What joins the Agents view to the window: View → Agents opens it (made on first use), a row's
card opens a room in the window (a DM just made once its hub lists it), the room header's
tooltip (the room's full title) gets the lines of what the agents' work in the room cost, and a
post to an agent's DM (a first message, a handoff) that the hub refused is said in the status bar
(it has no room to show it in), unless the card that posted it is open to say it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QToolTip

from parler_desktop.app.agents.fleet_model import FleetModel
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.client.outbox import dm_agent_of
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus
from parler_desktop.ui.agents.agent_card import AgentCard
from parler_desktop.ui.agents.agents_view import AgentsView

if TYPE_CHECKING:  # for the type only: the window is built from modules beside this one
    from parler_desktop.ui.main_window import MainWindow


class AgentsHookup(QObject):
    def __init__(self, window: MainWindow, watches: HubAgentWatches) -> None:
        super().__init__(window)
        self.window = window
        self.model = FleetModel(window.hubs, watches, window.needs, self)
        self.view: AgentsView | None = None
        self.card: AgentCard | None = None  # the card opened last
        window.agentsRequested.connect(self.open)
        window.room_title.installEventFilter(self)
        for entry in window.hubs.entries:
            self._follow_outbox(entry)
        window.hubs.added.connect(self._follow_outbox)

    def open(self) -> AgentsView:
        if self.view is None:
            self.view = AgentsView(self.model, self.window)
            self.view.cardRequested.connect(self.open_card)
        self.view.open_view()
        return self.view

    def open_card(self, key: tuple[str, str]) -> AgentCard:
        self.card = AgentCard(self.model, key, self.open_room, self.view)
        self.card.show()
        self.card.raise_()
        self.card.activateWindow()
        return self.card

    def open_room(self, entry: HubEntry, room: str) -> None:
        """Show ``room`` of ``entry`` in the window, the composer focused (a room not listed yet,
        a DM just made, opens once its hub lists it)."""
        window = self.window
        if room in entry.rooms.room_names():
            window.show_room(entry.url, room)
        else:
            window.show_hub(entry)
            window.opener.open_when_listed(room)
        window.raise_()
        window.activateWindow()
        window.composer.edit.setFocus()

    def _follow_outbox(self, entry: HubEntry) -> None:
        entry.bridge.outboxChanged.connect(lambda item: self._dm_post_refused(entry, item))

    def _dm_post_refused(self, entry: HubEntry, item: OutboxItem) -> None:
        agent = dm_agent_of(item) if item.status is OutboxStatus.FAILED and not item.room else None
        card = self.card if self.card is not None and shiboken6.isValid(self.card) else None
        if agent is not None and (card is None or not card.follows(item.client_id)):
            record = self.model.record((entry.url, agent))
            name = self.model.name_of(record) if record is not None else agent
            text = f"Your message to {name} (its DM) was not sent: {item.error or 'the hub refused it'}"
            self.window.statusBar().showMessage(display_text(text, NOTICE_CHARS), 15_000)

    def room_cost_line(self, hub: str, room: str) -> str:
        """What the agents' finished tasks in ``room`` cost, today and over 7 days."""
        if not self.model.feed.started:
            self.model.feed.load()
            return "Agents' work here: reading the task receipts…"
        costs = self.model.costs
        return (
            f"Agents' work here today: {costs.totals('room', hub, room, 'today').summary()}\n"
            f"Last 7 days: {costs.totals('room', hub, room, '7 days').summary()}"
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        room, shown = self.window.timeline_model.room, self.window.shown_hub
        if watched is self.window.room_title and event.type() == QEvent.Type.ToolTip and room and shown is not None:
            assert isinstance(event, QHelpEvent)
            text = f"{self.window.rooms.description(room)}\n{self.room_cost_line(shown.url, room)}"
            QToolTip.showText(event.globalPos(), plain_tooltip(text), self.window.room_title)
            return True
        return super().eventFilter(watched, event)
