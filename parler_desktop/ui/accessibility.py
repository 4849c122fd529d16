"""What the window tells a screen reader beyond what Qt derives from its widgets and models.

Qt's accessibility (AT-SPI on Linux, UI Automation on Windows, NSAccessibility on macOS) reads
each widget's accessible name, and each list row's ``Qt.AccessibleTextRole`` (the models give
it, ``app/timeline/message_reading.py``, ``app/room_list/row_reading.py``). Here: names for the
clear button Qt adds to a line edit, and polite announcements of live changes — a new message
in the open room, a hub's connection changing — as ``QAccessibleAnnouncementEvent`` (Qt 6.8 and
later); an older Qt gets the text as the widget's accessible description, with its change event,
which screen readers that follow the focus read out.
"""

from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import QLineEdit, QToolButton, QWidget

from parler_desktop.app.hubs.connection_status import StatusView, Tone
from parler_desktop.app.hubs.hub_list import HubEntry, HubList

_ANNOUNCEMENT = getattr(QtGui, "QAccessibleAnnouncementEvent", None)  # Qt >= 6.8


def name_clear_button(edit: QLineEdit, name: str) -> None:
    """Name the clear button ``setClearButtonEnabled`` put in ``edit`` (Qt leaves it unnamed)."""
    for button in edit.findChildren(QToolButton):
        button.setAccessibleName(name)


class Announcer(QObject):
    """Says a sentence politely through ``widget`` (a screen reader reads it when idle)."""

    announced = Signal(str)

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self._widget = widget

    def say(self, text: str) -> None:
        self.announced.emit(text)
        if _ANNOUNCEMENT is not None:
            event = _ANNOUNCEMENT(self._widget, text)
            event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
            QAccessible.updateAccessibility(event)
            return
        self._widget.setAccessibleDescription(text)
        QAccessible.updateAccessibility(QAccessibleEvent(self._widget, QAccessible.Event.DescriptionChanged))


class ConnectionAnnouncements(QObject):
    """Each hub's connection line is announced when it changes in kind (its tone: live, busy,
    trouble, failed), not on every tick of a reconnect countdown."""

    def __init__(self, hubs: HubList, announcer: Announcer) -> None:
        super().__init__(announcer)
        self.announcer = announcer
        self._hubs = hubs
        self._tones: dict[int, Tone] = {}  # by id of the hub's ConnectionStatus
        for entry in hubs.entries:
            self._follow(entry)
        hubs.added.connect(self._follow)

    def _follow(self, entry: HubEntry) -> None:
        self._tones[id(entry.status)] = entry.status.view.tone
        entry.status.changed.connect(self._changed)  # (a bound method: Qt drops it with this object)

    def _changed(self, view: StatusView) -> None:
        entry = next((e for e in self._hubs.entries if e.status is self.sender()), None)
        if entry is not None and self._tones.get(id(entry.status)) != view.tone:
            self._tones[id(entry.status)] = view.tone
            self.announcer.say(f"{entry.label}: {view.heading}")
