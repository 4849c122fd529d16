"""The live copy of the attention settings: read once at start, saved off the UI thread on every
change, and announced so the tray, the room menu and the notifier agree."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from parler_desktop.app.attention.attention_settings import AttentionSettings, load_attention, save_attention
from parler_desktop.client.tasks import TaskSupervisor


class AttentionPreferences(QObject):
    changed = Signal(object)  # AttentionSettings
    problem = Signal(str)  # a sentence for the human when the file could not be read or written

    def __init__(
        self, path: Path, tasks: TaskSupervisor, first_hub: Callable[[], str], parent: QObject | None = None
    ) -> None:
        """``first_hub()``: the hub a file from before several hubs set its room levels on."""
        super().__init__(parent)
        self.path = path
        self._tasks = tasks
        loaded = load_attention(path, first_hub)
        self._settings = loaded.settings
        self.load_problem = loaded.problem
        self._saving = asyncio.Lock()

    def current(self) -> AttentionSettings:
        return self._settings

    def update(self, settings: AttentionSettings) -> None:
        if settings == self._settings:
            return
        self._settings = settings
        self.changed.emit(settings)
        self._tasks.spawn("save notification settings", self._save())

    async def _save(self) -> None:
        """One save at a time, each writing the newest settings, so the file never goes back."""
        try:
            async with self._saving:
                await asyncio.to_thread(save_attention, self.path, self._settings)
        except OSError as error:
            self.problem.emit(f"Could not save {self.path}: {error}")
