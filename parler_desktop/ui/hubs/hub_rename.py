"""Rename… on a hub's heading: what this window calls the hub ("Team", "Acme shared") instead of
its address, in the sidebar, the title of the open room, notifications and the tray. The name is
the human's, kept in the settings; the hub knows nothing of it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLabel, QWidget

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.hub_list import HubEntry, hub_label
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import os_error_text
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, save_settings


class HubRename:
    def __init__(self, window: QWidget, home: Home, tasks: TaskSupervisor, tell: Callable[[str], None]) -> None:
        self._window = window
        self._home = home
        self._tasks = tasks
        self._tell = tell

    def ask(self, entry: HubEntry) -> QInputDialog:
        dialog = QInputDialog(self._window, objectName="renameHubDialog")
        dialog.setWindowTitle("Rename hub")
        dialog.setLabelText(f"What this window calls {display_text(hub_label(entry.url))} (empty: its address):")
        for label in dialog.findChildren(QLabel):  # (an address from an invite link: never rich text)
            label.setTextFormat(Qt.TextFormat.PlainText)
        dialog.setTextValue(entry.name)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.textValueSelected.connect(lambda name: self._tasks.spawn("rename hub", self.rename(entry, name)))
        dialog.open()
        return dialog

    async def rename(self, entry: HubEntry, name: str) -> None:
        """Save the name (off the UI thread: the file is fsynced), then show it."""
        path = self._home.settings_file

        def save() -> None:
            save_settings(path, load_settings(path).settings.with_hub_name(entry.url, name))

        try:
            await asyncio.to_thread(save)
        except OSError as error:
            self._tell(f"Could not save the hub's name: {os_error_text(error)}")
            return
        entry.rename(name.strip())
