"""The colours the window is painted in now (a palette of ``app/appearance/palettes.py``):
applied to QApplication's palette for everything Qt draws, and handed to what paints beyond it
(the delegates read ``theme.colours`` as they paint; style sheets follow ``theme.changed``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from parler_desktop.app.appearance.palettes import LIGHT, Colours

Role, Group = QPalette.ColorRole, QPalette.ColorGroup


def qt_palette(c: Colours) -> QPalette:
    """Qt's palette of ``c``: every role a widget of ours or the style paints with."""
    palette = QPalette()
    roles = {
        Role.Window: c.window, Role.WindowText: c.window_text, Role.Base: c.base, Role.AlternateBase: c.alternate_base,
        Role.Text: c.text, Role.PlaceholderText: c.muted, Role.Highlight: c.highlight, Role.HighlightedText: c.highlighted_text,
        Role.Link: c.link, Role.LinkVisited: c.link, Role.Button: c.button, Role.ButtonText: c.button_text,
        Role.BrightText: c.highlighted_text, Role.Light: c.light, Role.Midlight: c.midlight, Role.Mid: c.mid,
        Role.Dark: c.dark, Role.Shadow: c.shadow, Role.ToolTipBase: c.tooltip_base, Role.ToolTipText: c.tooltip_text,
        Role.Accent: c.highlight,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (Role.WindowText, Role.Text, Role.ButtonText, Role.PlaceholderText, Role.HighlightedText):
        palette.setColor(Group.Disabled, role, QColor(c.disabled_text))
    palette.setColor(Group.Disabled, Role.Highlight, QColor(c.mid))
    return palette


class Theme(QObject):
    changed = Signal()  # after QApplication's palette is the new one

    def __init__(self) -> None:
        super().__init__()
        self.colours = LIGHT
        self._applied = False  # QApplication's palette is made of ``colours``
        self._platform_dark: bool | None = None

    def platform_is_dark(self) -> bool:
        """The desktop's own palette is dark (read once, before ours replaces it): the scheme
        where the platform reports none."""
        if self._platform_dark is None:
            self._platform_dark = QGuiApplication.palette().color(Role.Window).lightness() < 128
        return self._platform_dark

    def apply(self, colours: Colours) -> None:
        """Show ``colours`` everywhere; nothing when they are shown already (restyling every
        widget again was 40 % of building the window)."""
        self.platform_is_dark()
        if self._applied and colours == self.colours:
            return
        self._applied = True
        self.colours = colours
        QApplication.setPalette(qt_palette(colours))
        for window in QApplication.topLevelWidgets():  # a style sheet keeps the palette its widgets
            if window.styleSheet():  # had when it polished them: set again, it polishes them anew
                window.setStyleSheet(window.styleSheet())
        self.changed.emit()


theme = Theme()  # one application, one palette


class _StyleFollower(QObject):
    """Keeps its widget's style sheet made from the colours shown (a child of the widget: the
    connection goes with it)."""

    def __init__(self, widget: QWidget, style: Callable[[Colours], str]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._style = style
        theme.changed.connect(self.restyle)
        self.restyle()

    def restyle(self) -> None:
        self._widget.setStyleSheet(self._style(theme.colours))


def follow_style(widget: QWidget, style: Callable[[Colours], str]) -> None:
    """Style ``widget`` with ``style(colours)`` now and whenever the scheme changes."""
    _StyleFollower(widget, style)
