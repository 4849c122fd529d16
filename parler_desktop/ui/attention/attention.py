"""Everything that competes for the supervisor's attention, wired to one window: the settings,
the notifiers (one per hub), where their alerts go (desktop notifications, else the tray
balloon), the tray with close-to-tray, the way back to a message from either, the agents' states
and warnings (a watch per hub), the request buttons on cards and the room and Notifications
menus. What is kept per room is kept per room of a hub: a room of the same name on another hub
is another room."""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import QSystemTrayIcon

from parler_desktop.app.room_list.agent_watch import HubAgentWatches
from parler_desktop.app.attention.attention_notifier import Alert, AttentionNotifier
from parler_desktop.app.attention.attention_preferences import AttentionPreferences
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.attention.platform_notifications import platform_notifications
from parler_desktop.app.needs_you.needs_alerts import NeedsAlerts
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings
from parler_desktop.ui.room_list.agent_glance import AgentDotDelegate, RoomHintBar, repaint_rooms
from parler_desktop.ui.attention.close_to_tray import CloseToTray
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.timeline.message_jump import MessageJump
from parler_desktop.ui.attention.notifications_menu import NotificationsMenu
from parler_desktop.ui.timeline.request_actions import RequestActions
from parler_desktop.ui.room_list.room_menu import RoomMenu
from parler_desktop.ui.attention.tray import Tray

class Attention:
    def __init__(self, home: Home, bridge: SessionBridge, window: MainWindow) -> None:
        self.window = window
        self.preferences = AttentionPreferences(
            home.config_dir / "attention.json", bridge.tasks, lambda: load_settings(home.settings_file).settings.hub_url, window
        )  # (the settings are read only for a file from before several hubs)
        self.preferences.problem.connect(lambda text: bridge.notice.emit(text, ""))
        self.notifiers: dict[HubEntry, AttentionNotifier] = {}  # each hub's own: every hub notifies
        for entry in window.hubs.entries:
            self._hub_added(entry)
        window.hubs.added.connect(self._hub_added)
        window.hubs.removed.connect(lambda entry: self.notifiers.pop(entry).deleteLater())
        window.needs.set_silent_after(self.preferences.current().silent_minutes * 60)
        self.preferences.changed.connect(lambda settings: window.needs.set_silent_after(settings.silent_minutes * 60))
        self.agents = HubAgentWatches(window.hubs, self.preferences.current, parent=window, waiting=window.needs.waiting_in)
        self.agents.hintRaised.connect(lambda entry, room, hint: self.notifiers[entry].hint(room, hint))
        self.desktop = platform_notifications(bridge.tasks, parent=window)
        self.jump = MessageJump(window, window.room_panel, window.timeline_model)
        self.tray: Tray | None = None
        self.close_to_tray: CloseToTray | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = Tray(window, window.hubs, self.preferences, window.needs)
            self.close_to_tray = CloseToTray(window, self.tray, self.preferences)
            self.tray.openRequested.connect(self._open)
            self.tray.quitRequested.connect(self.quit)
            window.quit_action.triggered.disconnect()  # Hub → Quit / Ctrl+Q quit, never just hide
            window.quit_action.triggered.connect(self.quit)
            self.desktop.undelivered.connect(self.tray.show_alert)
            self.tray.show()
        self.desktop.opened.connect(self._open)
        self.desktop.replyRequested.connect(lambda room, seq, hub: window.needs_you.reply_to(hub, room, seq) or self._open(room, seq, hub))
        self.needs_alerts = NeedsAlerts(window.needs, self.preferences.current, parent=window)
        self.needs_alerts.alert.connect(self._deliver)
        self.requests = RequestActions(bridge, window.timeline_model, window.timeline, window.composer)
        self.agents.changed.connect(window.room_panel.view.viewport().update)
        window.needs.waitingRoomsChanged.connect(lambda rooms: repaint_rooms(window.room_panel.view, rooms))  # the dots read "waiting" from Needs you
        window.room_panel.view.setItemDelegate(AgentDotDelegate(self.agents, window.room_panel.view))
        window.room_panel.model.agents = self.agents  # a screen reader hears the dot too
        self.hint_bar = RoomHintBar(
            self.agents, window.needs, window.timeline_model, lambda: None if window.shown_hub is None else window.shown_hub.url
        )
        window.shownHubChanged.connect(self.hint_bar.refresh)
        column = window.timeline.parentWidget().layout()  # MainWindow's room title / timeline / composer
        column.insertWidget(column.indexOf(window.timeline), self.hint_bar)
        self.room_menu = RoomMenu(window.room_panel, window.hubs, self.preferences)
        self.menu = NotificationsMenu(window, self.preferences)
        window.add_menu(self.menu)

    async def start(self) -> None:
        """Use the desktop's notification service when there is one (else the tray balloon)."""
        if self.preferences.load_problem:
            self.window.statusBar().showMessage(self.preferences.load_problem, 15_000)
        await self.desktop.start()  # False (quietly) without one: no session bus, no notification centre

    async def stop(self) -> None:
        await self.desktop.stop()

    def quit(self) -> None:
        if self.close_to_tray is not None:
            self.close_to_tray.quit()
        else:
            self.window.close()

    @property
    def notifier(self) -> AttentionNotifier:
        """The first hub's notifier."""
        return self.notifiers[self.window.hubs.entries[0]]

    def _hub_added(self, entry: HubEntry) -> None:
        notifier = AttentionNotifier(
            entry.bridge, lambda: entry.url, self.preferences.current, entry.rooms.label,
            lambda room: self._on_screen(entry, room), self.window,
            raised_need=lambda message_id: self.window.needs.raised(entry, message_id),
        )
        notifier.alert.connect(lambda alert: self._deliver(self._from_hub(alert, entry)))
        self.notifiers[entry] = notifier

    def _open(self, room: str, seq: int, hub: str) -> None:
        """An alert was clicked: a Needs you item's opens in the queue, any other in its room."""
        if not self.window.needs_you.open_item(hub, room, seq):
            self.jump.open(room, seq, hub)

    def _from_hub(self, alert: Alert, entry: HubEntry) -> Alert:
        """The alert names its hub (in the title too, while the window holds several: a room
        of the same name may be on two)."""
        title = f"{alert.title} · {entry.label}" if len(self.window.hubs.entries) > 1 else alert.title
        return dataclasses.replace(alert, hub=entry.url, title=title)

    def _on_screen(self, entry: HubEntry, room: str) -> bool:
        """The room is in front of the human: shown in the active, unminimized window."""
        window = self.window
        return window.read_tracker.window_active and window.shown_hub is entry and window.timeline_model.room == room

    def _deliver(self, alert: Alert) -> None:
        if self.desktop.available:
            self.desktop.show(alert)
        elif self.tray is not None:
            self.tray.show_alert(alert)
