"""Links to messages in the window: "Copy link" on a message, and opening a
``parler://HOST:PORT/room/ROOM/SEQ`` link (clicked in a message, or handed over like an invite
link: ``parler-desktop LINK``, ``--link``, a later launch, ``ui/hubs/invite_links.py``) at its message. A link to another hub says so instead of switching hubs behind the human's back."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.client.message_link import MessageLink, message_link, parse_message_link
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.timeline.message_jump import MessageJump


class LinkOpening(QObject):
    def __init__(self, bridge: SessionBridge, window: MainWindow, jump: MessageJump) -> None:
        super().__init__(window)
        self._bridge = bridge
        self._window = window
        self._jump = jump
        self._waiting: MessageLink | None = None  # opened before the room list was read
        window.timeline.copyLinkRequested.connect(self.copy_link)
        window.timeline.messageLinkOpened.connect(self.open)
        window.rooms.reloaded.connect(self._rooms_known)

    def copy_link(self, entry: TimelineEntry) -> None:
        if entry.seq is not None and self._bridge.hub_url:
            QGuiApplication.clipboard().setText(message_link(self._bridge.hub_url, entry.room, entry.seq))
            self._say(f"Copied the link to message #{entry.seq}")

    def open(self, href: str) -> None:
        try:
            link = parse_message_link(href)
        except ValueError as error:
            self._say(f"Cannot open {href}: {error}")
            return
        if self._bridge.hub_url and link.hub_url != self._bridge.hub_url:
            self._say(f"That message is on another hub ({link.hub_url}); connect to it first (Hub → Connect…)")
            return
        if not self._bridge.hub_url or link.room not in self._window.rooms.room_names():
            self._waiting = link  # the room list (or the session) is not there yet
            if self._bridge.is_live:
                self._rooms_known()
            return
        self._waiting = None
        self._jump.open(link.room, link.seq)

    def _rooms_known(self) -> None:
        link, self._waiting = self._waiting, None
        if link is None:
            return
        if link.room in self._window.rooms.room_names():
            self._jump.open(link.room, link.seq)
        elif self._bridge.is_live:
            self._say(f"You are not a member of {link.room}")
        else:
            self._waiting = link

    def _say(self, text: str) -> None:
        self._window.statusBar().showMessage(text, 10_000)
