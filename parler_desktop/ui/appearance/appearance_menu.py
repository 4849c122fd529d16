"""View → Appearance: System / Light / Dark, applied at once to the whole window; the choice is
kept in the settings (``appearance``) by whoever listens to ``chosen``."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from parler_desktop.app.appearance.scheme import Scheme, SchemeChoice
from parler_desktop.ui.appearance.theme import theme

def initial_schemes(parent: QObject) -> SchemeChoice:
    """The scheme shown as a window is built, its colours applied before any of its widgets is
    made: each then takes them as it is made, instead of all being restyled at once after."""
    schemes = SchemeChoice(theme.platform_is_dark(), parent)
    theme.apply(schemes.colours)
    return schemes


LABELS = {Scheme.SYSTEM: "&System", Scheme.LIGHT: "&Light", Scheme.DARK: "&Dark"}


class AppearanceMenu(QObject):
    chosen = Signal(object)  # Scheme: the human picked it in the menu

    def __init__(self, view_menu: QMenu, schemes: SchemeChoice, parent: QObject | None = None) -> None:
        """``schemes``: ``initial_schemes()``, made before the window's widgets were."""
        super().__init__(parent)
        self.schemes = schemes
        self.menu = view_menu.addMenu("&Appearance")
        group = QActionGroup(self.menu, exclusive=True)
        self.actions: dict[Scheme, QAction] = {}
        for scheme, label in LABELS.items():
            action = self.menu.addAction(label)
            action.setCheckable(True)
            action.setActionGroup(group)
            action.triggered.connect(lambda _checked=False, picked=scheme: self._picked(picked))
            self.actions[scheme] = action
        self.actions[Scheme.SYSTEM].setChecked(True)
        self.schemes.changed.connect(theme.apply)
        theme.apply(self.schemes.colours)

    def set_choice(self, scheme: Scheme) -> None:
        """Show ``scheme`` (the one the settings keep, as the window opens)."""
        self.actions[scheme].setChecked(True)
        self.schemes.choose(scheme)

    def _picked(self, scheme: Scheme) -> None:
        self.schemes.choose(scheme)
        self.chosen.emit(scheme)
