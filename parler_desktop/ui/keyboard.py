"""Keyboard comforts of the window: typing anywhere starts a message, the composer keeps the
focus while the room it serves changes hub, an empty composer's Home / End / Page keys scroll
the timeline, Tab follows the layout, and focus is visible."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QWidget

FOCUS_OUTLINE = (  # where the keyboard is, visible in every theme
    "QAbstractItemView:focus, QPlainTextEdit:focus, QLineEdit:focus { border: 2px solid palette(highlight); }"
)
COMMANDS = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
SCROLL_KEYS = frozenset({Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown})


def set_tab_order(widgets: list[QWidget]) -> None:
    """Tab visits ``widgets`` in this order (Shift+Tab backwards)."""
    for before, after in zip(widgets, widgets[1:]):
        QWidget.setTabOrder(before, after)


def _key_press(event: QEvent) -> QKeyEvent | None:
    return event if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) else None


class TypingToComposer(QObject):
    """A printable key typed where it would start nothing else starts a message: the composer
    takes the focus and the key (Space stays where it is: lists page and fold with it, buttons
    press). Installed on the lists (which would search their rows with it) and on the window,
    which gets the keys no widget took: a button's, or those typed while nothing has the focus."""

    def __init__(self, edit: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._edit = edit

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        key = _key_press(event)
        if key is None or not self._edit.isEnabled():
            return False
        if watched is self._edit.window() and self._edit.hasFocus():
            return False  # a key the composer itself let pass (its own keys come back unread)
        text = key.text()
        if not text or not text.isprintable() or text.isspace() or key.modifiers() & COMMANDS:
            return False
        self._edit.setFocus()
        QApplication.sendEvent(self._edit, QKeyEvent(key.type(), key.key(), key.modifiers(), text))
        return True


class ComposerFocus:
    """Who chose a room to read and answer it types next: the composer has the focus once the room
    is open. When the room is on another hub the composer is disabled meanwhile (the shown hub's
    session changes under it) and Qt moves the focus off it, to nowhere; it comes back once the
    composer is enabled again, unless the human put the focus somewhere else in between."""

    _NOT_WANTED = object()

    def __init__(self, edit: QWidget) -> None:
        self._edit = edit
        self._left_on: object = self._NOT_WANTED  # the focus widget (or None) when it went

    def _window_focus(self) -> QWidget | None:
        return self._edit.window().focusWidget()  # (the active window's or not: a dialog may be in front)

    def want(self) -> None:
        """Give the composer the focus now, or as soon as it is enabled."""
        if self._edit.isEnabled():
            self._edit.setFocus()
        else:
            self._left_on = self._window_focus()

    def disable(self, composer: QWidget) -> None:
        had_it = self._window_focus() is self._edit
        composer.setEnabled(False)
        if had_it:
            self._left_on = self._window_focus()

    def enable(self, composer: QWidget) -> None:
        composer.setEnabled(True)
        left_on, self._left_on = self._left_on, self._NOT_WANTED
        if left_on is not self._NOT_WANTED and self._window_focus() is left_on:
            self._edit.setFocus()


class EmptyComposerScrolls(QObject):
    """Home, End, Page Up and Page Down in an empty composer scroll the timeline (with text they
    move in it): the keys of a room just opened, whose focus is in the composer."""

    def __init__(self, edit: QPlainTextEdit, timeline: QWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._edit = edit
        self._timeline = timeline
        edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        key = _key_press(event)
        if key is None or key.key() not in SCROLL_KEYS or key.modifiers() != Qt.KeyboardModifier.NoModifier:
            return False
        if self._edit.document().isEmpty():
            QApplication.sendEvent(self._timeline, QKeyEvent(key.type(), key.key(), key.modifiers()))
            return True
        return False
