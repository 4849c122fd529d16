"""The Hub menu's choices of hubs: Connect… (another address for the hub shown), Add a hub…,
Remove this hub…, and a link naming a hub the window does not hold. Each asks (a dialog opened,
never exec()), saves the choice in the settings off the UI thread (each file is fsynced), then
connects, adds, shows or drops the hub through the app."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.app.hubs.local_hub import save_join_secret
from parler_desktop.disk_errors import os_error_text
from parler_desktop.identity import KeyFileError, load_or_create_identity
from parler_desktop.settings import Settings, join_secret_path, load_settings, save_settings
from parler_desktop.ui.dialogs.connect_dialog import ConnectChoice, ConnectDialog
from parler_desktop.ui.dialogs.identity_picker import HubIdentity

if TYPE_CHECKING:  # for the type only: the app is built from this module among others
    from parler_desktop.ui.desktop import DesktopApp


class HubChoices:
    def __init__(self, app: DesktopApp) -> None:
        self._app = app

    def choose(self) -> ConnectDialog:
        """Hub → Connect…: change the shown hub's address (no nested event loop)."""
        return self._dialog(self._app.shown.entry.url, self.switch)

    def add(self) -> ConnectDialog:
        """Hub → Add a hub…: one more hub in the sidebar, kept in the settings."""
        dialog = self._dialog("", self.open)
        dialog.setWindowTitle("Add a Parler hub")
        return dialog

    def _dialog(self, url: str, chosen: Callable[[Settings, ConnectChoice], Coroutine[Any, Any, None]]) -> ConnectDialog:
        settings = load_settings(self._app.home.settings_file).settings
        dialog = ConnectDialog(
            url, settings.display_name, self._app.window, ca_file=settings.hub_ca_files.get(url, ""), home=self._app.home,
            tasks=self._app.bridge.tasks, key_file=settings.hub_key_files.get(url),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._app.bridge.tasks.spawn("connect", chosen(settings, dialog.choice())))
        dialog.open()
        return dialog

    def remove(self, entry: HubEntry | None = None) -> QMessageBox | None:
        """Hub → Remove this hub… (the shown one), or its heading's menu: asks, then closes the
        hub's session and forgets it (its cache and outbox stay on disk, so adding it again finds
        them). The last hub stays."""
        if len(self._app.hubs.entries) < 2:
            self._app.tell("This is the only hub; add another before removing it.")
            return None
        entry = entry or self._app.shown.entry
        box = QMessageBox(QMessageBox.Icon.Question, "Remove this hub", "", QMessageBox.StandardButton.Cancel, self._app.window)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"Remove {display_text(entry.label)} from this window? Its rooms stop showing here; nothing on the hub changes.")
        remove = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: button is remove and self._app.bridge.tasks.spawn("remove hub", self._remove(entry)))
        box.open()
        return box

    async def _remove(self, entry: HubEntry) -> None:
        settings = load_settings(self._app.home.settings_file).settings
        try:
            await asyncio.to_thread(save_settings, self._app.home.settings_file, settings.without_hub(entry.url))
        except OSError as error:
            self._app.tell(f"Could not save the settings: {os_error_text(error)}")
            return
        if entry is self._app.window.shown_hub:
            self._app.window.show_hub(next(other for other in self._app.hubs.entries if other is not entry))
        await self._app.connectors.pop(entry).drop()
        self._app.hubs.remove(entry)

    async def switch(self, settings: Settings, choice: ConnectChoice) -> None:
        """The shown hub takes the chosen address (or the window shows the hub that has it):
        save the choice (off the UI thread: each file is fsynced), then connect to it."""
        held = self._app.entry_for(choice.hub_url)
        if held is not None and held is not self._app.window.shown_hub:
            self._app.window.show_hub(held)
            return
        old = self._app.shown.entry.url
        if old in settings.hubs:
            chosen = dataclasses.replace(settings, hubs=tuple(dict.fromkeys(choice.hub_url if url == old else url for url in settings.hubs)))
        else:  # a hub held for this run only (its save failed): the choice comes first, as it did
            chosen = settings.with_hub(choice.hub_url, first=True)
        if await self._save(chosen, choice):
            self._app.hub_override = None
            await self._app.connect(choice.hub_url)

    def add_for_link(self, url: str) -> asyncio.Task[None]:
        """Add the hub a message link names; the task ends once the window holds it (or the add
        failed and said why)."""
        settings = load_settings(self._app.home.settings_file).settings
        choice = ConnectChoice(hub_url=url, display_name=settings.display_name, join_secret=None)
        return self._app.bridge.tasks.spawn("add hub", self.open(settings, choice))

    async def open(self, settings: Settings, choice: ConnectChoice) -> None:
        """Show the chosen hub: the one the window holds, else a new one (saved, connected)."""
        held = self._app.entry_for(choice.hub_url)
        if held is None and await self._save(settings.with_hub(choice.hub_url), choice):
            held = self._app.hubs.add(choice.hub_url)
            await self._app.connectors[held].connect()
        if held is not None:
            self._app.window.show_hub(held)

    async def _save(self, settings: Settings, choice: ConnectChoice) -> bool:
        """Save ``settings`` with the choice's name, CA file, join secret (that hub's own) and
        identity (a hub's own is made now, 0600 from its first byte, or found where it was)."""
        ca_files = {url: path for url, path in settings.hub_ca_files.items() if url != choice.hub_url}
        if choice.ca_file:
            ca_files[choice.hub_url] = choice.ca_file
        chosen = dataclasses.replace(settings, display_name=choice.display_name, hub_ca_files=ca_files)
        key_file = choice.key_file_for(self._app.home)
        if choice.identity is not None:
            chosen = chosen.with_key_file(choice.hub_url, None if key_file is None else str(key_file))

        def save() -> None:
            if choice.identity is HubIdentity.OWN:
                load_or_create_identity(key_file)
            if choice.join_secret is not None:
                save_join_secret(self._app.home, choice.join_secret, join_secret_path(self._app.home, chosen, choice.hub_url))
            save_settings(self._app.home.settings_file, chosen)

        try:
            await asyncio.to_thread(save)
        except KeyFileError as error:
            self._app.tell(str(error))
            return False
        except OSError as error:
            self._app.tell(f"Could not save the settings: {os_error_text(error)}")
            return False
        return True
