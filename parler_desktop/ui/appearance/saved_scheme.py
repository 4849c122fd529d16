"""The scheme last chosen in View → Appearance, kept in the settings: shown as the window
opens, written off the UI thread (the file is fsynced) at each choice."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

from parler_desktop.app.appearance.scheme import Scheme
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import os_error_text
from parler_desktop.paths import Home
from parler_desktop.settings import load_settings, save_settings
from parler_desktop.ui.appearance.appearance_menu import AppearanceMenu


class SavedScheme:
    def __init__(self, menu: AppearanceMenu, home: Home, tasks: TaskSupervisor, tell: Callable[[str], None]) -> None:
        self._path = home.settings_file
        self._tasks = tasks
        self._tell = tell
        menu.set_choice(Scheme.named(load_settings(self._path).settings.appearance))
        menu.chosen.connect(lambda scheme: self._tasks.spawn("save appearance", self.save(scheme)))

    async def save(self, scheme: Scheme) -> None:
        def save() -> None:
            save_settings(self._path, dataclasses.replace(load_settings(self._path).settings, appearance=scheme.value))

        try:
            await asyncio.to_thread(save)
        except OSError as error:
            self._tell(f"Could not save the appearance (shown until the window closes): {os_error_text(error)}")
