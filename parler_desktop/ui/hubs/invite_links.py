"""Invite links from outside the window, and later launches of the app on the same home.

Three ways in, one way on: a ``parler://`` link on the command line, a later launch handing its
request over the single-instance channel (``app/hubs/instance_channel.py``), or macOS's "open URL"
event. Each raises the window and asks (``invite_prompt.py``), naming the host, before anything
is joined; a link to another hub switches the window to it first, as Connect… would.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QMainWindow

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.instance_channel import InstanceServer, channel_name
from parler_desktop.client.address import parse_invite
from parler_desktop.client.message_link import is_message_link
from parler_desktop.paths import Home
from parler_desktop.settings import Settings, load_settings
from parler_desktop.ui.dialogs.connect_dialog import ConnectChoice
from parler_desktop.ui.dialogs import invite_prompt
from parler_desktop.ui.dialogs.invite_prompt import OpenUrlEvents, ask_to_join
from parler_desktop.ui.timeline.message_jump import bring_forward

log = logging.getLogger(__name__)

OpenHub = Callable[[Settings, ConnectChoice], Awaitable[None]]  # show that hub, added first if not held
JoinRoom = Callable[[str], Awaitable[None]]  # redeem a code, say how it went, open the room


class InviteLinks(QObject):
    messageLinkOpened = Signal(str)  # a link to a message (``parler://…/room/ROOM/SEQ``), not an invite

    def __init__(
        self, window: QMainWindow, bridge: SessionBridge, home: Home, open_hub: OpenHub, holds: Callable[[str], bool],
        join_room: JoinRoom,
    ) -> None:
        """``holds(url)``: whether the window holds that hub already."""
        super().__init__(window)
        self._window = window
        self._bridge = bridge
        self._home = home
        self._open_hub = open_hub
        self._holds = holds
        self._join_room = join_room
        self.instances = InstanceServer(channel_name(home), self)
        self.instances.raiseRequested.connect(self.raise_window)
        self.instances.linkRequested.connect(self.open)
        self._url_events = OpenUrlEvents(self)
        self._url_events.linkOpened.connect(self.open)
        if invite_prompt.LINKS_COME_AS_EVENTS:
            QApplication.instance().installEventFilter(self._url_events)

    def listen(self) -> None:
        if not self.instances.listen():
            log.warning("later launches cannot reach this window: no single-instance channel")

    def close(self) -> None:
        self.instances.close()
        QApplication.instance().removeEventFilter(self._url_events)

    def raise_window(self) -> None:
        """A later launch asked for the window: bring it to the front instead of a second one."""
        bring_forward(self._window)

    def open(self, link: str) -> None:
        """Ask, naming the host and who joins, then join (after a hub switch if the link says so).
        A link to a message is passed on to be shown instead."""
        self.raise_window()
        if is_message_link(link):
            self.messageLinkOpened.emit(link)
            return
        try:
            invite = parse_invite(link)
        except ValueError as error:
            self._tell(f"Not an invite link: {error}", logging.WARNING)
            return
        current = self._bridge.hub_url or None
        target = invite.hub_url or current
        if target is None:
            self._tell("The invite link names no hub and the window is not connected to one.", logging.WARNING)
            return
        settings = load_settings(self._home.settings_file).settings
        ask_to_join(
            self._window, urlsplit(target).netloc, self._bridge.name or settings.display_name, not self._holds(target),
            lambda: self._bridge.tasks.spawn("join", self._join(settings, target, invite.code)),
        )

    async def _join(self, settings: Settings, hub_url: str, code: str) -> None:
        if hub_url != self._bridge.hub_url:
            await self._open_hub(settings, ConnectChoice(hub_url=hub_url, display_name=settings.display_name, join_secret=None))
        await self._join_room(code)  # as Hub → Join with a code… does

    def _tell(self, text: str, level: int) -> None:
        log.log(level, "%s", text)
        self._bridge.notice.emit(text, "")
