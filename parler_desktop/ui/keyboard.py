"""Keyboard comforts of the window: typing anywhere starts a message, and focus is visible."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

FOCUS_OUTLINE = (  # where the keyboard is, visible in every theme
    "QAbstractItemView:focus, QPlainTextEdit:focus, QLineEdit:focus { border: 2px solid palette(highlight); }"
)


class TypingToComposer(QObject):
    """A printable key typed in the timeline or the room list starts a message: the composer
    takes the focus and the key (Space stays with the list: it pages and folds)."""

    def __init__(self, edit: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._edit = edit

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent) or not self._edit.isEnabled():
            return False
        text = event.text()
        commands = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
        if not text or not text.isprintable() or text.isspace() or event.modifiers() & commands:
            return False
        self._edit.setFocus()
        QApplication.sendEvent(self._edit, QKeyEvent(event.type(), event.key(), event.modifiers(), text))
        return True
