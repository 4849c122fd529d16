"""Which scheme the window shows: the human's choice (View → Appearance), or the system's,
followed live as the desktop switches between light and dark."""

from __future__ import annotations

import enum

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication

from parler_desktop.app.appearance.palettes import DARK, LIGHT, Colours


class Scheme(enum.Enum):
    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"

    @classmethod
    def named(cls, value: str) -> Scheme:
        """The scheme the settings name (an unknown name, say from a newer version: the system's)."""
        try:
            return cls(value)
        except ValueError:
            return cls.SYSTEM


ASKED = {Scheme.SYSTEM: Qt.ColorScheme.Unknown, Scheme.LIGHT: Qt.ColorScheme.Light, Scheme.DARK: Qt.ColorScheme.Dark}


class SchemeChoice(QObject):
    """The colours of the scheme shown; ``changed`` when they change (a choice, or the system's
    scheme while following it)."""

    changed = Signal(object)  # Colours

    def __init__(self, platform_dark: bool, parent: QObject | None = None) -> None:
        """``platform_dark``: the desktop's own palette is dark, which tells the scheme where the
        platform reports none (Qt's ``Unknown``)."""
        super().__init__(parent)
        self.choice = Scheme.SYSTEM
        self._platform_dark = platform_dark
        self._hints = QGuiApplication.styleHints()
        self._system = self._hints.colorScheme()
        self._hints.colorSchemeChanged.connect(self._system_changed)
        self._following = True
        self.colours = self._colours()

    def choose(self, choice: Scheme) -> None:
        """Show ``choice`` from now on. Qt is asked for it too, so that what the platform draws
        (title bars, native dialogs) follows where it can."""
        self.choice = choice
        self._hints.setColorScheme(ASKED[choice])  # may report the change at once: self.choice is set
        if choice is Scheme.SYSTEM:
            self._system = self._hints.colorScheme()
        self._show()

    def stop_following(self) -> None:
        """The window is going: the desktop's scheme is no longer its business (the signal is the
        application's, and outlives the window until Qt deletes it)."""
        if self._following:
            self._following = False
            self._hints.colorSchemeChanged.disconnect(self._system_changed)

    def _system_changed(self, scheme: Qt.ColorScheme) -> None:
        if self.choice is Scheme.SYSTEM:  # (otherwise it is Qt answering our own request)
            self._system = scheme
            self._show()

    def _colours(self) -> Colours:
        if self.choice is not Scheme.SYSTEM:
            return DARK if self.choice is Scheme.DARK else LIGHT
        if self._system is Qt.ColorScheme.Unknown:
            return DARK if self._platform_dark else LIGHT
        return DARK if self._system is Qt.ColorScheme.Dark else LIGHT

    def _show(self) -> None:
        colours = self._colours()
        if colours is not self.colours:
            self.colours = colours
            self.changed.emit(colours)
