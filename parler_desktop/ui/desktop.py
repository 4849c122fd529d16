"""The running desktop app: which hubs, their sessions, the window, and an orderly shutdown.

The window holds every hub of the settings (``--hub`` adds more); each has a session of its own
(``ui/hubs/hub_connector.py`` opens it and says what went wrong on that hub's line only). With
no hub configured it starts the embedded hub (off the UI thread) and connects to it. Hub →
Connect…, Add a hub… and Remove this hub… are ``ui/hubs/hub_choices.py``'s; the list is saved in
the settings.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from PySide6.QtCore import Qt

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.app.hubs.local_hub import start_local_hub
from parler_desktop.app.hubs.network_watch import NetworkWatch
from parler_desktop.app.hubs.sleep_watch import SleepWatch
from parler_desktop.platform.autostart import sync_autostart
from parler_desktop.platform.secrets import discover_credential_store_now
from parler_desktop.client.address import normalize_hub_url
from parler_desktop.demo.plan import DEMO_FAILURES, DemoPlan
from parler_desktop.disk_errors import os_error_text
from parler_desktop.hub import EmbeddedHub
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, load_settings, read_join_secret, save_settings
from parler_desktop.ui.agents.agents_hookup import AgentsHookup
from parler_desktop.ui.appearance.saved_scheme import SavedScheme
from parler_desktop.ui.attention.attention import Attention
from parler_desktop.ui.dialogs.connect_agents_dialog import ConnectAgentsDialog
from parler_desktop.ui.error_report import ErrorReport, open_folder
from parler_desktop.ui.hubs.hub_choices import HubChoices
from parler_desktop.ui.hubs.hub_connector import HubConnector
from parler_desktop.ui.hubs.hub_rename import HubRename
from parler_desktop.ui.room_list.room_order import RoomOrder
from parler_desktop.ui.hubs.hub_retention import HubRetention
from parler_desktop.ui.idle_collector import IdleCollector
from parler_desktop.ui.hubs.invite_links import InviteLinks
from parler_desktop.ui.timeline.link_opening import LinkOpening
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.search.search import Search
from parler_desktop.ui.window_place import WindowPlace, window_state_path
from parler_desktop.window_state import WindowState, load_window_state

log = logging.getLogger(__name__)
SHUTDOWN_SECS = 5.0  # closing the window ends the process within this, whatever is in flight



def dialed(hub_url: str) -> str:
    """The address a session for ``hub_url`` dials ("" for the embedded hub or an address that
    cannot be dialed: connecting to it says why)."""
    try:
        return normalize_hub_url(hub_url) if hub_url else ""
    except ValueError:
        return ""


class DesktopApp:
    def __init__(
        self, home: Home, hub_url: str | None = None, demo: DemoPlan | None = None, link: str | None = None,
        more_hubs: Sequence[str] = (),
    ) -> None:
        """``hub_url`` (None: the settings' first hub) is shown first and remembered, and so is
        every one of ``more_hubs``, after the hubs the settings hold."""
        discover_credential_store_now()  # the sessions' identities need it first (~0.2 s, once a process)
        self.home = home.ensure()
        self.hub_override = hub_url
        self.more_hubs = tuple(more_hubs)
        self.demo = demo  # started once connected (parler-desktop demo)
        self.link = link  # an invite or message link from the command line, opened once connected
        self.hubs = HubList()
        self.connectors: dict[HubEntry, HubConnector] = {}
        self.bridge = SessionBridge()  # the shown hub's session, for the timeline, composer and members
        self.collector = IdleCollector()  # started by the gui command (it is process-wide)
        self.hubs.added.connect(self._hub_added)
        self.hubs.add(hub_url if hub_url is not None else "")  # its address is settled in run()
        self.window = MainWindow(self.bridge, self.hubs)
        self.collector.setParent(self.window)
        self.attention = Attention(self.home, self.bridge, self.window)
        self.search = Search(self.window, self.attention.jump)
        self.agents = AgentsHookup(self.window, self.attention.agents)
        self.hub_choices = HubChoices(self)
        self.message_links = LinkOpening(self.bridge, self.window, self.attention.jump, self.hub_choices.add_for_link)
        self.local_hub: EmbeddedHub | None = None
        self._demo_tasks: set[asyncio.Task] = set()
        self._closed = asyncio.get_event_loop().create_future()
        self.window.closing.connect(lambda: self._closed.done() or self._closed.set_result(None))
        self.window.connectRequested.connect(self.hub_choices.choose)
        self.window.addHubRequested.connect(self.hub_choices.add)
        self.window.removeHubRequested.connect(lambda: self.hub_choices.remove())
        self.attention.room_menu.retryRequested.connect(lambda entry: self.connectors[entry].retry())
        self.attention.room_menu.removeRequested.connect(self.hub_choices.remove)
        self.saved_scheme = SavedScheme(self.window.appearance, self.home, self.bridge.tasks, self.tell)
        self.hub_rename = HubRename(self.window, self.home, self.bridge.tasks, self.tell)
        self.attention.room_menu.renameRequested.connect(self.hub_rename.ask)
        self.room_order = RoomOrder(self.home, self.bridge.tasks, self.tell)
        self.attention.room_menu.sortRequested.connect(self.room_order.choose)
        self.hub_retention = HubRetention(self.window, self.home, self.bridge.tasks, self.tell)
        self.attention.room_menu.keepRequested.connect(self.hub_retention.ask)
        self.attention.room_menu.freshCacheRequested.connect(
            lambda entry: self.bridge.tasks.spawn("fresh cache", self.start_fresh_cache(entry))
        )
        self.window.connectAgentsRequested.connect(
            lambda: self.bridge.tasks.spawn("connect agents", self.connect_agents())
        )
        self.window.openLogFolderRequested.connect(self.open_log_folder)
        self.window.demoRequested.connect(lambda: self.start_demo(DemoPlan()))
        self.errors = ErrorReport(self.window, self.home.log_dir, self.open_log_folder)
        self.errors.install()
        self.place = WindowPlace(window_state_path(self.home), self.window, self.bridge.tasks)
        self.links = InviteLinks(
            self.window, self.bridge, self.home, self.hub_choices.open, lambda url: self.entry_for(url) is not None,
            self.window.room_actions.join,
        )
        self.links.messageLinkOpened.connect(self.message_links.open)
        self.links.instances.demoRequested.connect(lambda: self.start_demo(DemoPlan()))
        self.window.connection_bar.retryRequested.connect(lambda: self.shown.retry())
        self.window.connection_bar.freshCacheRequested.connect(
            lambda: self.bridge.tasks.spawn("fresh cache", self.start_fresh_cache())
        )
        self.window.shownHubChanged.connect(self._offer_fresh_cache)

    # -- the hubs ---------------------------------------------------------------------------
    @property
    def shown(self) -> HubConnector:
        """The connector of the hub the window shows."""
        return self.connectors[self.window.shown_hub or self.hubs.entries[0]]

    def _hub_added(self, entry: HubEntry) -> None:
        self.connectors[entry] = HubConnector(entry, self.home, self._embedded_url, self._before_drop, self.tell)
        NetworkWatch(entry.bridge, entry)  # (each lives as long as its hub: the entry is its parent)
        SleepWatch(entry.bridge, entry)
        entry.bridge.messagesStored.connect(self.collector.activity)
        entry.changed.connect(lambda: self._offer_fresh_cache() if entry is self.window.shown_hub else None)

    async def _embedded_url(self) -> str:
        if self.local_hub is None:
            self.local_hub = await asyncio.to_thread(start_local_hub, self.home)
        return self.local_hub.url

    async def _before_drop(self, entry: HubEntry) -> None:
        """Before the store closes: what the human did is written (``SessionBridge.keep``, and
        the drafts: those handed to this hub's store when the window switched away from it may
        still be on their way; the shown hub's pending ones are saved now)."""
        await self.window.drafts.flush()
        await entry.bridge.writes.finish_all()

    def _offer_fresh_cache(self, *_entry: object) -> None:
        self.window.connection_bar.offer_fresh_cache(self.shown.entry.damaged_store is not None)

    def open_log_folder(self) -> None:
        """Help → Open log folder; where the desktop has no file manager for it, the window says
        so (and where the folder is)."""
        if not open_folder(self.home.log_dir):
            self.tell(f"Could not open the log folder {self.home.log_dir}: no file manager answered; open it yourself")

    def quit(self) -> None:
        """Close the window for good (never just to the tray); run() then shuts down in order."""
        self.attention.quit()

    async def run(self) -> None:
        """Show the window, connect every hub, and return once the window is closed and all is
        shut down."""
        self.links.listen()
        self.window.show()
        await self.attention.start()
        loaded = load_settings(self.home.settings_file)
        if loaded.problem:
            self.tell(loaded.problem)
        try:
            await asyncio.to_thread(sync_autostart, loaded.settings.start_at_login, self.home)
        except OSError as error:
            self.tell(f"Could not update the start-at-login entry: {error}")
        settings = loaded.settings
        for url in self.more_hubs:
            settings = settings.with_hub(url)
        if self.hub_override is not None:
            settings = settings.with_hub(self.hub_override, first=True)
        if settings != loaded.settings:
            try:
                await asyncio.to_thread(save_settings, self.home.settings_file, settings)
            except OSError as error:  # e.g. a full disk: the window still starts, saying so
                self.tell(f"Could not save the settings ({os_error_text(error)}); these hubs are used for this run only.")
        place = await asyncio.to_thread(load_window_state, window_state_path(self.home))
        shown = self._hold_hubs(settings, place)
        self.place.restore(place)
        for entry in self.hubs.entries:  # opened beside the shown hub's, not after (their stores, keys)
            if entry is not shown:
                self.connectors[entry].tasks.spawn("connect", self.connectors[entry].connect())
        first_ok = await self.shown.connect()
        if first_ok and self.demo is not None:
            self.start_demo(self.demo)
        if self.link is not None:
            self.links.open(self.link)
        await self._closed
        try:
            await asyncio.wait_for(self.shutdown(), SHUTDOWN_SECS)
        except TimeoutError:  # the process ends anyway: the embedded hub runs on a daemon thread
            log.warning("shutting down took longer than %s s; quitting anyway", SHUTDOWN_SECS)

    def _hold_hubs(self, settings: Settings, place: WindowState) -> HubEntry:
        """Hold the settings' hubs in their order and show the one chosen on the command line,
        else the one shown when the window last closed, else the first."""
        first = self.hubs.entries[0]  # (made before the settings were read)
        if first.url != settings.hubs[0]:
            first.url = settings.hubs[0]
            first.changed.emit()
        for url in settings.hubs[1:]:
            self.hubs.add(url)
        for entry in self.hubs.entries:
            entry.rename(settings.hub_names.get(entry.url, ""))
        self.room_order.restore(self.hubs, settings)
        wanted = self.hub_override if self.hub_override is not None else place.hub
        shown = self.hubs.entry(wanted) if wanted is not None else None
        self.window.show_first(shown or first)
        return shown or first

    async def connect(self, hub_url: str) -> bool:
        """Connect the shown hub to ``hub_url`` ("" = the embedded hub) (or show the hub that has
        it, when another entry holds it); False (and a message) on failure."""
        held = self.entry_for(hub_url)
        if held is not None and held is not self.window.shown_hub:
            self.window.show_hub(held)
            return held.bridge.session is not None
        self._offer_fresh_cache()
        return await self.shown.connect(hub_url)

    def entry_for(self, hub_url: str) -> HubEntry | None:
        """The entry holding ``hub_url``, as configured or as its session dials it."""
        wanted = dialed(hub_url)
        for entry in self.hubs.entries:
            session = entry.bridge.session
            if entry.url == hub_url or (wanted and wanted in (dialed(entry.url), session.hub_url if session else None)):
                return entry
        return None

    async def start_fresh_cache(self, entry: HubEntry | None = None) -> None:
        """Start the hub ``entry`` (default: the shown one) with a fresh cache."""
        told = await (self.connectors[entry] if entry is not None else self.shown).start_fresh_cache()
        self._offer_fresh_cache()
        if told is not None:
            self.tell(told)

    def start_demo(self, plan: DemoPlan) -> None:
        """Scripted agents (or a load generator) on the hub shown; they invite the human into
        their rooms through that hub's session."""
        if self.bridge.session is not None and not self.bridge.tasks.tasks & self._demo_tasks:
            self._demo_tasks = {self.bridge.tasks.spawn("demo", self._play_demo(plan))}

    async def _play_demo(self, plan: DemoPlan) -> None:
        self.window.demo_offer.offer(False)
        try:
            settings = load_settings(self.home.settings_file).settings
            secret = await asyncio.to_thread(read_join_secret, self.home, settings, self._shown_url_or_none(settings))
            summary = await plan.run(self.bridge.hub_url, self.bridge.name, self.bridge.redeem, self.home.data_dir / "demo", secret)
        except DEMO_FAILURES as error:
            self.tell(f"The demo stopped: {error}")
            return
        self.tell(f"Demo finished: {summary}", logging.INFO)

    def _shown_url_or_none(self, settings: Settings) -> str | None:
        """The shown hub's address as the settings hold it (None: the first hub's)."""
        url = self.shown.entry.url
        return None if url == settings.hub_url else url

    async def connect_agents(self) -> ConnectAgentsDialog:
        """Open Hub → Connect your agents… for the hub shown, with the join secret the window
        presents to it (none for the embedded hub, which admits anyone on this machine)."""
        secret: str | None = None
        if self.shown.entry.url:
            try:  # both reads off the UI thread
                settings = await asyncio.to_thread(lambda: load_settings(self.home.settings_file).settings)
                secret = await asyncio.to_thread(read_join_secret, self.home, settings, self._shown_url_or_none(settings))
            except OSError as error:
                self.tell(f"Could not read the join secret: {os_error_text(error)}")
        dialog = ConnectAgentsDialog(self.bridge, secret, self.window.rooms.room_names, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    async def shutdown(self) -> None:
        self.collector.stop()
        self.window.appearance.schemes.stop_following()
        await self.place.save_for_good()
        await self.attention.stop()
        self.errors.uninstall()
        self.links.close()
        for entry in self.hubs.entries:  # first: a hub still connecting attaches no session after its drop
            await entry.bridge.tasks.cancel_all()
        for connector in list(self.connectors.values()):
            await connector.drop()
        await self.bridge.tasks.cancel_all()
        if self.local_hub is not None:
            hub, self.local_hub = self.local_hub, None
            await asyncio.to_thread(hub.stop)

    def tell(self, text: str, level: int = logging.WARNING) -> None:
        log.log(level, "%s", text)
        self.bridge.notice.emit(text, "")
