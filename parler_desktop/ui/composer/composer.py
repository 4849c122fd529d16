"""The composer: Enter sends, Shift+Enter breaks the line, ``@`` completes member names.

Names completed from the roster (and a hand-off's addressee) go out as ``mentions``; a reply
banner carries the ``replyTo`` id; the hand-off button adds a ``com.parler.handoff`` part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtCore import QSignalBlocker, QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from parler_desktop.app.display_text import display_text
from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.protocol.parts import Handoff
from parler_desktop.ui.dialogs.handoff_dialog import HandoffDialog
from parler_desktop.ui.appearance.theme import follow_style
from parler_desktop.ui.keyboard import set_tab_order

MENTION = re.compile(r"(?<![\w@])@([\w.\-]+)")


def mentions_in(text: str, names: Sequence[str]) -> list[str]:
    """The roster names written as ``@name`` in ``text``, lower-cased, first occurrence first."""
    known = {name.lower() for name in names}
    found: list[str] = []
    for match in MENTION.finditer(text):
        name = match.group(1).rstrip(".").lower()
        if name in known and name not in found:
            found.append(name)
    return found


class MessageEdit(QPlainTextEdit):
    """The text box: Enter submits, Shift+Enter inserts a newline, ``@word`` pops a completer;
    Tab and Shift+Tab move the focus on and back (Ctrl+Tab types a tab)."""

    submit = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.names = QStringListModel(self)
        self.completer = QCompleter(self.names, self)
        self.completer.setWidget(self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self._complete)

    def _word_before_cursor(self) -> str:
        cursor = self.textCursor()
        text = cursor.block().text()[: cursor.positionInBlock()]
        match = re.search(r"@([\w.\-]*)$", text)
        return match.group(1) if match else ""

    def _complete(self, name: str) -> None:
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, len(self._word_before_cursor()))
        cursor.insertText(name + " ")
        self.setTextCursor(cursor)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        popup = self.completer.popup()
        if popup.isVisible() and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab, Qt.Key.Key_Escape):
            event.ignore()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submit.emit()
            return
        if event.key() == Qt.Key.Key_Tab and event.modifiers() == Qt.KeyboardModifier.ControlModifier:
            self.insertPlainText("\t")
            return
        super().keyPressEvent(event)
        self._update_completer()

    def _update_completer(self) -> None:
        cursor = self.textCursor()
        before = cursor.block().text()[: cursor.positionInBlock()]
        if not re.search(r"(?:^|\s)@[\w.\-]*$", before):
            self.completer.popup().hide()
            return
        prefix = self._word_before_cursor()
        self.completer.setCompletionPrefix(prefix)
        if self.completer.completionCount() == 0:
            self.completer.popup().hide()
            return
        rect = self.cursorRect()
        rect.setWidth(220)
        self.completer.complete(rect)
        self.completer.popup().setCurrentIndex(self.completer.completionModel().index(0, 0))  # Enter takes it


class Composer(QWidget):
    """Emits ``submitted(text, mentions, reply_to, extra_parts)``; the text stays, read-only, until
    the window says it is durably in the outbox (``accepted``: cleared) or could not be saved
    (``refused``: kept, with the reason shown), so nothing typed is lost to a failed write.
    ``draftChanged`` when the human edits the text or the reply target (not on ``restore``)."""

    submitted = Signal(str, list, object, list)
    draftChanged = Signal()
    attachRequested = Signal()  # the Attach… button: ui/uploads/ asks which files and sends them

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAccessibleName("Composer")  # the group a screen reader names, as it does the panels around it
        self.edit = MessageEdit(self)
        self.edit.setObjectName("composerEdit")
        self.edit.setPlaceholderText("Message — Enter sends, Shift+Enter for a new line, @ to mention")
        self.edit.setAccessibleName("Message")
        self.edit.setAccessibleDescription("Enter sends, Shift+Enter for a new line, @ to mention")
        self.edit.setFixedHeight(72)
        self.edit.submit.connect(lambda: self.send())
        self.edit.textChanged.connect(self.draftChanged)
        self._reply_to: str | None = None  # the hub id of the message being answered
        self._reply_label = QLabel(textFormat=Qt.TextFormat.PlainText)  # quotes a peer's message
        cancel_reply = QToolButton(text="✕", toolTip="Cancel the reply", objectName="cancelReply", accessibleName="Cancel the reply")
        cancel_reply.clicked.connect(lambda: self.set_reply(None))
        self._reply_bar = QWidget()
        reply_row = QHBoxLayout(self._reply_bar)
        reply_row.setContentsMargins(0, 0, 0, 0)
        reply_row.addWidget(self._reply_label, 1)
        reply_row.addWidget(cancel_reply)
        self._reply_bar.hide()
        self._problem = QLabel(objectName="composerProblem", textFormat=Qt.TextFormat.PlainText, wordWrap=True)
        follow_style(self._problem, lambda colours: f"color: {colours.failed};")
        self._problem.hide()
        handoff = QPushButton("Hand off…", objectName="handoffButton")
        handoff.setToolTip("Hand the work to someone: who, what next, what is done")
        handoff.clicked.connect(self.hand_off)
        send = QPushButton("Send", objectName="sendButton", accessibleDescription="Post the message (Enter)")
        send.clicked.connect(lambda: self.send())
        self.attach = QPushButton("Attach…", objectName="attachButton", toolTip="Send files (or drop or paste them here)")
        self.attach.clicked.connect(self.attachRequested)
        self.focus_order = (cancel_reply, self.edit, send, handoff, self.attach)  # as laid out: the reply above, the buttons right
        buttons = QVBoxLayout()
        buttons.addWidget(send)
        buttons.addWidget(handoff)
        buttons.addWidget(self.attach)
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 6)
        layout.addWidget(self._problem)
        layout.addWidget(self._reply_bar)
        layout.addLayout(row)
        set_tab_order(list(self.focus_order))  # (once all are in this widget: Qt orders only widgets of one window)

    def set_names(self, names: Sequence[str]) -> None:
        self.edit.names.setStringList(sorted(set(names), key=str.lower))

    def set_reply(self, entry: TimelineEntry | None) -> None:
        label = f"↪ Replying to {display_text(entry.sender_name)}: {display_text(' '.join(entry.text.split()), 80)}" if entry is not None else ""
        self._show_reply(entry.message_id if entry is not None else None, label)
        if entry is not None:
            self.edit.setFocus()
        self.draftChanged.emit()

    def _show_reply(self, reply_to: str | None, label: str) -> None:
        self._reply_to = reply_to
        self._reply_label.setText(label)
        self._reply_bar.setVisible(reply_to is not None)

    @property
    def reply_to(self) -> str | None:
        return self._reply_to

    @property
    def reply_label(self) -> str:
        return self._reply_label.text() if self._reply_to is not None else ""

    def restore(self, text: str, reply_to: str | None, reply_label: str) -> None:
        """Show a room's draft (another room's text never stays: this replaces it, and a post of
        the last room still being saved no longer holds the text box)."""
        self.edit.setReadOnly(False)
        with QSignalBlocker(self.edit):
            self.edit.setPlainText(text)
        self.edit.moveCursor(QTextCursor.MoveOperation.End)
        self._show_reply(reply_to, reply_label)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self._reply_to is not None:
            self.set_reply(None)  # Esc cancels the reply
            return
        super().keyPressEvent(event)

    @property
    def saving(self) -> bool:
        """A submitted message is being written to the outbox (the text is read-only meanwhile)."""
        return self.edit.isReadOnly()

    def send(self, extra_parts: Sequence[dict] = (), extra_mentions: Sequence[str] = ()) -> None:
        text = self.edit.toPlainText().strip()
        if self.saving or (not text and not extra_parts):
            return  # a second Enter while the first is being saved would post it twice
        mentions = mentions_in(text, self.edit.names.stringList())
        mentions += [m for m in (name.lower() for name in extra_mentions) if m not in mentions]
        reply_to = self._reply_to
        self.edit.setReadOnly(True)
        self.submitted.emit(text, mentions, reply_to, list(extra_parts))

    def accepted(self) -> None:
        """The submitted message is safe in the outbox: start afresh."""
        self.edit.setReadOnly(False)
        self.edit.clear()
        self.set_reply(None)
        self._problem.hide()

    def refused(self, reason: str) -> None:
        """The submitted message was not saved: keep the text (and the reply) and say why."""
        self.edit.setReadOnly(False)
        self._problem.setText(reason)
        self._problem.show()

    def hand_off(self) -> HandoffDialog:
        """Open the hand-off dialog (no nested event loop); Hand off sends it."""
        dialog = HandoffDialog(self.edit.names.stringList(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.send_handoff(dialog.handoff()))
        dialog.open()
        return dialog

    def send_handoff(self, handoff: Handoff) -> None:
        self.send(extra_parts=[handoff.to_part()], extra_mentions=[handoff.to] if handoff.to else [])
