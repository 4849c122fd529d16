"""Close to tray: with a tray and the setting on (the default), closing the window hides it and
the app keeps watching the rooms; the first time, a balloon says where it went. The tray menu's Quit really
quits."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QMainWindow, QSystemTrayIcon

from parler_desktop.app.attention.attention_preferences import AttentionPreferences

HINT = "Parler keeps running here and tells you when an agent needs you. Quit from this menu."


class CloseToTray(QObject):
    def __init__(self, window: QMainWindow, tray: QSystemTrayIcon, preferences: AttentionPreferences) -> None:
        super().__init__(window)
        self._window = window
        self._tray = tray
        self._preferences = preferences
        self.quitting = False
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._window or event.type() != QEvent.Type.Close or self.quitting:
            return False
        settings = self._preferences.current()
        if not settings.close_to_tray or not self._tray.isVisible():
            return False
        event.ignore()
        self._window.hide()
        if not settings.tray_hint_shown:
            self._tray.showMessage("Parler is still running", HINT, QSystemTrayIcon.MessageIcon.Information, 8000)
            self._preferences.update(dataclasses.replace(settings, tray_hint_shown=True))
        return True

    def quit(self) -> None:
        self.quitting = True
        self._window.close()
