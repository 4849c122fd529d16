"""Asks before an invite link from outside the app is used: which host, as whom.

A ``parler://`` link can come from any web page or message and point to any hub, so nothing is
joined until the person has read where it leads and said yes. The question is a non-modal box
(shown, never ``exec()``'d): the window keeps working while it waits.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QMessageBox, QWidget

from parler_desktop.app.display_text import display_text

# Only macOS hands a clicked link to the running app as an event; elsewhere a later launch
# passes it on the command line (``instance_channel``).
LINKS_COME_AS_EVENTS = sys.platform == "darwin"


class OpenUrlEvents(QObject):
    """macOS hands a clicked ``parler://`` link to the running app as an "open URL" event (not
    on the command line); install this on the QApplication to hear of them. A filter there sees
    every event of the app, a Python call each, so it is installed only where such events come
    (``LINKS_COME_AS_EVENTS``)."""

    linkOpened = Signal(str)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent) and event.url().scheme() == "parler":
            self.linkOpened.emit(event.url().toString())
            return True
        return False


def ask_to_join(parent: QWidget, host: str, name: str, adds_hub: bool, on_join: Callable[[], None]) -> QMessageBox:
    """Show the question (saying so when joining adds a hub the window does not hold yet);
    ``on_join`` runs only if the person chooses Join."""
    host = display_text(host)
    text = f"Join a room on {host} as {display_text(name)}?\n\nThe invite link came from outside the app; a link can point to any hub, so accept only invites you expected."
    if adds_hub:
        text += f"\n\nThe window does not hold {host} yet: joining adds it beside its other hubs, which stay connected."
    box = QMessageBox(QMessageBox.Icon.Question, "Join with an invite link", "", parent=parent)
    box.setTextFormat(Qt.TextFormat.PlainText)  # the host comes from the link
    box.setText(text)
    join = box.addButton("Join", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(join)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.buttonClicked.connect(lambda button: on_join() if button is join else None)
    box.show()
    return box
