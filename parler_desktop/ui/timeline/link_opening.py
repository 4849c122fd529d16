"""Links to messages in the window: "Copy link" on a message, and opening a
``parler://HOST:PORT/room/ROOM/SEQ`` link (clicked in a message, or handed over like an invite
link: ``parler-desktop LINK``, ``--link``, a later launch, ``ui/hubs/invite_links.py``) at its
message, on whichever of the window's hubs it names (that hub is shown first). A link to a hub
the window does not hold offers to add it; nothing is added without a yes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from parler_desktop.app.display_text import NOTICE_CHARS, display_text
from parler_desktop.app.hubs.connection_status import hub_place
from parler_desktop.app.hubs.bridge import SessionBridge
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.client.message_link import MessageLink, message_link, parse_message_link
from parler_desktop.ui.main_window import MainWindow
from parler_desktop.ui.timeline.message_jump import MessageJump


def host_of(link: MessageLink) -> str:
    """The link's hub as a person names it, shown as plain text (it comes from the link)."""
    return display_text(hub_place(link.hub_url))


class LinkOpening(QObject):
    def __init__(
        self, bridge: SessionBridge, window: MainWindow, jump: MessageJump, add_hub: Callable[[str], asyncio.Task[None]]
    ) -> None:
        """``add_hub(url)`` adds (and shows) a hub the human agreed to add: its task ends once the
        window holds it, or the add failed."""
        super().__init__(window)
        self._bridge = bridge
        self._window = window
        self._jump = jump
        self._add_hub = add_hub
        self._waiting: MessageLink | None = None  # opened before its hub's room list was read
        self._adding: str | None = None  # the hub being added for the waiting link: not offered again
        window.timeline.copyLinkRequested.connect(self.copy_link)
        window.timeline.messageLinkOpened.connect(self.open)
        for entry in window.hubs.entries:
            entry.rooms.reloaded.connect(self._rooms_known)
        window.hubs.added.connect(lambda entry: entry.rooms.reloaded.connect(self._rooms_known))

    def copy_link(self, entry: TimelineEntry) -> None:
        if entry.seq is not None and self._bridge.hub_url:
            QGuiApplication.clipboard().setText(message_link(self._bridge.hub_url, entry.room, entry.seq))
            self._say(f"Copied the link to message #{entry.seq}")

    def open(self, href: str) -> QMessageBox | None:
        try:
            link = parse_message_link(href)
        except ValueError as error:
            self._say(f"Cannot open {href}: {error}")
            return None
        self._waiting = link
        box = self._rooms_known()
        if self._waiting is link:  # (said once, as it is opened: a link waits quietly after that)
            self._say(f"That message opens once {host_of(link)} is connected")
        return box

    def _hub_of(self, link: MessageLink) -> HubEntry | None:
        return next((e for e in self._window.hubs.entries if e.bridge.session is not None and e.bridge.session.hub_url == link.hub_url), None)

    def _rooms_known(self) -> QMessageBox | None:
        """Show the waiting link's message once its hub's rooms are known."""
        link, self._waiting = self._waiting, None
        if link is None:
            return None
        entry = self._hub_of(link)
        if entry is None:
            if link.hub_url != self._adding and all(e.bridge.session is not None for e in self._window.hubs.entries):
                return self._offer_to_add(link)  # (a hub down or unreachable is still known by its URL)
            self._waiting = link  # being added, or a hub not started yet (the embedded one): it may be that one
        elif link.room in entry.rooms.room_names():
            self._jump.open(link.room, link.seq, entry.url)
        elif entry.bridge.is_live:
            self._say(f"You are not a member of {link.room}")
        else:
            self._waiting = link
        return None

    def _offer_to_add(self, link: MessageLink) -> QMessageBox:
        host = host_of(link)
        self._say(f"That message is on another hub ({host}), which this window does not hold")
        box = QMessageBox(QMessageBox.Icon.Question, "A message on another hub", "", QMessageBox.StandardButton.Cancel, self._window)
        box.setTextFormat(Qt.TextFormat.PlainText)  # the host comes from the link
        box.setText(f"That message is on {host}, a hub this window does not hold. Add {host} to the window's hubs?")
        add = box.addButton("Add hub", QMessageBox.ButtonRole.AcceptRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._add(link) if button is add else None)
        box.open()
        return box

    def _add(self, link: MessageLink) -> None:
        self._waiting, self._adding = link, link.hub_url  # shown once the added hub's rooms are read
        self._add_hub(link.hub_url).add_done_callback(lambda _task: self._added(link))

    def _added(self, link: MessageLink) -> None:
        """The add is over: a hub it failed to add (it said why) leaves nothing waiting on it."""
        if self._adding == link.hub_url:
            self._adding = None
            if self._waiting == link and self._hub_of(link) is None:
                self._waiting = None
        self._rooms_known()

    def _say(self, text: str) -> None:
        self._window.statusBar().showMessage(display_text(text, NOTICE_CHARS), 10_000)  # it quotes the link
