"""Keep messages… on a hub's heading: the hub's retention policy, kept in the settings
(``hub_retention``) and handed to its running session, which prunes at once in the background."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from parler_desktop.app.display_text import display_text
from parler_desktop.app.hubs.hub_list import HubEntry
from parler_desktop.client.cache_keeper import retention_of
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import os_error_text
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, save_settings
from parler_desktop.store.retention import RetentionPolicy
from parler_desktop.ui.dialogs.retention_dialog import RetentionDialog


class HubRetention:
    def __init__(self, window: QWidget, home: Home, tasks: TaskSupervisor, tell: Callable[[str], None]) -> None:
        self._window = window
        self._home = home
        self._tasks = tasks
        self._tell = tell
        self.dialog: RetentionDialog | None = None  # the one open now (tests look at it)

    def ask(self, entry: HubEntry) -> None:
        """Open the dialog on the hub's policy now (read off the UI thread)."""
        self._tasks.spawn("keep messages", self._ask(entry))

    async def _ask(self, entry: HubEntry) -> None:
        path = self._home.settings_file
        policy = retention_of((await asyncio.to_thread(load_settings, path)).settings, entry.url)
        dialog = RetentionDialog(display_text(entry.label), policy, self._window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.chosen.connect(lambda chosen: self._tasks.spawn("keep messages", self.keep(entry, chosen)))
        dialog.open()
        self.dialog = dialog

    async def keep(self, entry: HubEntry, policy: RetentionPolicy) -> None:
        """Save the policy (off the UI thread: the file is fsynced), then apply it."""
        path = self._home.settings_file

        def save() -> None:
            save_settings(path, load_settings(path).settings.with_retention(entry.url, policy.to_text()))

        try:
            await asyncio.to_thread(save)
        except OSError as error:
            self._tell(f"Could not save what to keep: {os_error_text(error)}")
            return
        if entry.bridge.session is not None:
            entry.bridge.session.set_retention(policy)
