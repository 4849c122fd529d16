"""The window's Notifications menu: Do Not Disturb for a while, pause, and the settings dialog.

Do Not Disturb ends by itself at the chosen time; pausing lasts until the human resumes (the
tray menu has the same switch)."""

from __future__ import annotations

import dataclasses
import datetime
import time

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from parler_desktop.app.attention.attention_preferences import AttentionPreferences
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.ui.dialogs.notification_settings_dialog import NotificationSettingsDialog

MORNING_HOUR = 8


def next_morning(now: float) -> float:
    """The next 08:00 local time after ``now``."""
    today = datetime.datetime.fromtimestamp(now).replace(hour=MORNING_HOUR, minute=0, second=0, microsecond=0)
    morning = today if today.timestamp() > now else today + datetime.timedelta(days=1)
    return morning.timestamp()


def quiet_label(settings: AttentionSettings, now: float) -> str:
    if settings.paused:
        return "Notifications paused"
    if settings.quiet_until > now:
        return "Do not disturb until " + datetime.datetime.fromtimestamp(settings.quiet_until).strftime("%a %H:%M")
    return "Notifications on"


def add_pause_action(menu: QMenu, preferences: AttentionPreferences) -> QAction:
    """A checkable "Pause notifications" in ``menu`` that pauses or resumes; its owner checks it
    to follow the setting, which the other menu (window or tray) may change."""
    action = menu.addAction("&Pause notifications")
    action.setCheckable(True)
    action.toggled.connect(
        lambda paused: preferences.update(dataclasses.replace(preferences.current(), paused=paused))
    )
    return action


class NotificationsMenu(QMenu):
    def __init__(self, window: QMainWindow, preferences: AttentionPreferences) -> None:
        super().__init__("&Notifications", window)
        self.setObjectName("notificationsMenu")
        self._window = window
        self._preferences = preferences
        self.state = self.addAction("")
        self.state.setEnabled(False)
        self.addSeparator()
        for label, seconds in (("Do not disturb for &1 hour", 3600), ("Do not disturb for &4 hours", 4 * 3600)):
            self.addAction(label, lambda s=seconds: self.quiet_until(time.time() + s))
        self.addAction("Do not disturb until &tomorrow morning", lambda: self.quiet_until(next_morning(time.time())))
        self.resume = self.addAction("&Notify me again", self._resume)
        self.pause = add_pause_action(self, preferences)
        self.addSeparator()
        self.addAction("Notification &settings…", self.open_settings)
        self.aboutToShow.connect(self._refresh)
        preferences.changed.connect(self._refresh)
        self._refresh()

    def quiet_until(self, moment: float) -> None:
        self._preferences.update(dataclasses.replace(self._preferences.current(), quiet_until=moment))

    def _resume(self) -> None:
        self._preferences.update(dataclasses.replace(self._preferences.current(), quiet_until=0.0, paused=False))

    def _refresh(self, *_changed: object) -> None:
        settings = self._preferences.current()
        now = time.time()
        self.state.setText(quiet_label(settings, now))
        self.resume.setEnabled(settings.quiet(now))
        self.pause.setChecked(settings.paused)  # toggled (and so an update) only on a change

    def open_settings(self) -> NotificationSettingsDialog:
        dialog = NotificationSettingsDialog(self._preferences.current(), self._window)
        dialog.accepted.connect(lambda: self._preferences.update(dialog.result_settings))
        dialog.open()
        return dialog
