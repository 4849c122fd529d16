"""The main window: rooms on the left, the timeline and composer in the middle, members on the
right, the connection state on top. It only composes widgets and routes signals; each piece
lives in its own module and all session traffic goes through the bridge.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from parler_desktop.app.appearance.scheme import SchemeChoice
from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.connection_status import ConnectionStatus
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.app.timeline.read_tracker import ReadTracker
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.app.room_list.room_list_model import RoomListModel
from parler_desktop.app.members.roster_model import RosterModel
from parler_desktop.app.timeline.timeline_model import TimelineModel
from parler_desktop.ui.accessibility import Announcer, ConnectionAnnouncements
from parler_desktop.ui.appearance.appearance_menu import AppearanceMenu, initial_schemes
from parler_desktop.ui.composer.composer import Composer
from parler_desktop.ui.hubs.connection_bar import ConnectionBar, ElidedLabel
from parler_desktop.ui.needs_you.needs_you import NeedsYou
from parler_desktop.ui.demo_offer import DemoOffer
from parler_desktop.ui.dispatch.dispatch import RoleDispatch
from parler_desktop.ui.keyboard import FOCUS_OUTLINE, ComposerFocus, EmptyComposerScrolls, TypingToComposer, set_tab_order
from parler_desktop.ui.memory.room_memory import RoomMemory
from parler_desktop.ui.panel_layout import PanelLayout
from parler_desktop.ui.hubs.room_actions import RoomActions
from parler_desktop.ui.composer.room_composer import RoomComposer
from parler_desktop.ui.room_list.room_list_view import RoomListPanel
from parler_desktop.ui.room_list.room_opener import RoomOpener
from parler_desktop.ui.members.roster_panel import RosterPanel
from parler_desktop.ui.timeline.request_bar import RequestBar
from parler_desktop.ui.timeline.timeline_view import TimelineView
from parler_desktop.ui.saves.file_saves import FileSaves
from parler_desktop.ui.uploads.uploads import FileUploads

APP_TITLE = "Parler"


def _column(*widgets: QWidget, stretch: QWidget) -> QWidget:
    """The widgets stacked edge to edge, ``stretch`` taking the spare height."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    for widget in widgets:
        layout.addWidget(widget, 1 if widget is stretch else 0)
    return column


class MainWindow(QMainWindow):
    connectRequested = Signal()
    addHubRequested = Signal()
    removeHubRequested = Signal()
    shownHubChanged = Signal(object)  # HubEntry: the timeline, composer and members follow it now
    connectAgentsRequested = Signal()
    agentsRequested = Signal()  # View → Agents
    openLogFolderRequested = Signal()
    demoRequested = Signal()
    closing = Signal()

    def __init__(self, bridge: SessionBridge, hubs: HubList, parent: QWidget | None = None) -> None:
        """``bridge`` follows the session of the hub shown (``shown_hub``, one of ``hubs``): the
        timeline, composer and members panel are that hub's; the room list is every hub's."""
        super().__init__(parent)
        schemes = initial_schemes(self)
        self.bridge = bridge
        self.hubs = hubs
        self.shown_hub: HubEntry | None = None
        self.timeline_model = TimelineModel(bridge, self)
        self.roster = RosterModel(bridge, self)
        self.read_tracker = ReadTracker(bridge, self.timeline_model, self)
        self.room_actions = RoomActions(bridge, self)
        self.dispatch = RoleDispatch(bridge, self.timeline_model, self)
        self.memory = RoomMemory(bridge, self.timeline_model, self)
        self.needs = HubNeeds(hubs, self)  # what waits on the human, every hub: the one source of its counts

        self.room_panel = RoomListPanel(hubs)
        self.timeline = TimelineView(self.timeline_model)
        self.composer = Composer()
        self.uploads = FileUploads(bridge, self.timeline_model, self.composer, self)
        self.saves = FileSaves(bridge, self)
        self.roster_panel = RosterPanel(self.roster)
        self.connection_bar = ConnectionBar()
        self.demo_offer = DemoOffer(self.timeline)
        self.room_title = ElidedLabel("roomTitle")  # plain text (names come off the wire), never wider than its column
        self.room_title.setStyleSheet("font-weight: bold; font-size: 14px; padding: 4px 8px;")

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.room_panel)
        self.request_bar = RequestBar(self.timeline)  # the current message's request actions, as buttons
        self.centre = QStackedWidget()  # the room's timeline, or the Needs you queue
        self.centre.addWidget(_column(self.room_title, self.dispatch.panel, self.timeline, self.request_bar, self.uploads.strip, self.saves.strip, self.composer, stretch=self.timeline))
        self.splitter.addWidget(self.centre)
        self.splitter.addWidget(self.roster_panel)
        self.splitter.setCollapsible(1, False)
        for number, name in enumerate(("Rooms", "Conversation", "Members")):  # what a screen reader calls each panel
            self.splitter.widget(number).setAccessibleName(name)
        self.splitter.handle(1).setAccessibleName("Resize the rooms panel")
        self.splitter.handle(2).setAccessibleName("Resize the members panel")
        self.panels = PanelLayout(self, self.splitter, self.roster_panel)
        self.room_composer = RoomComposer(bridge, self.composer, self.timeline, self)
        self.drafts = self.room_composer.drafts
        self.setCentralWidget(_column(self.connection_bar, self.splitter, stretch=self.splitter))
        self.setStyleSheet(FOCUS_OUTLINE)
        self.typing = TypingToComposer(self.composer.edit, self)
        self.connection_announcements = ConnectionAnnouncements(hubs, Announcer(self.connection_bar))
        for typed_in in (self, self.timeline, self.room_panel.view, self.roster_panel.view):
            typed_in.installEventFilter(self.typing)
        self.composer_focus = ComposerFocus(self.composer.edit)
        EmptyComposerScrolls(self.composer.edit, self.timeline, self)
        bar = self.connection_bar
        set_tab_order([  # as laid out: top, then left to right
            bar.retry, bar.fresh_cache, bar.connect_button, self.room_panel.filter, self.room_panel.view, self.dispatch.panel,
            self.timeline, *self.request_bar.buttons.values(), *self.composer.focus_order, self.roster_panel.view,
        ])
        self.uploads.strip.tab_after = self.saves.strip.tab_after = list(self.request_bar.buttons.values())[-1]  # their buttons come next
        self.panels.fit_screen()
        self.opener = RoomOpener(self)
        self.needs_you = NeedsYou(self, self.needs, self.centre, lambda text: self.statusBar().showMessage(text, 10_000))
        self._add_actions(schemes)
        self._wire()
        self._update_title()
        self.composer.setEnabled(False)

    def _add_actions(self, schemes: SchemeChoice) -> None:
        def action(text: str, keys: list[QKeySequence | str], slot) -> QAction:  # noqa: ANN001
            made = QAction(text, self)
            made.setShortcuts([QKeySequence(k) for k in keys])
            made.triggered.connect(slot)
            self.addAction(made)
            return made

        action("&Find room", ["Ctrl+K"], self.room_panel.focus_filter)
        action("Next &unread room", ["Alt+Down", "Ctrl+Shift+U"], lambda: self.room_panel.next_unread() or self._focus_composer())
        action("&Jump to first unread", ["Ctrl+J"], self.timeline.jump_to_first_unread)
        self.toggle_roster = action("Show &members", ["Ctrl+Shift+M"], self._toggle_roster)
        self.toggle_roster.setCheckable(True)
        self.toggle_roster.setChecked(True)
        action("A&gents", ["Ctrl+Shift+A"], self.agentsRequested.emit)  # (&Appearance is View's A)
        action("&Needs you", ["Ctrl+I"], self.needs_you.show_queue)
        menu = self.menuBar()  # every menu and item has a mnemonic of its own (test_journey_keyboard.py)
        hub_menu = menu.addMenu("&Hub")
        hub_menu.addAction("&New room…", self.room_actions.new_room)
        self.invite_action = hub_menu.addAction("&Invite agents to this room…", lambda: self.room_actions.invite_to(self.timeline_model.room))
        self.approval_invite_action = hub_menu.addAction(
            "Invite agents with &approval…", lambda: self.room_actions.invite_to(self.timeline_model.room, require_approval=True)
        )
        self.join_requests_action = hub_menu.addAction("&Join requests…", self._open_join_requests)
        self.room_actions_needing_a_room = (self.invite_action, self.approval_invite_action, self.join_requests_action)
        for needs_room in self.room_actions_needing_a_room:
            needs_room.setEnabled(False)  # until a room is open
        hub_menu.addAction("Join with a &code…", self.room_actions.join_with_code)
        hub_menu.addAction(self.dispatch.action)
        hub_menu.addAction(self.memory.action)
        self.connect_agents_action = hub_menu.addAction("Connect your a&gents…", self.connectAgentsRequested.emit)
        hub_menu.addSeparator()
        hub_menu.addAction("C&onnect…", self.connectRequested.emit)
        hub_menu.addAction("A&dd a hub…", self.addHubRequested.emit)
        self.remove_hub_action = hub_menu.addAction("&Remove this hub…", self.removeHubRequested.emit)
        hub_menu.addAction("Re&try now", self.connection_bar.retryRequested.emit)
        hub_menu.addSeparator()
        self.quit_action = hub_menu.addAction("&Quit", self.close)
        quit_keys = [QKeySequence("Ctrl+Q"), *QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)]
        self.quit_action.setShortcuts(list({key.toString(): key for key in quit_keys}.values()))  # twice is ambiguous
        self.quit_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        view_menu = menu.addMenu("&View")
        for existing in self.actions():
            view_menu.addAction(existing)
        view_menu.addSeparator()
        self.appearance = AppearanceMenu(view_menu, schemes, self)
        for number in range(1, 10):  # not in a menu: nine lines of it would say less than the keys
            action(f"Go to hub {number}", [f"Ctrl+Alt+{number}"], lambda _checked=False, n=number: self.go_to_hub(n - 1))
        self.help_menu = menu.addMenu("Hel&p")  # Alt+H is the Hub menu's
        self.help_menu.addAction("Open &log folder", self.openLogFolderRequested.emit)

    def add_menu(self, menu: QMenu) -> QMenu:
        """Put ``menu`` in the menu bar, before Help (which stays last)."""
        self.menuBar().insertMenu(self.help_menu.menuAction(), menu)
        return menu

    def _wire(self) -> None:
        bridge = self.bridge
        bridge.stateChanged.connect(lambda _state: self.timeline.set_online(bridge.is_sending))
        bridge.sessionChanged.connect(self._session_changed)
        bridge.notice.connect(self._show_notice)
        self.connection_bar.connectRequested.connect(self.connectRequested)
        self.hubs.totalUnreadChanged.connect(self._update_title)
        self.needs.countChanged.connect(self._update_title)
        self.hubs.added.connect(self._hub_added)
        self.hubs.removed.connect(lambda _entry: self.remove_hub_action.setEnabled(len(self.hubs.entries) > 1))
        for entry in self.hubs.entries:
            self._hub_added(entry)
        self.timeline_model.modelReset.connect(self._update_placeholder)
        self.room_panel.roomChosen.connect(self.show_room)
        self.room_panel.view.clicked.connect(self._focus_composer)  # after switching rooms, type at once
        self.room_panel.filter.returnPressed.connect(self._focus_composer)
        self.roster.modelReset.connect(lambda: self.composer.set_names(self.roster.names()))
        self.roster.modelReset.connect(self._update_room_title)
        self.timeline.seenChanged.connect(self.read_tracker.set_seen)
        self.timeline.replyRequested.connect(self.composer.set_reply)
        self.timeline.linkRefused.connect(
            lambda href: self.statusBar().showMessage(f"Not opened: {href} (only http, https and mailto links open)", 10_000)
        )
        self.timeline.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        delegate = self.timeline.message_delegate
        delegate.retryRequested.connect(bridge.retry_outbox)
        delegate.discardRequested.connect(bridge.discard_outbox)
        delegate.saveRequested.connect(self.saves.ask)
        self.room_actions.roomReady.connect(self.opener.open_when_listed)
        self.demo_offer.clicked.connect(self.demoRequested)
        self.dispatch.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        self.uploads.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 10_000))
        self.saves.statusMessage.connect(lambda text: self.statusBar().showMessage(text, 10_000))

    # -- hubs -------------------------------------------------------------------------------
    @property
    def rooms(self) -> RoomListModel:
        """The rooms of the hub shown (the first hub before one is)."""
        return (self.shown_hub or self.hubs.entries[0]).rooms

    @property
    def status(self) -> ConnectionStatus:
        """The connection line of the hub shown (the connection bar's)."""
        return (self.shown_hub or self.hubs.entries[0]).status

    def _hub_added(self, entry: HubEntry) -> None:
        rooms = entry.rooms
        shown_hub_title = lambda *_changed: self._update_room_title() if entry is self.shown_hub else None  # noqa: E731
        rooms.reloaded.connect(self._update_placeholder)
        rooms.reloaded.connect(shown_hub_title)
        rooms.reloaded.connect(lambda: self.opener.listed(entry))
        rooms.dataChanged.connect(shown_hub_title)  # e.g. a DM learns its member's name
        entry.changed.connect(self._update_room_title)  # e.g. the hub renamed (another hub's name may show too)
        entry.bridge.sessionChanged.connect(lambda: self._follow(entry) if entry is self.shown_hub else None)
        self.remove_hub_action.setEnabled(len(self.hubs.entries) > 1)
        if self.shown_hub is None:
            self._follow(entry)

    def show_hub(self, entry: HubEntry) -> None:
        """Show ``entry``'s rooms' timeline from now on (the drafts typed so far are handed to
        the store of the hub they belong to first, not waited for: see ``DraftKeeper``)."""
        self.opener.hub_chosen = True
        if entry is not self.shown_hub:
            self.drafts.save_pending()
            self._follow(entry)

    def show_first(self, entry: HubEntry) -> None:
        """Show ``entry`` as the window opens (nothing typed yet to save)."""
        self._follow(entry)

    def _follow(self, entry: HubEntry) -> None:
        """Let the timeline, composer and members follow ``entry``'s session (or none)."""
        if self.shown_hub is not None:
            self.shown_hub.status.changed.disconnect(self.connection_bar.show_status)
        self.shown_hub = entry
        entry.status.changed.connect(self.connection_bar.show_status)
        self.connection_bar.show_status(entry.status.view)
        session = entry.bridge.session
        if session is not None:
            self.bridge.attach(session, entry.bridge.last_state)
        elif self.bridge.session is not None:
            self.bridge.detach()
        self.remove_hub_action.setEnabled(len(self.hubs.entries) > 1)
        self.shownHubChanged.emit(entry)

    def go_to_hub(self, number: int) -> None:
        """Ctrl+Alt+N: the N-th hub's most recent room (the hub itself when it has none)."""
        if not 0 <= number < len(self.hubs.entries):
            return
        entry = self.hubs.entries[number]
        self.room_panel.set_collapsed(entry.url, False)
        first = self.room_panel.first_room(entry.url)
        if first is not None:
            self.room_panel.view.setCurrentIndex(first)
            self._focus_composer()
        else:
            self.show_hub(entry)

    # -- rooms ------------------------------------------------------------------------------
    def show_room(self, hub: str, room: str) -> None:
        """Open ``room`` of the hub ``hub`` (as the settings name it), switching hubs if need be."""
        entry = self.hubs.entry(hub)
        if entry is None:
            return
        if entry is not self.shown_hub:
            self.show_hub(entry)  # (at once: the room opener cannot open the hub's first room in between)
        self.needs_you.hide_queue()
        if room == self.timeline_model.room:
            return
        self.room_panel.shown_room = (hub, room)
        entry.rooms.keep_listed(room)
        self.room_composer.switch_to(room)
        self.composer_focus.enable(self.composer)
        for needs_room in self.room_actions_needing_a_room:
            needs_room.setEnabled(True)
        self.timeline_model.open_room(room)
        self.roster.set_room(room)
        self._update_room_title()

    def _open_join_requests(self) -> None:
        room = self.timeline_model.room
        if room is not None:
            self.room_actions.join_requests(room, self.rooms.label(room))

    def _focus_composer(self, *_index: object) -> None:
        """The room was chosen to be read and answered: the composer takes the keys."""
        self.composer_focus.want()

    @property
    def _hub_named(self) -> str:
        """The shown hub's name where a room could be taken for another hub's (several hubs)."""
        return display_text(self.shown_hub.label) if self.shown_hub is not None and len(self.hubs.entries) > 1 else ""

    def _update_room_title(self, *_changed: object) -> None:
        """The shown room's label, with the hub's room name, kind and size beside it."""
        room = self.timeline_model.room
        self.timeline.setAccessibleName(f"Messages in {self.rooms.label(room)}" if room is not None else "Messages")
        if room is not None:
            shown = self.roster.rowCount() if self.roster.room == room and self.roster.rowCount() else None
            where = f"  ·  {self._hub_named}" if self._hub_named else ""
            self.room_title.set_full_text(self.rooms.description(room, shown) + where)  # the count the members panel shows
            self.room_title.setToolTip(plain_tooltip(room))

    def _update_placeholder(self) -> None:
        no_rooms = self.timeline_model.room is None and self.rooms.rowCount() == 0 and self.bridge.session is not None
        if self.timeline_model.room is not None:
            text = "No messages here yet."
        elif no_rooms:
            where = f" on {self._hub_named}" if self._hub_named else ""
            text = (
                f"No rooms{where} yet.\n\nHub → New room… creates one and gives you a code your agents join with;\n"
                "Hub → Join with a code… takes you into a room an agent invited you to.\n\n"
                "Or first watch scripted agents at work in three rooms:"
            )
        else:
            text = ""
        self.demo_offer.offer(no_rooms)
        if text != self.timeline.placeholder:  # called on every room list reload: repaint only a change
            self.timeline.placeholder = text
            self.timeline.viewport().update()
        painted = text if self.timeline_model.rowCount() == 0 else ""  # (the placeholder shows only then)
        self.timeline.setAccessibleDescription(" ".join(painted.split()))  # a screen reader reads it here

    def _session_changed(self) -> None:
        self.timeline.message_delegate.set_identity(self.bridge.agent_id, self.bridge.name, self.bridge.role)
        self.room_title.set_full_text("")
        self.composer_focus.disable(self.composer)
        for needs_room in self.room_actions_needing_a_room:
            needs_room.setEnabled(False)
        self.room_panel.shown_room = None  # the new session's timeline opens afresh, even the same room

    def _show_notice(self, text: str, _room: str) -> None:
        self.statusBar().showMessage(display_text(text, NOTICE_CHARS), 10_000)  # it may quote the hub

    # -- window state -----------------------------------------------------------------------
    def _update_title(self, *_changed: object) -> None:
        """``Parler — N need you · M unread``, each part only when it is not zero."""
        need, unread = self.needs.count(), self.hubs.total_unread
        parts = ([f"{need} need you"] if need else []) + ([f"{unread} unread"] if unread else [])
        self.setWindowTitle(f"{APP_TITLE} — {' · '.join(parts)}" if parts else APP_TITLE)

    def _toggle_roster(self) -> None:
        self.toggle_roster.setChecked(self.panels.toggle_members())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.panels.resized(self.width())
        self.toggle_roster.setChecked(self.panels.members_shown)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.ActivationChange, QEvent.Type.WindowStateChange):
            active = self.isActiveWindow() and not self.isMinimized()
            self.read_tracker.set_window_active(active)
            self.needs_you.since.window_active(active)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closing.emit()
        super().closeEvent(event)
