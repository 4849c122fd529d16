"""The running desktop app: which hub, which session, the window, and an orderly shutdown.

With no hub configured it starts the embedded hub (off the UI thread) and connects to it; the
Connect dialog switches to any hub and the choice is saved in the settings. Everything that can
go wrong on the way (key file, store, address, secret file, port) is shown as a sentence.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path

from PySide6.QtCore import Qt

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.local_hub import save_join_secret, start_local_hub
from parler_desktop.app.hubs.network_watch import NetworkWatch
from parler_desktop.app.hubs.sleep_watch import SleepWatch
from parler_desktop.autostart import sync_autostart
from parler_desktop.client.session import HubSession
from parler_desktop.demo.plan import DEMO_FAILURES, DemoPlan
from parler_desktop.disk_errors import has_room_near, os_error_text
from parler_desktop.hub import EmbeddedHub, HubDatabaseError
from parler_desktop.identity import KeyFileError
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, load_settings, read_join_secret, save_settings
from parler_desktop.store import LocalStore, StoreError
from parler_desktop.ui.attention.attention import Attention
from parler_desktop.ui.dialogs.connect_agents_dialog import ConnectAgentsDialog
from parler_desktop.ui.dialogs.connect_dialog import ConnectChoice, ConnectDialog
from parler_desktop.ui.error_report import ErrorReport, open_folder
from parler_desktop.ui.idle_collector import IdleCollector
from parler_desktop.ui.hubs.invite_links import InviteLinks
from parler_desktop.ui.timeline.link_opening import LinkOpening
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.search.search import Search

log = logging.getLogger(__name__)
SHUTDOWN_SECS = 5.0  # closing the window ends the process within this, whatever is in flight

REOPEN_CHECK_SECS = 2.0  # how often a read-only window checks whether the disk has room again


class DesktopApp:
    def __init__(self, home: Home, hub_url: str | None = None, demo: DemoPlan | None = None, link: str | None = None) -> None:
        self.home = home.ensure()
        self.hub_override = hub_url
        self.demo = demo  # started once connected (parler-desktop demo)
        self.link = link  # an invite or message link from the command line, opened once connected
        self.bridge = SessionBridge()
        self.window = MainWindow(self.bridge)
        self.network = NetworkWatch(self.bridge, self.window)
        self.sleep = SleepWatch(self.bridge, self.window)
        self.attention = Attention(self.home, self.bridge, self.window)
        self.search = Search(self.bridge, self.window, self.attention.jump)
        self.message_links = LinkOpening(self.bridge, self.window, self.attention.jump)
        self.local_hub: EmbeddedHub | None = None
        self._demo_tasks: set[asyncio.Task] = set()
        self._closed = asyncio.get_event_loop().create_future()
        self.window.closing.connect(lambda: self._closed.done() or self._closed.set_result(None))
        self.window.connectRequested.connect(self.choose_hub)
        self.window.connectAgentsRequested.connect(
            lambda: self.bridge.tasks.spawn("connect agents", self.connect_agents())
        )
        self.window.openLogFolderRequested.connect(lambda: open_folder(self.home.log_dir))
        self.window.demoRequested.connect(lambda: self.start_demo(DemoPlan()))
        self.errors = ErrorReport(self.window, self.home.log_dir)
        self.errors.install()
        self.links = InviteLinks(self.window, self.bridge, self.home, self._switch_hub, self.window.room_actions.join)
        self.links.messageLinkOpened.connect(self.message_links.open)
        self.links.instances.demoRequested.connect(lambda: self.start_demo(DemoPlan()))
        self.window.connection_bar.retryRequested.connect(self._retry_connect)
        self.window.connection_bar.freshCacheRequested.connect(
            lambda: self.bridge.tasks.spawn("fresh cache", self.start_fresh_cache())
        )
        self.bridge.storeFailed.connect(self._store_failed)
        self.collector = IdleCollector(self.window)  # started by the gui command (it is process-wide)
        self.bridge.messagesStored.connect(self.collector.activity)
        self._hub_url: str | None = None  # what connect() was last asked for ("" = embedded)
        self._damaged_store: Path | None = None  # the cache "Start with a fresh cache" replaces
        self._room_watch: tuple[HubSession, asyncio.Task] | None = None  # a read-only session waiting for disk room

    def quit(self) -> None:
        """Close the window for good (never just to the tray); run() then shuts down in order."""
        self.attention.quit()

    async def run(self) -> None:
        """Show the window, connect, and return once the window is closed and all is shut down."""
        self.links.listen()
        self.window.show()
        await self.attention.start()
        loaded = load_settings(self.home.settings_file)
        if loaded.problem:
            self._tell(loaded.problem)
        try:
            await asyncio.to_thread(sync_autostart, loaded.settings.start_at_login, self.home)
        except OSError as error:
            self._tell(f"Could not update the start-at-login entry: {error}")
        url = self.hub_override if self.hub_override is not None else loaded.settings.hub_url
        if self.hub_override is not None and self.hub_override != loaded.settings.hub_url:
            try:
                await asyncio.to_thread(
                    save_settings, self.home.settings_file, dataclasses.replace(loaded.settings, hubs=(self.hub_override,))
                )
            except OSError as error:  # e.g. a full disk: the window still starts, saying so
                self._tell(f"Could not save the settings ({os_error_text(error)}); this hub is used for this run only.")
        if await self.connect(url) and self.demo is not None:
            self.start_demo(self.demo)
        if self.link is not None:
            self.links.open(self.link)
        await self._closed
        try:
            await asyncio.wait_for(self.shutdown(), SHUTDOWN_SECS)
        except TimeoutError:  # the process ends anyway: the embedded hub runs on a daemon thread
            log.warning("shutting down took longer than %s s; quitting anyway", SHUTDOWN_SECS)

    async def connect(self, hub_url: str) -> bool:
        """Attach a session for ``hub_url`` ("" = the embedded hub); False (and a message) on failure."""
        await self._drop_session()
        self._hub_url, self._damaged_store = hub_url, None
        self.window.connection_bar.offer_fresh_cache(False)
        try:
            if not hub_url:
                if self.local_hub is None:
                    self.local_hub = await asyncio.to_thread(start_local_hub, self.home)
                hub_url = self.local_hub.url
            session = await HubSession.open(self.home, hub_url)
        except StoreError as error:
            self.window.status.show_problem(f"Could not connect: {error}", can_retry=True)
            self._offer_fresh_cache(error)
            return False
        except OSError as error:
            self.window.status.show_problem(f"Could not connect: {os_error_text(error)}", can_retry=True)
            return False
        except HubDatabaseError as error:  # the embedded hub's database: a full disk, another hub
            self.window.status.show_problem(f"Could not start the local hub: {error}", can_retry=True)
            return False
        except (KeyFileError, ValueError) as error:
            self.window.status.show_problem(f"Could not connect: {error}", can_retry=True)
            return False
        self.bridge.attach(session)
        session.start()
        return True

    def _store_failed(self, error: StoreError) -> None:
        """The session stopped on its store (it waits for Retry now, or after a full disk for room
        again): say why, offer the way out. A session whose store is read-only (a full disk)
        shows the cache and reopens by itself once the disk has room again."""
        self._tell(str(error))
        self._offer_fresh_cache(error)
        session = self.bridge.session
        if session is None or session.read_only is None:
            return
        self.window.status.show_problem(f"Read-only: {error}", can_retry=True)
        watch = self._room_watch  # one per session: a session opened since (Retry now) needs its own
        if watch is None or watch[0] is not session or watch[1].done():
            self._room_watch = (session, self.bridge.tasks.spawn("reopen", self._reopen_when_there_is_room(session)))

    async def _reopen_when_there_is_room(self, session: HubSession) -> None:
        while self.bridge.session is session and self._hub_url is not None:
            await asyncio.sleep(REOPEN_CHECK_SECS)
            if self.bridge.session is session and has_room_near(session.store.path):
                await self.connect(self._hub_url)
                return

    def _offer_fresh_cache(self, error: StoreError) -> None:
        if error.fresh_cache_fixes:
            self._damaged_store = error.path
            self.window.connection_bar.offer_fresh_cache(True)

    def _retry_connect(self) -> None:
        """Retry now with no session, or a read-only one: open it again (e.g. once disk space was
        freed)."""
        session = self.bridge.session
        if (session is None or session.read_only is not None) and self._hub_url is not None:
            self.bridge.tasks.spawn("connect", self.connect(self._hub_url))

    async def start_fresh_cache(self) -> None:
        """Set the damaged cache aside (kept, named in the message), keep its unsent messages,
        and connect again: the cache refills from the hub and the kept messages are sent."""
        damaged, hub_url = self._damaged_store, self._hub_url
        if damaged is None or hub_url is None:
            return
        await self._drop_session()  # the session's store must be closed before its file moves
        try:
            fresh = await asyncio.to_thread(LocalStore.start_fresh, damaged)
        except StoreError as error:
            self.window.status.show_problem(f"Could not start a fresh cache: {error}", can_retry=True)
            return
        if await self.connect(hub_url):
            recovered = f" {fresh.outbox_recovery.text}" if fresh.outbox_recovery else ""
            self._tell(
                f"Started with a fresh cache; the damaged one is kept as {fresh.moved_to}. "
                f"{fresh.kept_unsent} unsent message(s) will be sent.{recovered}"
            )

    def start_demo(self, plan: DemoPlan) -> None:
        """Scripted agents (or a load generator) on the hub this window is connected to; they
        invite the human into their rooms through this session."""
        if self.bridge.session is not None and not self.bridge.tasks.tasks & self._demo_tasks:
            self._demo_tasks = {self.bridge.tasks.spawn("demo", self._play_demo(plan))}

    async def _play_demo(self, plan: DemoPlan) -> None:
        self.window.demo_offer.offer(False)
        try:
            settings = load_settings(self.home.settings_file).settings
            secret = await asyncio.to_thread(read_join_secret, self.home, settings)
            summary = await plan.run(self.bridge.hub_url, self.bridge.name, self.bridge.redeem, self.home.data_dir / "demo", secret)
        except DEMO_FAILURES as error:
            self._tell(f"The demo stopped: {error}")
            return
        self._tell(f"Demo finished: {summary}", logging.INFO)

    def choose_hub(self) -> ConnectDialog:
        """Open the Connect dialog (no nested event loop); Connect switches to the chosen hub."""
        settings = load_settings(self.home.settings_file).settings
        dialog = ConnectDialog(
            settings.hub_url, settings.display_name, self.window, ca_file=settings.hub_ca_files.get(settings.hub_url, "")
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.bridge.tasks.spawn("connect", self._switch_hub(settings, dialog.choice())))
        dialog.open()
        return dialog

    async def connect_agents(self) -> ConnectAgentsDialog:
        """Open Hub → Connect your agents… for the hub this window is on, with the join secret the
        window presents to it (none for the embedded hub, which admits anyone on this machine)."""
        secret: str | None = None
        if self.local_hub is None or self.bridge.hub_url != self.local_hub.url:
            try:  # both reads off the UI thread
                secret = await asyncio.to_thread(lambda: read_join_secret(self.home, load_settings(self.home.settings_file).settings))
            except OSError as error:
                self._tell(f"Could not read the join secret: {os_error_text(error)}")
        dialog = ConnectAgentsDialog(self.bridge, secret, self.window.rooms.room_names, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    async def _switch_hub(self, settings: Settings, choice: ConnectChoice) -> None:
        """Save the choice (off the UI thread: each file is fsynced), then connect to it."""
        try:
            await asyncio.to_thread(self._save_choice, settings, choice)
        except OSError as error:
            self._tell(f"Could not save the settings: {os_error_text(error)}")
            return
        self.hub_override = None
        await self.connect(choice.hub_url)

    def _save_choice(self, settings: Settings, choice: ConnectChoice) -> None:
        if choice.join_secret is not None:
            save_join_secret(self.home, choice.join_secret)
        ca_files = {url: path for url, path in settings.hub_ca_files.items() if url != choice.hub_url}
        if choice.ca_file:
            ca_files[choice.hub_url] = choice.ca_file
        save_settings(
            self.home.settings_file,
            dataclasses.replace(
                settings, hubs=(choice.hub_url,), display_name=choice.display_name, hub_ca_files=ca_files
            ),
        )

    async def _drop_session(self) -> None:
        if self.bridge.session is not None:
            await self.window.drafts.flush()  # before the store closes
        session = self.bridge.detach() if self.bridge.session is not None else None
        if session is not None:
            await session.stop()

    async def shutdown(self) -> None:
        self.collector.stop()
        await self.attention.stop()
        self.errors.uninstall()
        self.links.close()
        await self._drop_session()
        await self.bridge.tasks.cancel_all()
        if self.local_hub is not None:
            hub, self.local_hub = self.local_hub, None
            await asyncio.to_thread(hub.stop)

    def _tell(self, text: str, level: int = logging.WARNING) -> None:
        log.log(level, "%s", text)
        self.bridge.notice.emit(text, "")
