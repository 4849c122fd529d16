"""Sort rooms: by activity / A–Z, a hub's heading menu (or a room's): how that hub's rooms are
listed in the sidebar, the human's choice per hub, kept in the settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from parler_desktop.app.hubs.hub_list import HubEntry, HubList
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.disk_errors import os_error_text
from parler_desktop.paths import Home
from parler_desktop.settings import ROOMS_BY_NAME, Settings, load_settings, save_settings


class RoomOrder:
    def __init__(self, home: Home, tasks: TaskSupervisor, tell: Callable[[str], None]) -> None:
        self._home = home
        self._tasks = tasks
        self._tell = tell

    @staticmethod
    def restore(hubs: HubList, settings: Settings) -> None:
        """Each hub's rooms in the order the settings keep for it."""
        for entry in hubs.entries:
            entry.rooms.set_by_name(settings.room_order.get(entry.url) == ROOMS_BY_NAME)

    def choose(self, entry: HubEntry, by_name: bool) -> None:
        """List ``entry``'s rooms so now, and keep the choice (saved off the UI thread)."""
        entry.rooms.set_by_name(by_name)
        self._tasks.spawn("save room order", self._save(entry.url, by_name))

    async def _save(self, url: str, by_name: bool) -> None:
        path = self._home.settings_file

        def save() -> None:
            save_settings(path, load_settings(path).settings.with_room_order(url, by_name))

        try:
            await asyncio.to_thread(save)
        except OSError as error:
            self._tell(f"Could not save how the rooms are sorted: {os_error_text(error)}")
